"""Regression attribution: backend moved vs only upstream moved, the last-green
store, and the upstream commits in range touching the failing files."""
import os

import pytest

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
    shas = build_repo(tmp_path / "u.git", [
        ("base", {"test/nn/test_f.py": "1\n", "torch/nn/f.py": "1\n", "README": "r\n"}),
        ("docs only", {"README": "r2\n"}),
        ("change f", {"torch/nn/f.py": "2\n"}),
        ("change test", {"test/nn/test_f.py": "2\n"})], dict(os.environ))
    src = UpstreamSource(file_url(tmp_path / "u.git"), tmp_path / "cache")
    got = attribute("test-nn", Inputs("be", shas[3], shas[3]), Inputs("be", shas[0], shas[0]))
    paths = suspect_paths(["test/nn/test_f.py"], ["torch/nn/f.py"])
    commits = src.commits_between(*got.range, paths)
    assert [c.subject for c in commits] == ["change test", "change f"]
    from dataclasses import replace
    summary = replace(got, commits=tuple(commits)).summary()
    assert summary.startswith(f"only upstream moved: {shas[0]}..{shas[3]}; suspects: {shas[3][:12]} change test")


def test_two_dirty_trees_on_one_commit_are_told_apart():
    got = attribute("t", Inputs(A + "-dirty-222", B, B), Inputs(A + "-dirty-111", A, A))
    assert got.verdict == "backend_moved"
    assert got.message.startswith("backend moved: aaaaaaaaaaaa-dirty-111..aaaaaaaaaaaa-dirty-222")
