"""failed-tests-detail from a leg's JUnit: read once, capped, marked, always valid UTF-8."""

import json

import pytest

from crcr.callback_client.failed_tests import (
    MAX_ENTRIES,
    MAX_TOTAL_BYTES,
    MESSAGE_BYTES,
    STACKTRACE_BYTES,
    cut_utf8,
    from_inline,
)
from crcr.callback_client.junit import read_report


def junit(tmp_path, cases: str, name="j.xml", raw: bytes = b""):
    path = tmp_path / name
    path.write_bytes(raw or f"<testsuite>{cases}</testsuite>".encode())
    return path


def failing(i, message="boom", trace="Traceback"):
    return (
        f'<testcase classname="test.nn.T" name="t{i}" time="0.5">'
        f'<failure message="{message}">{trace}</failure></testcase>'
    )


def test_entries_come_from_one_read_of_the_junit(tmp_path):
    path = junit(
        tmp_path,
        failing(1, "AssertionError: 1 != 2", "line 1\nline 2")
        + '<testcase classname="test.nn.T" name="ok"/>'
        + '<testcase classname="test.nn.T" name="e"><error message="crashed">Fatal Python error</error></testcase>'
        + '<testcase classname="test.nn.T" name="s"><skipped/></testcase>',
    )
    report = read_report([path])
    assert report.counts.as_results() == {"passed": 1, "failed": 2, "skipped": 1, "total": 4}
    detail = report.failed_tests_detail()
    assert detail.as_json()[0] == {
        "name": "t1",
        "classname": "test.nn.T",
        "message": "AssertionError: 1 != 2",
        "stacktrace": "line 1\nline 2",
        "duration": 0.5,
    }
    assert [e["name"] for e in detail.entries] == ["t1", "e"] and not detail.notes


def test_more_than_1000_failures_keep_the_first_1000_and_say_so(tmp_path):
    path = junit(tmp_path, "".join(failing(i) for i in range(1203)))
    detail = read_report([path]).failed_tests_detail()
    assert len(detail.entries) == MAX_ENTRIES and detail.entries[-1]["name"] == "t999"
    assert detail.notes == ("failed-tests-detail: 1203 failed tests, the first 1000 sent",)


def test_message_and_stacktrace_cut_in_utf8_bytes_marked_never_split(tmp_path):
    long_msg = "é" * 900  # 1800 bytes
    trace = "ü€" * 2000  # 10000 bytes
    path = junit(tmp_path, failing(1, long_msg, trace))
    (e,) = read_report([path]).failed_tests_detail().entries
    assert len(e["message"].encode()) <= MESSAGE_BYTES and len(e["stacktrace"].encode()) <= STACKTRACE_BYTES
    assert e["message"].startswith("é" * 400) and "[truncated " in e["message"]
    assert "[truncated " in e["stacktrace"]
    e["message"].encode("utf-8").decode("utf-8")  # whole characters only
    assert cut_utf8("short", 10) == "short"


def test_non_utf8_bytes_are_read_as_replacement_characters(tmp_path):
    raw = (
        b'<?xml version="1.0" encoding="utf-8"?><testsuite>'
        + failing(1, "bad \xff\xfe byte").encode("latin-1")
        + b"</testsuite>"
    )
    path = junit(tmp_path, "", raw=raw)
    report = read_report([path])
    (e,) = report.failed_tests_detail().entries
    assert "\ufffd" in e["message"] and report.counts.failed == 1
    assert report.notes and "not UTF-8" in report.notes[0] and not report.problems
    json.dumps(e).encode("utf-8")


@pytest.mark.parametrize("text", ["<testsuite><testcase name='a'>", "not xml at all", ""])
def test_malformed_or_truncated_junit_is_a_one_line_problem(tmp_path, text):
    bad = junit(tmp_path, "", name="torn.xml", raw=text.encode() or b" ")
    good = junit(tmp_path, failing(1), name="good.xml")
    report = read_report([bad, good])
    assert len(report.problems) == 1 and "torn.xml" in report.problems[0] and "\n" not in report.problems[0]
    assert report.counts.failed == 1  # the readable file still counts


def test_whole_array_kept_under_the_hud_body_cap(tmp_path):
    path = junit(tmp_path, "".join(failing(i, "m" * 1000, "s" * 4000) for i in range(1000)))
    detail = read_report([path]).failed_tests_detail()
    assert len(json.dumps(detail.as_json()).encode()) <= MAX_TOTAL_BYTES
    assert len(detail.entries) == 1000 and "stacktrace" in detail.entries[0]
    assert "stacktrace" not in detail.entries[-1]
    assert any("stacktraces left out" in n for n in detail.notes)


def test_inline_array_is_capped_like_the_action_and_checked():
    detail = from_inline(
        [{"name": f"t{i}", "message": "x" * 3000} for i in range(1500)], "FAILED_TESTS_DETAIL"
    )
    assert len(detail.entries) == 1000 and len(detail.entries[0]["message"].encode()) <= MESSAGE_BYTES
    assert "1500 failed tests, the first 1000 sent" in detail.notes[0]


@pytest.mark.parametrize(
    "value, kept, note",
    [
        ({"name": "t"}, [], "FAILED_TESTS_DETAIL left out: not a JSON array"),
        ("t", [], "FAILED_TESTS_DETAIL left out: not a JSON array"),
        (["t", None, {"name": 3}, {"name": "ok"}], [{"name": "ok", "classname": ""}], "left out 3 entries"),
        (
            [{"name": "t", "classname": 1, "message": "m", "duration": float("inf"), "x": {"y": 1}}],
            [{"name": "t", "classname": "", "message": "m"}],
            "and 3 values",
        ),
        ([{"name": "t", "duration": 10**400}], [{"name": "t", "classname": ""}], "and 1 values"),
    ],
)
def test_inline_value_of_any_shape_is_kept_or_left_out_with_one_note(value, kept, note):
    detail = from_inline(value, "FAILED_TESTS_DETAIL")  # never raises: the callback always goes out
    assert detail.as_json() == kept
    assert len(detail.notes) == 1 and note in detail.notes[0]
