"""The shard runner end to end: real pytest child processes, real crashes."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from tools.shard import ingest

pytest_plugins = ["pytester"]

SUITE = """
import os, pathlib
import pytest

@pytest.mark.parametrize("i", range(4))
def test_ok(i):
    pass

def test_segfault():
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file for a deliberate crash
    os.kill(os.getpid(), 11)

def test_flaky():
    marker = pathlib.Path(os.environ["FLAKY_MARKER"])
    if not marker.exists():
        marker.write_text("failed once")
        raise AssertionError("first attempt fails")

def test_broken():
    assert 1 == 2

def test_after_crash():
    pass
"""


def run(pytester, *runner_args, env=None):
    cmd = [
        sys.executable,
        "-m",
        "tools.shard.runner",
        "--junitxml=out.xml",
        "--summary=summary.json",
        *runner_args,
        "--",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:faulthandler",
    ]
    proc = subprocess.run(cmd, cwd=pytester.path, env=env, capture_output=True, text=True, timeout=300)
    summary = json.loads((pytester.path / "summary.json").read_text())
    return proc, {t["nodeid"]: t for t in summary["tests"]}, summary


@pytest.fixture
def env(pytester, monkeypatch):
    import os

    monkeypatch.setenv("FLAKY_MARKER", str(pytester.path / "flaky.marker"))
    return dict(os.environ)


@pytest.mark.parametrize("mode", ["fork", "restart"])
def test_crash_flaky_and_failure_are_told_apart(pytester, env, mode):
    pytester.makepyfile(test_mix=SUITE)
    proc, tests, summary = run(pytester, "--reruns=2", f"--isolate-mode={mode}", env=env)
    assert proc.returncode == 1, proc.stderr
    outcome = {n.split("::")[1]: t["outcome"] for n, t in tests.items()}
    assert outcome == {
        **{f"test_ok[{i}]": "passed" for i in range(4)},
        "test_segfault": "crashed",
        "test_flaky": "flaky",
        "test_broken": "failed",
        "test_after_crash": "passed",
    }
    assert tests["test_mix.py::test_flaky"]["attempts"] == ["failed", "passed"]
    assert tests["test_mix.py::test_broken"]["attempts"] == ["failed"] * 3
    assert summary["counts"] == {"crashed": 1, "failed": 1, "flaky": 1, "passed": 5}
    if mode == "restart":  # the crash took the pytest process down: the rest ran in a new one
        assert "rerunning the 3 tests not yet run" in proc.stderr
        assert "signal 11" in summary["processes"][0]["detail"]
    else:  # the zygote forked again: one pytest process per round (first run + 2 reruns)
        assert "rerunning" not in proc.stderr.replace("rerun 1/2", "").replace("rerun 2/2", "")
        assert len(summary["processes"]) == 3


@pytest.mark.parametrize("mode", ["fork", "restart"])
def test_merged_junit_marks_flaky_and_crash(pytester, env, mode):
    pytester.makepyfile(test_mix=SUITE)
    run(pytester, "--reruns=1", f"--isolate-mode={mode}", env=env)
    root = ET.parse(pytester.path / "out.xml").getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert len(cases) == 8
    flaky = cases["test_flaky"]
    assert flaky.find("failure") is None
    assert "first attempt fails" in flaky.find("flakyFailure").get("message")
    props = {p.get("name"): p.get("value") for p in flaky.iter("property")}
    assert props == {"attempts": "failed,passed", "outcome": "flaky"}
    assert "signal 11" in cases["test_segfault"].find("error").get("message")
    assert cases["test_broken"].find("failure") is not None
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("8", "1", "1")


def test_only_flaky_failures_keep_the_shard_green(pytester, env):
    pytester.makepyfile(
        test_f="""
        import os, pathlib
        def test_ok(): pass
        def test_flaky():
            marker = pathlib.Path(os.environ["FLAKY_MARKER"])
            if not marker.exists():
                marker.write_text("x")
                raise AssertionError("once")
    """
    )
    proc, tests, summary = run(pytester, env=env)
    assert proc.returncode == 0, proc.stderr
    assert summary["counts"] == {"flaky": 1, "passed": 1}


def test_without_reruns_a_failure_stays_failed(pytester, env):
    pytester.makepyfile(
        test_f="""
        import os, pathlib
        def test_flaky():
            marker = pathlib.Path(os.environ["FLAKY_MARKER"])
            if not marker.exists():
                marker.write_text("x")
                raise AssertionError("once")
    """
    )
    proc, tests, _ = run(pytester, "--reruns=0", env=env)
    assert proc.returncode == 1
    assert tests["test_f.py::test_flaky"]["outcome"] == "failed"


def test_sharded_runner_covers_each_test_once(pytester, env):
    pytester.makepyfile(
        test_many="""
        import pytest
        @pytest.mark.parametrize("i", range(9))
        def test_p(i): pass
    """
    )
    seen = []
    for index in range(3):
        proc, tests, _ = run(pytester, env={**env, "TEST_SHARD_INDEX": str(index), "TEST_TOTAL_SHARDS": "3"})
        assert proc.returncode == 0, proc.stderr
        seen += list(tests)
    assert sorted(seen) == sorted(f"test_many.py::test_p[{i}]" for i in range(9))


def test_summary_feeds_the_timings_updater(pytester, env):
    pytester.makepyfile(test_t="def test_a(): pass\ndef test_b(): pass\n")
    run(pytester, env=env)
    durations = ingest.from_file(pytester.path / "summary.json")
    assert set(durations) == {"test_t.py::test_a", "test_t.py::test_b"}
    assert set(ingest.from_file(pytester.path / "out.xml", pytester.path)) == set(durations)


def test_collection_error_is_reported_not_rerun(pytester, env):
    pytester.makepyfile(test_bad="import not_a_module_anywhere\ndef test_x(): pass\n")
    cmd = [sys.executable, "-m", "tools.shard.runner", "--", "-q", "-p", "no:hypothesispytest"]
    proc = subprocess.run(cmd, cwd=pytester.path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "rerun" not in proc.stderr


def test_bad_runner_option_is_one_line(pytester, env):
    cmd = [sys.executable, "-m", "tools.shard.runner", "--reruns=-1", "--", "-q"]
    proc = subprocess.run(cmd, cwd=pytester.path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "argument --reruns: must be >= 0, got -1" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


CRASHES = """
import os, signal

