"""Pure: a leg's conclusion from its exit status and counts, and which test
files its failures live in (for regression attribution)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Iterable, Optional

from crcr.callback_client.junit import Counts, Report
from testing.results.outcomes import PROMOTABLE, Outcome

NO_TESTS_NOTE = "0 tests executed: neutral, not success"
PYTEST_TESTS_FAILED = 1


def pytest_status(exit_code: int, report: Report) -> int:
    """A pytest run's status in the one outcome vocabulary (testing/results).

    pytest exits 1 when a strict xfail passes (its `strict` makes that a failure); here a
    strict XPASS is a promotion, never a failure, as the shard runner has it: when the JUnit
    was read whole and its only cases pytest failed are strict XPASSes, the status is 0."""
    if exit_code != PYTEST_TESTS_FAILED or not report.readable or report.failures:
        return exit_code
    strict = any(c.outcome == Outcome.XPASSED_STRICT for c in report.cases)
    return 0 if strict else exit_code


def promotion_note(report: Report, shown: int = 5) -> Optional[str]:
    """'promotion candidates (xfail entries that passed): 2: a, b' when the leg has any."""
    found = [f"{c.classname}::{c.name}" for c in report.cases if c.outcome in PROMOTABLE]
    if not found:
        return None
    more = f" (+{len(found) - shown} more)" if len(found) > shown else ""
    return f"promotion candidates (xfail entries that passed): {len(found)}: {', '.join(found[:shown])}{more}"


def conclusion_for(exit_code: int, timed_out: bool, interrupted: bool) -> str:
    if timed_out:
        return "timed_out"
    if interrupted or exit_code in (-signal.SIGINT, -signal.SIGTERM, 130):
        return "cancelled"
    if exit_code == 0:
        return "success"
    if exit_code == 5:  # pytest: nothing collected for this leg
        return "neutral"
    return "failure"


def leg_conclusion(exit_code: int, timed_out: bool, counts: Counts, complete: bool = True) -> str:
    """As conclusion_for, but a clean exit that executed no test is neutral:
    a green cell must mean tests ran (skipped ones do not count; no JUnit = none ran).
    A truncated or invalid JUnit (`complete` False) never passes: its results are unknown."""
    verdict = conclusion_for(exit_code, timed_out, False)
    if verdict == "success" and not complete:
        return "failure"
    if verdict == "success" and counts.passed + counts.failed == 0:
        return "neutral"
    return verdict


def file_of_testcase(classname: str, roots: Iterable[Path]) -> Optional[str]:
    """pytest's dotted classname -> the test file, relative to the root it was run from."""
    parts = classname.split(".")
    for root in roots:
        for i in range(len(parts), 0, -1):
            rel = "/".join(parts[:i]) + ".py"
            if (root / rel).is_file():
                return rel
    return None
