"""Run a callback right after a module has executed, the first time anything imports it.

The adapter patches torch's device-type machinery (instantiate.py) when a test file first
imports it, not before: importing it costs seconds (it pulls in dynamo/inductor), and plain
TestCase files never need it. The patches are in place before the importing file binds any
name from it.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import importlib.machinery
import sys
from typing import Callable


def when_imported(name: str, callback: Callable[[], None]) -> Callable[[], None]:
    """Run `callback` now if `name` is loaded, else right after it first executes; returns
    the undo (the finder removed, if it is still waiting)."""
    if name in sys.modules:
        callback()
        return lambda: None
    finder = AfterImport(name, callback)
    sys.meta_path.insert(0, finder)
    return lambda: finder in sys.meta_path and sys.meta_path.remove(finder)


class AfterImport:
    """A meta path finder that runs ``callback`` right after module ``name`` has executed."""

    def __init__(self, name: str, callback: Callable[[], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader, callback = spec.loader, self.callback

        class Loader:
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                callback()

        spec.loader = Loader()
        return spec
