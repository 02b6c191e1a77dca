"""The concern plugins a run registers: plugin.py's pytest_configure registers each (the
stateful ones as objects: reporting's Recorder, isolation's controller and worker), and its
pytest_unconfigure unregisters them, the last registered first.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import pytest

# The names this run registered, in order.
REGISTERED = pytest.StashKey[list[str]]()


def register(config: pytest.Config, plugin: object, name: str) -> None:
    config.pluginmanager.register(plugin, name)
    config.stash.setdefault(REGISTERED, []).append(name)


def unregister_all(config: pytest.Config) -> None:
    names = config.stash.get(REGISTERED, [])
    while names:
        plugin = config.pluginmanager.get_plugin(names.pop())
        if plugin is not None:
            config.pluginmanager.unregister(plugin)
