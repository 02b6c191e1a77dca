"""The plugin's command-line options (and which of them make an entry-point-loaded plugin
active): option parsing imports nothing but pytest.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import argparse

import pytest

# plan.COMPAT_TORCH_SPYRE, spelled out so option parsing does not import plan.py
# (test_plan.py checks they agree).
COMPAT_CHOICES = ("torch_spyre",)
# Options whose presence makes an entry-point-loaded plugin active (dest names).
OWN_OPTIONS = (
    "oot_configs",
    "oot_strict",
    "oot_compat",
    "oot_upstream_root",
    "oot_backend",
    "oot_device",
    "oot_test_type",
    "oot_summary",
    "oot_promotion",
    "oot_timeout",
    "oot_hang_window",
    "oot_isolate",
    "oot_isolate_mode",
    "oot_only",
    "oot_adapter",
)
# native/choice.ADAPTERS, spelled out so option parsing imports nothing else.
ADAPTER_CHOICES = ("auto", "native", "patch")


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("oot", "out-of-tree backend test adaptation")
    g.addoption(
        "--config",
        action="append",
        default=[],
        dest="oot_configs",
        metavar="YAML",
        help="test-suite config (repeatable; merged in order, a later file wins)",
    )
    g.addoption(
        "--oot-strict",
        dest="oot_strict",
        action="store_true",
        help="config hygiene: every config problem (reason only in a comment, unknown or duplicate name, "
        "non-OpInfo op name, override, a collected file no config adapts) is an error with file:line",
    )
    g.addoption(
        "--oot-compat",
        dest="oot_compat",
        choices=list(COMPAT_CHOICES),
        help="read every config as Torch Spyre does (class-insensitive names, device restrictions "
        "and only_for relaxed, unlisted tests xfail); same as global.compat",
    )
    g.addoption(
        "--upstream-root",
        dest="oot_upstream_root",
        metavar="PATH",
        help="PyTorch checkout for ${TORCH_ROOT} paths (default: $TORCH_ROOT)",
    )
    g.addoption(
        "--oot-backend",
        dest="oot_backend",
        metavar="MODULE",
        help="module that registers the device (overrides global.backend)",
    )
    g.addoption(
        "--oot-device",
        dest="oot_device",
        metavar="TYPE",
        help="device type to test (overrides global.device_type; default: backend's name, else cpu)",
    )
    g.addoption(
        "--oot-test-type",
        dest="oot_test_type",
        metavar="NAME",
        help="test type matched against config labels: entries and configs whose labels exclude it "
        "are left out (default: $OOT_TEST_TYPE; unset: labels do not filter)",
    )
    g.addoption(
        "--oot-only",
        dest="oot_only",
        metavar="JSON",
        help="run only this change-aware selection (test ids and whole files; testing/changes/only.py), "
        "applied before instantiation",
    )
    g.addoption(
        "--oot-summary",
        dest="oot_summary",
        metavar="PATH",
        help="write the JSON summary (counts per bucket/op/dtype, per-test durations)",
    )
    g.addoption(
        "--oot-promotion",
        dest="oot_promotion",
        metavar="PATH",
        help="write promotion candidates as JSON to PATH and a YAML diff to PATH.diff",
    )
    g.addoption(
        "--oot-timeout",
        dest="oot_timeout",
        type=float,
        metavar="SECONDS",
        help="per-test timeout: a hang becomes a failure (pytest-timeout; watchdog under --isolate)",
    )
    g.addoption(
        "--oot-hang-window",
        dest="oot_hang_window",
        type=_positive_seconds,
        default=None,
        metavar="SECONDS",
        help="under --isolate: a test with no progress (stack, CPU, output) for this long is a hang, "
        "told apart from a slow test (default 300)",
    )
    g.addoption(
        "--oot-adapter",
        dest="oot_adapter",
        choices=list(ADAPTER_CHOICES),
        help="auto (default): torch's own test-reuse API (set_test_configs) where the core has it, "
        "our patches for the rest; native: every rule must be native; patch: patches only "
        "(overrides global.adapter)",
    )
    g.addoption(
        "--isolate",
        dest="oot_isolate",
        action="store_true",
        help="run tests in a worker process; a test that kills it is reported as ERROR and the run goes on",
    )
    g.addoption(
        "--isolate-mode",
        dest="oot_isolate_mode",
        choices=("fork", "restart"),
        default=None,
        help="--isolate: fork = pre-imported zygote, a fork per crash (default); "
        "restart = a fresh interpreter per crash (default on macOS)",
    )


def _positive_seconds(text: str) -> float:
    """testing.base.cliargs.positive_float, restated: an entry-point-loaded plugin that no option
    activates must import nothing but this module and pytest (test_plugin_wheel checks)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value
