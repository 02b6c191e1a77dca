"""pytest plugin recording per-test coverage of torch/**/*.py for the change map.

Loaded with `-p tools.select.changes.covplugin` next to the adaptation plugin, with
$OOT_COV_OUT naming a directory. Coverage starts in pytest_cmdline_main, before any plugin
configures (and so before torch is imported): lines run at import and collection land in
the empty context; each test (setup, call, teardown) runs in a context named by its test
id. coverage.py's own `dynamic_context = test_function` names a context after the
running function, which for generated device tests is the generic one: all op/dtype
variants would share it. Durations, outcomes and config buckets go to tests.json beside
.coverage.

Why coverage.py and not sys.monitoring: the interpreter is 3.11 (sys.monitoring is 3.12+),
and coverage.py is a well-kept library already in the lock (CTracer: C speed).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

OUT_ENV = "OOT_COV_OUT"
OFF_ENV = "OOT_COV_OFF"  # "1": durations and outcomes only (the build-cost baseline)
ROOTS_ENV = "OOT_COV_ROOTS"  # JSON {"${REPO_ROOT}": path, "${TORCH_ROOT}": path}
_state: dict = {}


def torch_dirs() -> list[str]:
    """Where torch is imported from (the core overlay first, when there is one) and the real
    paths behind it (coverage reports real paths for symlinked files)."""
    spec = importlib.util.find_spec("torch")
    dirs = list(spec.submodule_search_locations or []) if spec else []
    return list(dict.fromkeys([*dirs, *(os.path.realpath(d) for d in dirs)]))


def test_id(item, roots: dict) -> str:
    """`${ROOT}/rel::GenericClass::generated_name` (the plugin's Variant names the generic class)."""
    from testing.changes.changemap import to_rooted

    path = to_rooted(str(item.path), roots)
    cls = getattr(item, "cls", None)
    fn = getattr(cls, item.name, None) if cls is not None else None
    variant = getattr(fn, "_oot_variant", None)
    generic = variant.cls if variant is not None else (cls.__name__ if cls is not None else "")
    return f"{path}::{generic}::{item.name}"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    out = os.environ.get(OUT_ENV)
    if not out or "cov" in _state:
        return None
    Path(out).mkdir(parents=True, exist_ok=True)
    dirs = torch_dirs()
    roots = json.loads(os.environ.get(ROOTS_ENV, "{}"))
    _state.update(cov=None, out=Path(out), dirs=dirs, tests={}, roots=roots)
    if os.environ.get(OFF_ENV) == "1":
        return None
    import coverage

    cov = coverage.Coverage(
        data_file=str(Path(out) / ".coverage"),
        include=[os.path.join(d, "*") for d in dirs],
        config_file=False,
    )
    cov.start()
    _state["cov"] = cov
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if "tests" not in _state:
        yield
        return
    cov = _state["cov"]
    tid = test_id(item, _state["roots"])
    _state["current"] = tid
    # the adaptation plugin's bucket (JUnit property `bucket`): whether the test can fail the leg
    mode = dict(item.user_properties).get("bucket", "")
    _state["tests"][tid] = {"seconds": 0.0, "outcome": "passed", "mode": str(mode)}
    if cov is not None:
        cov.switch_context(tid)
    yield
    if cov is not None:
        cov.switch_context("")


def pytest_runtest_logreport(report):
    tests = _state.get("tests")
    tid = _state.get("current")
    if tests is None or tid not in tests:
        return
    rec = tests[tid]
    rec["seconds"] += report.duration
    if report.failed:
        rec["outcome"] = "failed"
    elif report.skipped and rec["outcome"] == "passed":
        rec["outcome"] = "skipped"  # skips and xfails: neither kills a mutant


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if "tests" not in _state:
        return
    cov = _state.pop("cov", None)
    if cov is not None:
        cov.stop()
        cov.save()
    from testing.base.atomic import write_json

    write_json(_state["out"] / "tests.json", {"torch_dirs": _state["dirs"], "tests": _state["tests"]})
