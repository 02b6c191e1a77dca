"""The seam between the two adapters, in one file.

The patch adapter (instantiate.Adapter) wraps torch's test generation for every run. At each
point below it asks a ``Generation`` what torch's own test-reuse API (``set_test_configs``,
``bypass_device_restrictions``: shared/docs/upstream-test-reuse.md) has already said,
and patches only the rest. Two ways implement it:

* ``Patches`` (here): torch's API says nothing; the patches decide every test and op
  (``adapter: patch``, or a core without the API);
* ``native.runtime.NativeRuntime``: the config compiled to torch's settings
  (native/compile.py) says what it can; the patches add what it cannot.

Which one runs is native/choice.py's (``adapter: auto | native | patch``), built by
native/setup.py at configure time.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from testing.plugin.selection import Decision, Variant


class Generation(Protocol):
    """What the patch adapter asks while torch generates a file's tests."""

    # True: torch's own settings keep out of generation what they can say (test_exclusions,
    # op_allowlist); False: the patches decide every test (selection.should_instantiate)
    # and every op (the support).
    uses_torch_api: bool

    def install(self, cdt: Any, restore: list[Callable[[], None]]) -> bool:
        """Set torch's settings up once (undo steps go to `restore`). False: the core lacks
        the API after all; the patches then do everything."""
        ...

    def leave_out_class(self, scope: dict, generic_cls: type) -> bool:
        """A class global.scope leaves out. True: torch still instantiates it (its exclusions
        drop every test); False: it is gone from `scope` and never instantiated."""
        ...

    def before_class(self, fp: Any, generic_cls: type) -> bool:
        """Right before torch instantiates a class. True: torch's exclusions may keep some of
        its tests from ever reaching instantiate_test (the adapter counts them seen here)."""
        ...

    def allowed(self, op: Any) -> bool:
        """May torch's op list keep this OpInfo (its op_allowlist)?"""
        ...

    def admit(self, ops: list) -> None:
        """Model-op cases are OpInfos of our own that no op list names: let them through."""
        ...

    def layer(self, fn: Callable, d: Decision, v: Variant) -> tuple[Decision, bool]:
        """One generated method: our decision minus what torch already applied to it, and
        whether torch made it an expected failure (then the patches add no xfail mark)."""
        ...


class Patches:
    """torch's API says nothing: every decision is the patches'."""

    uses_torch_api = False

    def install(self, cdt: Any, restore: list[Callable[[], None]]) -> bool:
        return True

    def leave_out_class(self, scope: dict, generic_cls: type) -> bool:
        del scope[generic_cls.__name__]
        return False

    def before_class(self, fp: Any, generic_cls: type) -> bool:
        return False

    def allowed(self, op: Any) -> bool:
        return True

    def admit(self, ops: list) -> None:
        return None

    def layer(self, fn: Callable, d: Decision, v: Variant) -> tuple[Decision, bool]:
        return d, False


PATCHES = Patches()
