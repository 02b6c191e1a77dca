"""pytester acceptance tests of the shard runner's journal plugin (tools.shard.plugin)."""

import pytest

from tools.shard import journal

pytest_plugins = ["pytester"]

# hypothesis' pytest plugin re-imports hypothesis on every in-process run; never used here.
PLUGINS = ("-p", "no:hypothesispytest", "-p", "testing.matrix.plugin", "-p", "tools.shard.plugin")


def test_journal_records_the_test_running_at_a_crash(pytester, tmp_path):
    pytester.makepyfile(
        test_die="""
        import os, resource
        def test_first(): pass
        def test_dies():
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file for a deliberate crash
            os.abort()
        def test_never(): pass
    """
    )
    log = tmp_path / "journal.jsonl"
    result = pytester.runpytest_subprocess(*PLUGINS, f"--shard-journal={log}")
    assert result.ret != 0
    state = journal.read(log)
    assert not state.complete
    assert state.finished == {
        "test_die.py::test_first": ("passed", pytest.approx(state.finished["test_die.py::test_first"][1]))
    }
    assert state.running == "test_die.py::test_dies"
    assert state.remaining() == ["test_die.py::test_never"]


def test_the_journal_lists_the_shard_the_sharding_plugin_kept(pytester, tmp_path, monkeypatch):
    pytester.makepyfile(
        test_many="import pytest\n\n@pytest.mark.parametrize('i', range(6))\ndef test_a(i): pass\n"
    )
    log = tmp_path / "journal.jsonl"
    monkeypatch.setenv("TEST_SHARD_INDEX", "0")
    monkeypatch.setenv("TEST_TOTAL_SHARDS", "2")
    result = pytester.runpytest_subprocess(*PLUGINS, f"--shard-journal={log}")
    assert result.ret == 0
    state = journal.read(log)
    assert state.complete and len(state.selected) == 3 and sorted(state.finished) == sorted(state.selected)
