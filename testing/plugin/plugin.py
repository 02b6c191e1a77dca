"""pytest entry point: the shared options, configure/unconfigure and the run's StashKeys.

Load with ``pytest -p testing.plugin``. Every concern is a plugin of its own, registered
here in pytest_configure and unregistered in pytest_unconfigure (registry.py):

* adaptation.py — the plan, support and adapter (instantiate.py: the torch glue), and the
  collection hooks that apply them;
* modelcases.py — each model-op case's outcome, where it ran;
* native/xfail.py — a native xfail_strict that passed, said the patch adapter's way;
* reporting.py — JUnit properties, the JSON summary, config warnings (Recorder);
* promotion.py — the promotion report (``--oot-promotion``);
* isolation.py — ``--isolate``: the zygote, or the restart mode's controller and workers.

Options: addoption.py (one place, importing only pytest: which of them make the plugin
active is decided before any concern loads).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import pytest

from testing.plugin.addoption import (  # noqa: F401 (the hook, and names tests read from here)
    ADAPTER_CHOICES,
    COMPAT_CHOICES,
    OWN_OPTIONS,
    pytest_addoption,
)

if TYPE_CHECKING:
    from testing.plugin.adaptation import Adaptation

# Only pytest and the options at module level: the wheel's pytest11 entry point imports this
# module in every pytest run of a venv that has it, configured or not (test_plugin_wheel.py
# checks nothing else loads). The concerns (pydantic models, ruamel, the supervisor, torch)
# load in pytest_configure, and not at all when the plugin is inactive (_active).

# the run's adapter and its collection hooks; absent in a restart-mode controller
ADAPTATION: pytest.StashKey[Adaptation] = pytest.StashKey()


def _active(config: pytest.Config) -> bool:
    """Loaded by name (-p testing.plugin, pytest_plugins), or given any of its options.
    Loaded only through the wheel's entry point with none of them, the plugin registers
    its options and one marker and does nothing else: that run is not ours."""
    module = sys.modules[__package__]
    from_entry_point = any(plugin is module for plugin, _ in config.pluginmanager.list_plugin_distinfo())
    given = any(getattr(config.option, dest, None) not in (None, False, []) for dest in OWN_OPTIONS)
    return not from_entry_point or given


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "bucket__mandatory_success: test variant must pass")
    if not _active(config):
        return
    # Lazy (see above): the light modules every active run needs.
    from testing.plugin import labels, modelcases, registry, reporting, roles
    from testing.plugin.native import xfail as native_xfail

    try:
        test_type = labels.resolve_test_type(config.option.oot_test_type, os.environ)
    except ValueError as exc:
        raise pytest.UsageError(f"--oot-test-type: {exc}")
    # the report wrappers first: reporting's Recorder, registered later, wraps them
    registry.register(config, modelcases, modelcases.NAME)
    registry.register(config, native_xfail, native_xfail.NAME)
    controller = _configure_isolation(config) if roles.isolating(config) else False
    recorder = reporting.configure(config)  # after isolation: not in a worker
    if recorder is not None and config.option.oot_promotion:
        # Lazy: the report's config editor (ruamel) loads only for --oot-promotion.
        from testing.plugin import promotion

        registry.register(config, promotion.Promotion(config, recorder), promotion.NAME)
    if controller:
        return  # the restart-mode controller configures nothing else: its workers collect and run
    # Lazy: adaptation imports torch (seconds), which a restart-mode controller never loads.
    from testing.plugin import adaptation

    config.stash[ADAPTATION] = built = adaptation.configure(config, test_type)
    registry.register(config, built, adaptation.NAME)


def _configure_isolation(config: pytest.Config) -> bool:
    """This process's part of an --isolate run; True: the restart mode's controller."""
    # Lazy: the supervisor loads only for --isolate runs and the workers they spawn.
    from testing.plugin import isolation

    if isolation.is_controller(config):
        isolation.configure_controller(config)
        return True
    isolation.configure(config)  # a zygote, or a worker the supervisor spawned
    return False


def pytest_unconfigure(config: pytest.Config) -> None:
    if not _active(config):
        return
    # Lazy, as in pytest_configure: an inactive run never loads it.
    from testing.plugin import registry

    built = config.stash.get(ADAPTATION, None)
    if built is not None:
        built.uninstall()
    registry.unregister_all(config)
