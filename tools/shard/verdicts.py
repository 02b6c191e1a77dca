"""Pure rerun verdicts over a test's attempts (flaky, what to rerun).

A test's outcome per attempt comes from testing.results.outcomes (the one vocabulary):
only its BAD outcomes are rerun, so a strict XPASS (a promotion) runs once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from testing.results.outcomes import BAD, FLAKY


@dataclass(frozen=True)
class Verdict:
    outcome: str  # final: an Outcome's value, or FLAKY
    attempts: tuple[str, ...]  # outcome of each attempt, first run first


def classify(attempts: Sequence[str]) -> Verdict:
    """Final verdict over a test's attempts.

    A bad first attempt followed by a good one is flaky, never passed: the
    run stays green, but the report says the test is unreliable. If every
    attempt is bad, the first attempt's outcome stands.
    """
    if not attempts:
        raise ValueError("a test without attempts has no verdict")
    attempts = tuple(attempts)
    if attempts[0] not in BAD:
        return Verdict(attempts[0], attempts)
    if any(a not in BAD for a in attempts[1:]):
        return Verdict(FLAKY, attempts)
    return Verdict(attempts[0], attempts)


def to_rerun(verdicts: dict[str, Verdict], max_reruns: int) -> list[str]:
    """Tests whose latest attempt was bad and that still have reruns left."""
    return [
        n
        for n, v in verdicts.items()
        if v.attempts[-1] in BAD and len(v.attempts) <= max_reruns and v.outcome != FLAKY
    ]
