import pytest

from tools.shard.verdicts import Verdict, classify, to_rerun


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


def test_a_strict_xpass_is_never_rerun_nor_flaky():
    verdicts = {"s": classify(["xpassed_strict"])}
    assert verdicts["s"] == Verdict("xpassed_strict", ("xpassed_strict",))
    assert to_rerun(verdicts, 2) == []


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


def test_a_slow_test_is_rerun_once_and_never_when_slow_again():
    from tools.shard.merge_junit import Attempt
    from tools.shard.runner import may_rerun

    slow = Attempt("crashed", 9.0, None, "slow: still making progress past its 8s budget")
    failed = Attempt("failed", 1.0, None, "AssertionError")
    assert may_rerun([failed]) and may_rerun([failed, failed])
    assert may_rerun([slow])  # once
    assert not may_rerun([slow, slow])  # slow again: never
    assert not may_rerun([slow, failed])  # its one rerun is spent
