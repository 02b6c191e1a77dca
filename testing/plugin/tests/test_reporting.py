"""reporting.py: outcome classification, summary aggregation."""

import pytest

from testing.plugin.reporting import NodeResult, classify, summarize


def report(when="call", outcome="passed", props=(), longrepr=None, wasxfail=None, duration=0.5):
    rep = pytest.TestReport(
        "f.py::T::t",
        ("f.py", 1, "T.t"),
        {},
        outcome,
        longrepr,
        when,
        user_properties=list(props),
        duration=duration,
    )
    if wasxfail is not None:
        rep.wasxfail = wasxfail
    return rep


@pytest.mark.parametrize(
    "rep, expected",
    [
        (report(), "passed"),
        (report(wasxfail=""), "xpassed"),
        (report(outcome="skipped", wasxfail="r"), "xfailed"),
        (report(outcome="skipped"), "skipped"),
        (report(outcome="failed", longrepr="[XPASS(strict)] r"), "xpassed_strict"),
        (report(outcome="failed", longrepr="boom"), "failed"),
        (report(when="setup", outcome="failed", longrepr="boom"), "error"),
        (report(when="setup", outcome="failed", props=[("crash", "signal 6")]), "crashed"),
        (report(when="teardown"), None),
    ],
)
def test_classify(rep, expected):
    assert classify(rep) == expected


def test_summary_counts_and_durations():
    results = {}
    for nodeid, outcome, props in (
        ("a", "passed", [("bucket", "mandatory_success"), ("op", "add"), ("dtype", "float32")]),
        ("b", "failed", [("bucket", "mandatory_success"), ("op", "add"), ("dtype", "float32,int64")]),
        ("c", "passed", [("bucket", "xfail"), ("op", "mul"), ("dtype", "int64")]),
    ):
        r = results.setdefault(nodeid, NodeResult(nodeid))
        for when in ("setup", "call", "teardown"):
            r.add(
                report(
                    when=when,
                    outcome=outcome if when == "call" else "passed",
                    props=props,
                    wasxfail="" if nodeid == "c" and when == "call" else None,
                    longrepr="x" if outcome == "failed" else None,
                )
            )
    s = summarize(results)
    assert s["counts"] == {"passed": 1, "failed": 1, "xpassed": 1}
    assert s["by_op"] == {"add": {"passed": 1, "failed": 1}, "mul": {"xpassed": 1}}
    assert s["by_dtype"]["int64"] == {"failed": 1, "xpassed": 1}
    assert s["by_bucket"]["xfail"] == {"xpassed": 1}
    assert [t["duration"] for t in s["tests"]] == [1.5, 1.5, 1.5]
    assert s["promotion_candidates"] == ["c"]
    assert s["tests"][1]["message"] == "x"


def test_error_in_setup_is_not_overwritten_by_later_phases():
    r = NodeResult("n")
    r.add(report(when="setup", outcome="failed", longrepr="setup boom"))
    r.add(report(when="teardown"))
    assert r.outcome == "error"
