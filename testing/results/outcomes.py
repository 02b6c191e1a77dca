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
# Passed although configured to fail: the config could say mandatory_success. Never bad:
# a strict XPASS is a promotion, so no layer reruns it or calls it a (flaky) failure.
PROMOTABLE = frozenset({Outcome.XPASSED, Outcome.XPASSED_STRICT})
# A verdict over several attempts (not a test outcome): bad first, good later.
FLAKY = "flaky"
# How pytest's skipping plugin words the failure of a strict xfail that passed.
XPASS_STRICT_MARK = "[XPASS(strict)]"


def rank(outcome: str) -> int:
    """Position in SEVERITY (0 = passed); ValueError names an unknown outcome."""
    return SEVERITY.index(Outcome(outcome))


def worst(outcomes: Iterable[str]) -> Outcome:
    """The most severe of ``outcomes``; ``passed`` when there are none."""
    return max((Outcome(o) for o in outcomes), key=rank, default=Outcome.PASSED)


def of_phase(when: str, outcome: str, wasxfail: bool, longrepr: str = "", crashed: bool = False) -> Outcome:
    """One setup/call/teardown phase report of pytest, in this vocabulary.

    pytest says ``failed`` for a strict xfail that passed (its longrepr starts with
    XPASS_STRICT_MARK); here it is XPASSED_STRICT, a promotion, never a failure."""
    if crashed:
        return Outcome.CRASHED
    if outcome == "passed":
        return Outcome.XPASSED if wasxfail and when == "call" else Outcome.PASSED
    if outcome == "skipped":
        return Outcome.XFAILED if wasxfail else Outcome.SKIPPED
    if when != "call":
        return Outcome.ERROR
    if wasxfail:  # pytest marks an xfail whose raises= did not match this way
        return Outcome.FAILED
    return Outcome.XPASSED_STRICT if longrepr.startswith(XPASS_STRICT_MARK) else Outcome.FAILED


def of_report(report) -> Outcome:
    """of_phase for a pytest TestReport (duck-typed: this package never imports pytest);
    a ``crash`` user property (testing/supervisor: the process died under it) is a crash."""
    return of_phase(
        report.when,
        report.outcome,
        hasattr(report, "wasxfail"),
        str(report.longrepr or ""),
        "crash" in dict(report.user_properties),
    )


def junit_property(outcome: str) -> tuple[str, str] | None:
    """The ``<property name="outcome">`` a testcase needs so that JUnit readers see ``outcome``:
    pytest's JUnit XML has no element for an XPASS (it reads as passed), so the pytest
    plugins of this repository add it to the item's user_properties."""
    return ("outcome", Outcome.XPASSED.value) if Outcome(outcome) is Outcome.XPASSED else None


def tally(outcome: str) -> str:
    """The three-way count a CRCR callback reports: passed, failed or skipped. Only BAD
    outcomes count as failed (a strict XPASS passed: the leg stays green)."""
    o = Outcome(outcome)
    if o in BAD:
        return "failed"
    if o in (Outcome.SKIPPED, Outcome.XFAILED):
        return "skipped"
    return "passed"
