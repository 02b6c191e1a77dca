import pytest

from tools.shard.outcomes import Verdict, classify, combine, phase_outcome, to_rerun


@pytest.mark.parametrize(
    "when, outcome, wasxfail, expected",
    [
        ("call", "failed", False, "failed"),
        ("setup", "failed", False, "error"),
        ("teardown", "failed", False, "error"),
        ("call", "skipped", True, "xfailed"),
        ("call", "passed", True, "xpassed"),
        ("setup", "skipped", False, "skipped"),
    ],
)
def test_phase_outcome(when, outcome, wasxfail, expected):
    assert phase_outcome(when, outcome, wasxfail) == expected


def test_combine_takes_the_worst_phase():
    assert combine(["passed", "passed", "error"]) == "error"
    assert combine(["passed", "failed", "error"]) == "error"
    assert combine(["skipped"]) == "skipped"


@pytest.mark.parametrize(
    "attempts, outcome",
    [
        (["passed"], "passed"),
        (["failed", "passed"], "flaky"),
        (["crashed", "failed", "passed"], "flaky"),
        (["error", "passed"], "flaky"),
        (["failed", "failed", "failed"], "failed"),
        (["crashed", "failed"], "crashed"),
        (["skipped"], "skipped"),
    ],
)
def test_classify(attempts, outcome):
    assert classify(attempts) == Verdict(outcome, tuple(attempts))


def test_fail_then_pass_is_never_reported_passed():
    assert classify(["failed", "passed"]).outcome != "passed"


def test_to_rerun_respects_budget():
    verdicts = {
        "a": classify(["failed"]),
        "b": classify(["failed", "failed"]),
        "c": classify(["failed", "passed"]),
        "d": classify(["passed"]),
    }
    assert to_rerun(verdicts, 1) == ["a"]
    assert to_rerun(verdicts, 2) == ["a", "b"]


def test_no_attempts_is_an_error():
    with pytest.raises(ValueError):
        classify([])