def _die():
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.kill(os.getpid(), signal.SIGSEGV)

def test_a(): _die()
def test_b(): _die()
def test_c(): pass
def test_d(): pass
"""


def test_after_the_restart_limit_the_rest_is_reported_not_dropped(pytester, env):
    """Two crashes with a limit of one restart: test_c and test_d never run, and both the
    JUnit and the summary say so instead of leaving them out."""
    pytester.makepyfile(test_crashes=CRASHES)
    limited = (
        "import runpy, sys; import testing.supervisor.supervisor as s; s.MAX_RESTARTS = 1; "
        "sys.argv[0] = 'runner'; runpy.run_module('tools.shard.runner', run_name='__main__')"
    )
    cmd = [sys.executable, "-c", limited, "--junitxml=out.xml", "--summary=summary.json"]
    cmd += ["--isolate-mode=restart", "--", "-q", "-p", "no:cacheprovider", "-p", "no:faulthandler"]
    proc = subprocess.run(cmd, cwd=pytester.path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    summary = {
        t["nodeid"].split("::")[-1]: t["outcome"]
        for t in json.loads((pytester.path / "summary.json").read_text())["tests"]
    }
    assert summary == {"test_a": "crashed", "test_b": "crashed", "test_c": "error", "test_d": "error"}
    cases = {c.get("name"): c for c in ET.parse(pytester.path / "out.xml").getroot().iter("testcase")}
    assert set(cases) == {"test_a", "test_b", "test_c", "test_d"}
    for name in ("test_c", "test_d"):
        message = cases[name].find("error").get("message")
        assert "not run: the worker died 2 times (restart limit 1)" in message, message


PROPERTIES = """
import os, pathlib
import pytest

def test_add_passes(): pass
def test_mul_fails(): assert 1 == 2
def test_div_flaky():
    marker = pathlib.Path(os.environ["FLAKY_MARKER"])
    if not marker.exists():
        marker.write_text("failed once")
        raise AssertionError("first attempt fails")
"""

# What the adaptation plugin does (testing/plugin/reporting.py attach): properties on the
# item at collection; and, as it does in any process the supervisor spawned, a child that
# finds $OOT_EVENTS_FD takes itself for an isolation worker, whose JUnit is not its own.
CONFTEST = """
import os
import pytest

def pytest_configure(config):
    if os.environ.get("OOT_EVENTS_FD"):
        config.workerinput = {"oot_worker": True}  # junitxml then writes nothing

def pytest_collection_modifyitems(items):
    for item in items:
        item.user_properties += [("op", item.name.split("_")[1]), ("dtype", "float16")]
"""


@pytest.mark.parametrize("mode", ["fork", "restart"])
def test_merged_junit_keeps_each_testcases_properties(pytester, env, mode):
    """The warehouse's heat map reads op and dtype from the merged report (issue 22): the
    children write their own JUnit with every testcase's properties, and the merge keeps them."""
    from testing.results import junit

    pytester.makepyfile(test_props=PROPERTIES)
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\njunit_family = xunit2\n")  # a user's own setting: the runner's wins
    run(pytester, "--reruns=1", f"--isolate-mode={mode}", env=env)
    cases = {c.name: c for c in junit.read(pytester.path / "out.xml")}
    assert set(cases) == {"test_add_passes", "test_mul_fails", "test_div_flaky"}
    for name, case in cases.items():
        assert (case.properties.get("op"), case.properties.get("dtype")) == (name.split("_")[1], "float16")
        assert case.file == "test_props.py"  # xunit1
    assert cases["test_div_flaky"].properties["outcome"] == "flaky"
    assert [c.outcome.value for c in (cases["test_add_passes"], cases["test_mul_fails"])] == [
        "passed",
        "failed",
    ]
