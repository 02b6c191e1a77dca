"""The one outcome vocabulary of a test, mildest first: the order is the severity order.

When several reports speak of one test (its setup, call and teardown phases), the most
severe names it: a test whose teardown errors is an ``error`` even though its call passed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Iterable


class Outcome(StrEnum):
    """A test's outcome; a ``str`` so summaries, JSON and comparisons with plain names keep working."""

    PASSED = "passed"
    XPASSED = "xpassed"  # an xfail test that passed (non-strict): a promotion candidate
    XFAILED = "xfailed"
    SKIPPED = "skipped"
    XPASSED_STRICT = "xpassed_strict"  # an xfail_strict test that passed: pytest fails it
    FAILED = "failed"
    ERROR = "error"  # setup/teardown failed, or the test was never run (restart limit)
    CRASHED = "crashed"  # an error whose process died under it


SEVERITY: tuple[Outcome, ...] = tuple(Outcome)
# A bad result: makes a leg red and a test worth rerunning.
BAD = frozenset({Outcome.FAILED, Outcome.ERROR, Outcome.CRASHED})
# Passed although configured to fail: the config could say mandatory_success.
PROMOTABLE = frozenset({Outcome.XPASSED, Outcome.XPASSED_STRICT})


def rank(outcome: str) -> int:
    """Position in SEVERITY (0 = passed); ValueError names an unknown outcome."""
    return SEVERITY.index(Outcome(outcome))


def worst(outcomes: Iterable[str]) -> Outcome:
    """The most severe of ``outcomes``; ``passed`` when there are none."""
    return max((Outcome(o) for o in outcomes), key=rank, default=Outcome.PASSED)


def tally(outcome: str) -> str:
    """The three-way count a CRCR callback reports: passed, failed or skipped."""
    o = Outcome(outcome)
    if o in (Outcome.SKIPPED, Outcome.XFAILED):
        return "skipped"
    if o in (Outcome.PASSED, Outcome.XPASSED):
        return "passed"
    return "failed"
