"""Whole-file writes: the old content stays until the new one is complete."""

import json
import os
import stat

import pytest

from testing.base import atomic


def test_text_bytes_and_json_in_place(tmp_path):
    target = tmp_path / "deep" / "dir" / "out.json"
    atomic.write_text(target, "one")
    assert target.read_text() == "one"
    atomic.write_bytes(target, b"two")
    assert target.read_bytes() == b"two"
    atomic.write_json(target, {"b": 1, "a": [1]}, sort_keys=True, durable=True)
    assert target.read_text() == '{\n "a": [\n  1\n ],\n "b": 1\n}\n'
    assert json.loads(target.read_text()) == {"a": [1], "b": 1}
    assert os.listdir(target.parent) == ["out.json"]


def test_mode_default_shared_or_private(tmp_path):
    shared, private = tmp_path / "s", tmp_path / "p"
    atomic.write_text(shared, "x")
    atomic.write_text(private, "x", mode=0o600)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
    assert stat.S_IMODE(private.stat().st_mode) == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path):
    target = tmp_path / "out.txt"
    atomic.write_text(target, "old")
    with pytest.raises(TypeError):
        atomic.write_bytes(target, "not bytes")  # fails inside the temp file's write
    with pytest.raises(TypeError):
        atomic.write_json(target, {"x": object()})  # fails before the temp file exists
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_replace_dir_swaps_whole_or_not_at_all(tmp_path):
    dest = tmp_path / "cache"
    with atomic.replace_dir(dest) as tmp:
        (tmp / "a").write_text("1")
    assert sorted(os.listdir(dest)) == ["a"]
    with pytest.raises(RuntimeError):
        with atomic.replace_dir(dest) as tmp:
            (tmp / "b").write_text("2")
            raise RuntimeError("extract failed")
    assert sorted(os.listdir(dest)) == ["a"]
    with atomic.replace_dir(dest) as tmp:
        (tmp / "c").write_text("3")
    assert sorted(os.listdir(dest)) == ["c"]
    assert os.listdir(tmp_path) == ["cache"]
