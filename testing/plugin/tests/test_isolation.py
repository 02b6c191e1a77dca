"""--isolate end to end in subprocesses: the zygote forks, the restart mode spawns, and
both give the same results, JUnit and summary; collection errors, the restart limit, -x.
The fork-unsafe fallbacks: test_isolation_fallback.py."""

import xml.etree.ElementTree as ET

import pytest

from testing.plugin.tests.isolation_helpers import EXPECTED, junit, outcomes, run, summary


def test_fork_and_restart_modes_give_identical_results(tmp_path):
    fork_dir, restart_dir = tmp_path / "fork", tmp_path / "restart"
    fork_dir.mkdir(), restart_dir.mkdir()
    fork = run(fork_dir, "--isolate-mode=fork")
    restart = run(restart_dir, "--isolate-mode=restart")
    assert outcomes(fork_dir) == EXPECTED, fork.stdout
    assert outcomes(restart_dir) == EXPECTED, restart.stdout
    assert junit(fork_dir / "junit.xml") == junit(restart_dir / "junit.xml")
    # the restart-mode controller never collects: its first worker reports the adapter and
    # provenance listings back, so the two summaries agree whole
    fork_summary, restart_summary = summary(fork_dir / "summary.json"), summary(restart_dir / "summary.json")
    assert "adapter" in restart_summary and "provenance" in restart_summary
    assert fork_summary == restart_summary
    assert fork.returncode == restart.returncode == 1
    for out in (fork.stdout, restart.stdout):
        assert "worker crashed: signal 6 (SIGABRT)" in out and "worker crashed: signal 11 (SIGSEGV)" in out
        assert "worker crashed: exit code 3" in out
        assert "1 failed, 4 passed, 1 skipped, 1 xfailed, 3 errors" in out
    # the zygote imported the test module once; restart mode once per worker (three crashes: four)
    assert (fork_dir / "imports.log").read_text().count("imported") == 1
    assert (restart_dir / "imports.log").read_text().count("imported") == 4


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


@pytest.mark.parametrize("mode", ["fork", "restart"])
@pytest.mark.parametrize("extra", [[], ["-x"]], ids=["crashes", "stopped-early"])
def test_worker_scratch_dirs_are_removed_at_exit(tmp_path, mode, extra):
    # Each run used to leave its oot-zygote-*/oot-isolate-* log directory in $TMPDIR
    # (about 30 per `bazel test //...`), failed and stopped runs too.
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    result = run(tmp_path, f"--isolate-mode={mode}", *extra, environ={"TMPDIR": str(scratch)})
    assert result.returncode == 1, result.stdout
    assert sorted(p.name for p in scratch.iterdir()) == []
