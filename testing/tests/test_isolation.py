"""--isolate end to end in subprocesses: the zygote forks, the restart mode spawns, and
both give the same results, JUnit and summary; fallback, collection errors, the restart limit."""

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

from testing.tests.conftest import REPO_ROOT

SUITE = """
import os, pathlib, signal
import pytest

with open(os.environ["IMPORT_LOG"], "a") as f:   # one line per import of this module
    f.write("imported\\n")

def test_pass(): pass
def test_fail(): assert 1 == 2, "fails on purpose"
def test_abort(): os.abort()
@pytest.mark.skip(reason="not here")
def test_skip(): pass
@pytest.mark.xfail(reason="known")
def test_xfail(): assert False
def test_segfault():
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.kill(os.getpid(), signal.SIGSEGV)
def test_exit(): os._exit(3)
@pytest.mark.parametrize("i", range(3))
def test_after(i): print("output", i)
"""


def run(tmp_path, *args, suite=SUITE, files=None):
    (tmp_path / "test_suite.py").write_text(suite)
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    env = dict(
        os.environ,
        IMPORT_LOG=str(tmp_path / "imports.log"),
        PYTHONPATH=os.pathsep.join(p for p in [REPO_ROOT, *sys.path] if p),
    )
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "testing.plugin",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:timeout",
        "--rootdir",
        str(tmp_path),
        "--isolate",
        f"--junitxml={tmp_path / 'junit.xml'}",
        f"--oot-summary={tmp_path / 'summary.json'}",
        *args,
        str(tmp_path),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=600)


def junit(path):
    """JUnit without what differs between any two runs (times, host, the crash's output tail)."""
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        children = [
            (c.tag, (c.get("message") or "").splitlines()[0:1])
            for c in case
            if c.tag not in ("system-out", "system-err")
        ]
        props = sorted((p.get("name"), p.get("value")) for p in case.iter("property"))
        cases.append((case.get("classname"), case.get("name"), children, props))
    return sorted(cases)


def summary(path):
    data = json.loads(path.read_text())
    data.pop("total_duration")
    for t in data["tests"]:
        t.pop("duration")
    return data


def outcomes(tmp_path):
    return {
        t["nodeid"].split("::")[-1]: t["outcome"]
        for t in json.loads((tmp_path / "summary.json").read_text())["tests"]
    }


EXPECTED = {
    "test_pass": "passed",
    "test_fail": "failed",
    "test_abort": "crashed",
    "test_skip": "skipped",
    "test_xfail": "xfailed",
    "test_segfault": "crashed",
    "test_exit": "crashed",
    "test_after[0]": "passed",
    "test_after[1]": "passed",
    "test_after[2]": "passed",
}


def test_fork_and_restart_modes_give_identical_results(tmp_path):
    fork_dir, restart_dir = tmp_path / "fork", tmp_path / "restart"
    fork_dir.mkdir(), restart_dir.mkdir()
    fork = run(fork_dir, "--isolate-mode=fork")
    restart = run(restart_dir, "--isolate-mode=restart")
    assert outcomes(fork_dir) == EXPECTED, fork.stdout
    assert outcomes(restart_dir) == EXPECTED, restart.stdout
    assert junit(fork_dir / "junit.xml") == junit(restart_dir / "junit.xml")
    assert summary(fork_dir / "summary.json") == summary(restart_dir / "summary.json")
    assert fork.returncode == restart.returncode == 1
    for out in (fork.stdout, restart.stdout):
        assert "worker crashed: signal 6 (SIGABRT)" in out and "worker crashed: signal 11 (SIGSEGV)" in out
        assert "worker crashed: exit code 3" in out
        assert "1 failed, 4 passed, 1 skipped, 1 xfailed, 3 errors" in out
    # the zygote imported the test module once; restart mode once per worker (three crashes: four)
    assert (fork_dir / "imports.log").read_text().count("imported") == 1
    assert (restart_dir / "imports.log").read_text().count("imported") == 4


def test_a_python_thread_in_the_zygote_falls_back_to_fresh_workers(tmp_path):
    threaded = "import threading, time\nthreading.Thread(target=time.sleep, args=(600,), name='poller', daemon=True).start()\n"
    result = run(tmp_path, suite=threaded + SUITE)
    assert "zygote: not forking (Python threads running: poller)" in result.stdout
    assert outcomes(tmp_path) == EXPECTED, result.stdout
    assert (tmp_path / "imports.log").read_text().count("imported") == 1 + 4  # the zygote, then 4 workers


def test_torch_parallel_work_before_the_fork_is_caught_by_the_canary(tmp_path):
    pytest.importorskip("torch")
    busy = "import torch\ntorch.set_num_threads(2)\ntorch.ones(1 << 17).add_(1)\n"  # starts the OpenMP pool
    result = run(tmp_path, "-k", "pass or abort", suite=busy + SUITE)
    assert (
        "zygote: not forking (the first forked child ended with signal 14 (SIGALRM)" in result.stdout
        or "zygote: not forking (the first forked child ended with exit code 75" in result.stdout
    ), result.stdout
    assert outcomes(tmp_path) == {"test_pass": "passed", "test_abort": "crashed"}


@pytest.mark.parametrize("mode", ["fork", "restart"])
def test_one_files_import_error_does_not_stop_the_others(tmp_path, mode):
    result = run(
        tmp_path,
        f"--isolate-mode={mode}",
        "-k",
        "pass or abort or broken",
        files={"test_broken.py": "import not_a_module_anywhere\ndef test_x(): pass\n"},
    )
    assert outcomes(tmp_path) == {"test_pass": "passed", "test_abort": "crashed"}, result.stdout
    assert result.returncode == 2, result.stdout  # as plain pytest on a collection error
    errors = [
        (c.get("classname"), c.get("name"))
        for c in ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
        if c.find("error") is not None
    ]
    assert sorted(errors) == [("", "test_broken"), ("test_suite", "test_abort")]


@pytest.mark.parametrize("mode", ["fork", "restart"])
def test_after_the_restart_limit_the_remaining_tests_are_errors(tmp_path, mode):
    limit = "import testing.supervisor.supervisor as s\ns.MAX_RESTARTS = 1\n"
    result = run(tmp_path, f"--isolate-mode={mode}", files={"conftest.py": limit})
    got = outcomes(tmp_path)
    assert got["test_abort"] == got["test_segfault"] == "crashed"
    left = {
        k: v for k, v in got.items() if k in ("test_exit", "test_after[0]", "test_after[1]", "test_after[2]")
    }
    assert left == {
        "test_exit": "error",
        "test_after[0]": "error",
        "test_after[1]": "error",
        "test_after[2]": "error",
    }
    assert "not run: the worker died 2 times (restart limit 1)" in result.stdout
    # ... and in the JUnit too, each as an <error> that says why (testing.results reads it back)
    from testing.results import junit as results_junit

    not_run = {
        c.name: (c.outcome, c.text) for c in results_junit.read(tmp_path / "junit.xml") if c.name in left
    }
    assert set(not_run) == set(left), not_run
    assert {o for o, _ in not_run.values()} == {"error"}
    assert all("restart limit 1" in why for _, why in not_run.values()), not_run


def test_exitfirst_stops_the_forked_run(tmp_path):
    result = run(tmp_path, "-x")
    assert outcomes(tmp_path) == {"test_pass": "passed", "test_fail": "failed"}, result.stdout
    assert result.returncode == 1
