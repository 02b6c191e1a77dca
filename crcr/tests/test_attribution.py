"""Regression attribution: backend moved vs only upstream moved, the last-green
store, and the upstream commits in range touching the failing files."""

import os

from crcr.upstream.attribution import GreenStore, Inputs, attribute, suspect_paths
from crcr.upstream.localrepo import build_repo, file_url
from crcr.upstream.source import UpstreamSource

A, B, C = "a" * 40, "b" * 40, "c" * 40


def test_backend_moved_is_not_blamed_on_upstream():
    got = attribute("test-x", Inputs("be2", B, B), Inputs("be1", A, A))
    assert got.verdict == "backend_moved" and got.range is None
    assert got.message.startswith("backend moved: be1..be2")


def test_only_upstream_moved_names_the_range():
    got = attribute("test-x", Inputs("be1", B, B), Inputs("be1", A, A))
    assert (got.verdict, got.range) == ("only_upstream", (A, B))
    assert got.message == f"only upstream moved: {A}..{B}"


def test_same_suite_on_another_core_names_the_core_range_not_an_empty_one():
    got = attribute("test-x", Inputs("be1", B, B), Inputs("be1", A, B))
    assert (got.verdict, got.range) == ("only_upstream", (A, B))
    assert got.message == f"only the upstream core moved: {A}..{B} (suite unchanged at {B[:12]})"
    # a green recorded on the pinned wheel (no upstream core): no range to search
    got = attribute("test-x", Inputs("be1", B, B), Inputs("be1", "pinned-wheel", B))
    assert (got.verdict, got.range) == ("only_upstream", None)
    assert got.message.startswith("only the upstream core moved: pinned-wheel..")


def test_nothing_moved_and_no_record():
    assert attribute("t", Inputs("be", A, A), Inputs("be", A, A)).verdict == "unchanged"
    assert attribute("t", Inputs("be", A, A), None).verdict == "no_green"


def test_store_keeps_the_last_green_per_upstream_and_job(tmp_path):
    db = tmp_path / "s" / "last_green.sqlite"
    s = GreenStore(db)
    s.record_green("file:///u.git", "test-x", Inputs("be", A, A))
    s.record_green("file:///u.git", "test-x", Inputs("be", B, B))
    s.record_green("https://other", "test-x", Inputs("be", C, C))
    s.record_run("file:///u.git", B)
    s.close()
    s = GreenStore(db)  # persisted
    assert s.last_green("file:///u.git", "test-x") == Inputs("be", B, B)
    assert s.last_green("https://other", "test-x") == Inputs("be", C, C)
    assert s.last_green("file:///u.git", "test-y") is None
    assert s.has_run("file:///u.git", B) and not s.has_run("file:///u.git", A)


def test_commits_in_range_touching_the_failing_files(tmp_path):
    shas = build_repo(
        tmp_path / "u.git",
        [
            ("base", {"test/nn/test_f.py": "1\n", "torch/nn/f.py": "1\n", "README": "r\n"}),
            ("docs only", {"README": "r2\n"}),
            ("change f", {"torch/nn/f.py": "2\n"}),
            ("change test", {"test/nn/test_f.py": "2\n"}),
        ],
        dict(os.environ),
    )
    src = UpstreamSource(file_url(tmp_path / "u.git"), tmp_path / "cache")
    got = attribute("test-nn", Inputs("be", shas[3], shas[3]), Inputs("be", shas[0], shas[0]))
    paths = suspect_paths(["test/nn/test_f.py"], ["torch/nn/f.py"])
    commits = src.commits_between(*got.range, paths)
    assert [c.subject for c in commits] == ["change test", "change f"]
    from dataclasses import replace

    summary = replace(got, commits=tuple(commits)).summary()
    assert summary.startswith(
        f"only upstream moved: {shas[0]}..{shas[3]}; suspects: {shas[3][:12]} change test"
    )


def test_two_dirty_trees_on_one_commit_are_told_apart():
    got = attribute("t", Inputs(A + "-dirty-222", B, B), Inputs(A + "-dirty-111", A, A))
    assert got.verdict == "backend_moved"
    assert got.message.startswith("backend moved: aaaaaaaaaaaa-dirty-111..aaaaaaaaaaaa-dirty-222")


