import json

import pytest

from testing.base import atomic
from testing.matrix import timings as store


def test_round_trip_and_sorted_output(tmp_path):
    path = tmp_path / "t" / "timings.json"
    store.save(path, store.Timings(tests={"b.py::t": 2.0, "a.py::t": 1.5}))
    text = path.read_text()
    assert text.index("a.py::t") < text.index("b.py::t")
    assert store.load(path).tests == {"a.py::t": 1.5, "b.py::t": 2.0}
    assert json.loads(text)["version"] == 1


def test_missing_file_is_empty(tmp_path):
    assert store.load(tmp_path / "none.json").tests == {}


def test_merge_moving_average_keeps_unseen():
    merged = store.merge({"a": 10.0, "b": 4.0}, {"a": 2.0, "c": 1.0}, weight=0.5)
    assert merged == {"a": 6.0, "b": 4.0, "c": 1.0}


def test_merge_rejects_bad_weight():
    with pytest.raises(ValueError, match="weight"):
        store.merge({}, {}, weight=0)


def test_prune():
    assert store.prune({"a": 1.0, "b": 2.0}, {"b"}) == {"b": 2.0}


def test_bad_json_names_file_and_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"version": 1,\n "tests": {,}}')
    with pytest.raises(store.TimingsError, match=r"t\.json:2: not valid JSON"):
        store.load(path)


@pytest.mark.parametrize(
    "doc, where",
    [
        ({"format": "oot-ci-timings", "version": 2, "tests": {}}, "version"),
        ({"format": "oot-ci-timings", "version": 1, "tests": {"a": -1}}, "tests.a"),
        ({"format": "oot-ci-timings", "version": 1, "tests": {}, "extra": 1}, "extra"),
    ],
)
def test_invalid_content_names_key(tmp_path, doc, where):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(store.TimingsError, match=f"t.json: {where}"):
        store.load(path)


def test_failed_save_leaves_old_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "timings.json"
    store.save(path, store.Timings(tests={"a": 1.0}))

    def boom(*_args):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", boom)  # the rename fails: nothing may change
    with pytest.raises(OSError):
        store.save(path, store.Timings(tests={"a": 2.0}))
    assert store.load(path).tests == {"a": 1.0}
    assert [p.name for p in tmp_path.iterdir()] == ["timings.json"]
