"""One outcome vocabulary (testing/results), one test per outcome path: every consumer agrees.

A suite with one test per path runs twice, for real: under plain pytest with the adaptation
plugin (`--isolate`, its JSON summary) and under the shard runner (reruns on). Each path
is then read by every consumer: the plugin's summary, the shard runner's verdicts and
merged JUnit, crcr's callback counts and failing cases, and the selection's refine step.
A strict XPASS is a promotion everywhere: run once, never a (flaky) failure, leg green;
a leg whose only non-pass is one is green through the shard runner and through crcr's
pytest runner alike (Done-when 4 of issue 23), and the warehouse stores it so.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crcr.callback_client.junit import read_report
from crcr.dispatch.plan import Candidate, Leg
from crcr.handler.runner import LegSettings, run_leg
from crcr.warehouse.records import leg_report
from testing.results import junit
from testing.results.outcomes import BAD, PROMOTABLE, Outcome, tally
from tools.select.refine.results import read_junit
from tools.shard.tests.conftest import REPO_ROOT

SUITE = """
import os, signal
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("setup breaks")

def test_passed(): pass
def test_failed(): assert 1 == 2
def test_error(broken): pass
def test_skipped(): pytest.skip("not here")

@pytest.mark.xfail(reason="known", strict=False)
def test_xfailed(): assert 0

@pytest.mark.xfail(reason="known", strict=False)
def test_xpassed(): pass

@pytest.mark.xfail(reason="fixed upstream?", strict=True)
def test_xpassed_strict(): pass

def test_crashed():
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.kill(os.getpid(), signal.SIGSEGV)
"""
PATHS = [o.value for o in Outcome]
QUIET = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:faulthandler"]


def child_env() -> dict:
    """This environment minus any shard/Bazel test settings, with the repo importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "OOT_SHARD", "XML_OUTPUT"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    return env


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("agreement")
    (work / "test_paths.py").write_text(SUITE)
    env = child_env()

    def run(*argv):
        return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=600)

    plugin = run(
        sys.executable,
        "-m",
        "pytest",
        *QUIET,
        "-p",
        "testing.plugin",
        "--isolate",
        "--oot-summary=plugin.json",
        "--junitxml=plugin.xml",
        "test_paths.py",
    )
    shard = run(
        sys.executable,
        "-m",
        "tools.shard.runner",
        "--reruns=2",
        "--junitxml=shard.xml",
        "--summary=shard.json",
        "--",
        *QUIET,
        "test_paths.py",
    )
    return work, plugin, shard


def path_of(name: str) -> str:
    """test_paths.py::test_xpassed_strict (or a JUnit name) -> xpassed_strict"""
    return name.rsplit("::", 1)[-1].removeprefix("test_")


def by_test(items):
    return {path_of(item["nodeid"]): item for item in items}


@pytest.mark.parametrize("path", PATHS)
def test_every_consumer_names_the_path_alike(runs, path):
    work, plugin, shard = runs
    plugin_tests = by_test(json.loads((work / "plugin.json").read_text())["tests"])
    shard_summary = json.loads((work / "shard.json").read_text())
    shard_tests = by_test(shard_summary["tests"])
    for xml in ("plugin.xml", "shard.xml"):
        case = {path_of(c.name): c for c in junit.read(work / xml)}[path]
        selected = {path_of(c.test): c for c in read_junit(work / xml)}[path]
        assert (case.outcome, selected.outcome) == (path, path), xml
        report = read_report([work / xml])  # crcr's one reading of a leg's JUnit
        assert getattr(report.counts, tally(path)) >= 1
        failing = {path_of(c.name) for c in report.failures}
        assert (path in failing) == (path in BAD), (xml, failing)
    assert plugin_tests[path]["outcome"] == path, plugin.stdout[-2000:]
    # the shard runner: bad outcomes are rerun (2 reruns), every other one runs once
    assert shard_tests[path]["attempts"] == [path] * (3 if path in BAD else 1), shard.stderr[-2000:]
    assert shard_tests[path]["outcome"] == path
    for summary in (shard_summary, json.loads((work / "plugin.json").read_text())):
        promoted = {path_of(n) for n in summary["promotion_candidates"]}
        assert (path in promoted) == (path in PROMOTABLE)


STRICT_ONLY = "import pytest\n\n@pytest.mark.xfail(reason='r', strict=True)\ndef test_fixed(): pass\n"


def test_a_strict_xpass_alone_keeps_the_shard_green(tmp_path):
    """Done-when 4: one attempt, reported as a promotion candidate, exit 0, counted passed."""
    (tmp_path / "test_strict.py").write_text(STRICT_ONLY)
    env = child_env()
    proc = subprocess.run(
        [sys.executable, "-m", "tools.shard.runner", "--reruns=2", "--junitxml=out.xml", "--summary=s.json"]
        + ["--", *QUIET, "test_strict.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["tests"][0]["attempts"] == ["xpassed_strict"]
    assert summary["promotion_candidates"] == ["test_strict.py::test_fixed"]
    assert "rerun" not in proc.stderr and len(summary["processes"]) == 1
    counts = read_report([tmp_path / "out.xml"]).counts
    assert (counts.passed, counts.failed) == (1, 0)


def test_a_strict_xpass_alone_keeps_a_crcr_pytest_leg_green(tmp_path, monkeypatch):
    """crcr's pytest runner (plain pytest exits 1 on it): the leg is green, one run, the test
    counted passed and named a promotion candidate; the warehouse's rows of the same leg agree,
    and the adaptation plugin's own summary lists it too."""
    ws = tmp_path / "ws"
    (ws / "configs").mkdir(parents=True)
    (ws / "configs" / "strict.yaml").write_text(
        "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/testing/suites/test_strict.py\n"
    )
    (ws / "testing" / "suites").mkdir(parents=True)
    (ws / "testing" / "suites" / "test_strict.py").write_text(STRICT_ONLY)
    monkeypatch.setenv("REPO_ROOT", str(ws))
    # crcr's leg gets our sys.path; pytest put tools/ (a namespace package, no __init__) on it
    # for this test package, where tools/select would shadow the standard library's select
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p).name != "tools"])
    candidate = Candidate("primary", "HEAD", "a" * 40, "a" * 40, True)
    leg = Leg(0, candidate, "strict", ("configs/strict.yaml",), 0, 1, "strict")
    result = run_leg(leg, LegSettings(ws, tmp_path / "out", "pytest", child_env(), timeout=300))
    assert result.exit_code == 1  # what pytest said
    assert result.conclusion == "success", (result.notes, (tmp_path / "out" / "strict.log").read_text())
    assert (result.counts.passed, result.counts.failed) == (1, 0) and not result.failing_tests
    (note,) = [n for n in result.notes if n.startswith("promotion candidates")]
    assert note.endswith(": 1: testing.suites.test_strict::test_fixed")
    rows = leg_report(result.report)  # what the warehouse ingests for this leg
    assert rows.complete and rows.tally() == (1, 0, 0) and not rows.failing()
    assert [t.outcome for t in rows.tests] == [Outcome.XPASSED_STRICT]

    plugin = subprocess.run(
        [sys.executable, "-m", "pytest", *QUIET, "-p", "testing.plugin", "--oot-summary=p.json"]
        + ["testing/suites/test_strict.py"],
        cwd=ws,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert plugin.returncode == 1  # plain pytest keeps its own meaning of strict
    summary = json.loads((ws / "p.json").read_text())
    assert summary["promotion_candidates"] == ["testing/suites/test_strict.py::test_fixed"], summary