def test_ops_of_failing_tests_from_the_op_index(tmp_path):
    import sqlite3

    from crcr.upstream.attribution import ops_of_failures, touches_op

    db = tmp_path / "memory.db"
    con = sqlite3.connect(db)  # the op_index table of tools/select's repository memory
    con.execute("CREATE TABLE op_index (op TEXT NOT NULL, test_id TEXT NOT NULL, variant TEXT NOT NULL)")
    con.executemany(
        "INSERT INTO op_index VALUES (?, ?, ?)",
        [
            ("aten::flatten.using_ints", "test/nn/test_f.py::TestF::test_flat", ""),
            ("aten::view", "test/nn/test_f.py::TestF::test_flat", ""),
            ("aten::add.Tensor", "test/nn/test_f.py::TestF::test_other", ""),
            ("aten::mul.Tensor", "test/nn/test_fx.py::TestF::test_flat", ""),
        ],
    )
    con.commit()
    con.close()
    failing = ["test/nn/test_f.py::TestFSPYRE::test_flat_spyre_float32"]
    assert ops_of_failures(db, failing) == ("aten::flatten.using_ints", "aten::view")
    assert ops_of_failures(tmp_path / "absent.db", failing) == ()
    (tmp_path / "junk.db").write_text("not sqlite")
    assert ops_of_failures(tmp_path / "junk.db", failing) == ()
    assert touches_op("torch/nn/modules/flatten.py", "aten::flatten.using_ints")
    assert not touches_op("torch/nn/modules/padding.py", "aten::add.Tensor")


def test_red_leg_lists_commits_touching_files_named_for_its_ops(tmp_path):
    """after_leg end to end: a failing test whose file no commit touches is still
    attributed to the commit that changed the file named for the op it dispatches."""
    import sqlite3

    from crcr.callback_client.junit import Counts
    from crcr.dispatch.event import load_dispatch
    from crcr.dispatch.plan import plan_candidates, plan_legs
    from crcr.handler.options import Options
    from crcr.handler.runner import LegResult
    from crcr.handler.upstream_setup import UpstreamSetup, after_leg

    shas = build_repo(
        tmp_path / "u.git",
        [
            ("base", {"test/test_t.py": "1\n", "torch/_refs/flatten.py": "1\n", "torch/other.py": "1\n"}),
            ("change flatten", {"torch/_refs/flatten.py": "2\n"}),
            ("change other", {"torch/other.py": "2\n"}),
        ],
        dict(os.environ),
    )
    src = UpstreamSource(file_url(tmp_path / "u.git"), tmp_path / "cache")
    db = tmp_path / "memory.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE op_index (op TEXT NOT NULL, test_id TEXT NOT NULL, variant TEXT NOT NULL)")
    con.execute(
        "INSERT INTO op_index VALUES ('aten::flatten.using_ints', 'test/test_t.py::TestT::test_x', '')"
    )
    con.commit()
    con.close()
    import json
    from pathlib import Path

    event = json.loads(
        (Path(__file__).parent.parent / "examples" / "pull_request_synchronize.json").read_text()
    )
    leg = plan_legs(plan_candidates(load_dispatch(event)), [("f", ())])[0]
    store = GreenStore(tmp_path / "g.sqlite")
    store.record_green(src.url, leg.job_name, Inputs("be", shas[0], shas[0]))
    setup = UpstreamSetup("fetch", src.url, shas[2], tmp_path, src)  # no core delta known
    red = LegResult(
        "failure",
        1,
        Counts(0, 1, 0),
        1.0,
        (),
        failing_files=("test/test_t.py",),
        failing_tests=("test/test_t.py::TestTSPYRE::test_x_spyre_float32",),
    )
    result, found = after_leg(setup, store, leg, red, "be", tmp_path / "out", Options(select_memory=Path(db)))
    assert found.verdict == "only_upstream" and found.ops == ("aten::flatten.using_ints",)
    assert [c.subject for c in found.commits] == ["change flatten"]
    details = json.loads(result.details.read_text())
    assert details["attribution"]["commits"][0]["subject"] == "change flatten"
    assert details["failing_tests"] == ["test/test_t.py::TestTSPYRE::test_x_spyre_float32"]


def test_ignored_outputs_do_not_make_the_backend_dirty(tmp_path):
    # tools/select's README writes out/ into the checkout: an ignored folder must not turn
    # the next run's backend into '<sha>-dirty-...' (which hid the upstream culprit).
    import subprocess

    from crcr.handler.upstream_setup import backend_id

    def git(*args):
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True)

    git("init", "-q")
    (tmp_path / ".gitignore").write_text("/out/\n")
    (tmp_path / "f.py").write_text("x = 1\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = git("rev-parse", "HEAD").stdout.strip()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "scope.yaml").write_text("chosen: []\n")
    assert backend_id(tmp_path, "HEAD") == head
    (tmp_path / "new.py").write_text("y = 2\n")  # an untracked, unignored file is a change
    assert backend_id(tmp_path, "HEAD").startswith(head + "-dirty-")
