"""Bisection of an upstream range to its first bad commit; pure (the probe is given).

`bisect(commits, probe, limits)`: `commits` is the first-parent range
last-green..SHA, oldest first, the last one the known-bad SHA (the last green,
excluded, is the known good). `probe(commit)` re-runs the failing tests there and
answers GOOD, BAD or SKIP with a reason (it needs native changes, it does not
check out or build): like `git bisect skip`, the next midpoint is then the nearest
untested one, and a skipped commit next to the boundary leaves the range ambiguous. ⌈log2 N⌉ probes find the
culprit among N commits without skips. Steps and wall time are capped: a capped
or skip-bound search reports the range it narrowed to.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

GOOD, BAD, SKIP = "good", "bad", "skip"
PR_RE = re.compile(r"\(#(\d+)\)|\bPull Request resolved: \S+/pull/(\d+)")


@dataclass(frozen=True)
class Limits:
    max_steps: int = 8
    max_seconds: float = 900.0


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Probe:
    outcome: str  # GOOD | BAD | SKIP
    reason: str = ""
    seconds: float = 0.0
    failing: tuple[str, ...] = ()  # tests that failed there
    ran: bool = True  # False: decided without running tests (a native change seen in the diff)
    parts: tuple[tuple[str, float], ...] = ()  # where the seconds went: (checkout, s), (process, s), ...


@dataclass(frozen=True)
class Step:
    sha: str
    subject: str
    probe: Probe
    kind: str = "midpoint"  # or "confirm": the culprit re-run (flake check), not a bisection run

    def as_json(self) -> dict:
        p = self.probe
        return {
            "sha": self.sha,
            "subject": self.subject,
            "outcome": p.outcome,
            "reason": p.reason,
            "seconds": round(p.seconds, 2),
            "failing": list(p.failing),
            "kind": self.kind,
            "parts": {k: round(v, 2) for k, v in p.parts},
        }


def pr_number(subject: str) -> Optional[int]:
    """The PR a commit message names: `(#123)` as merged PRs end, or a Pull Request resolved line."""
    m = PR_RE.search(subject)
    return int(m.group(1) or m.group(2)) if m else None


@dataclass(frozen=True)
class Bisection:
    status: str  # found | narrowed | capped | flake | nothing_to_do
    good: str  # the last good commit known
    bad: str  # the first bad commit (found), else the known-bad end of the narrowed range
    candidates: tuple = ()  # Commit values that can still be the culprit, oldest first
    steps: tuple[Step, ...] = ()
    reason: str = ""
    culprit: Optional[object] = None  # the Commit when found
    total: int = 0  # commits in the range bisected

    @property
    def runs(self) -> int:
        """Midpoints that ran tests (skips decided from the diff alone cost nothing)."""
        return sum(1 for s in self.steps if s.probe.ran and s.kind == "midpoint")

    @property
    def skipped(self) -> list[Step]:
        return [s for s in self.steps if s.probe.outcome == SKIP]

    def line(self) -> str:
        if self.status == "found":
            c = self.culprit
            pr = pr_number(c.subject)
            return (
                f"first bad commit {c.sha} ({c.subject}" + (f", PR #{pr}" if pr else "") + ")"
                f" in {self.runs} bisection runs"
            )
        skipped = (
            f"; skipped {', '.join(f'{s.sha[:12]} ({s.probe.reason})' for s in self.skipped)}"
            if self.skipped
            else ""
        )
        if self.status == "flake":
            return f"bisection: flake, not a culprit ({self.reason}){skipped}"
        if self.status == "nothing_to_do":
            return f"bisection: not run ({self.reason})"
        return (
            f"bisection {self.status} ({self.reason}): first bad commit in {self.good[:12]}..{self.bad[:12]} "
            f"({len(self.candidates)} commits) after {self.runs} runs{skipped}"
        )

    def as_json(self) -> dict:
        c = self.culprit
        return {
            "status": self.status,
            "good": self.good,
            "bad": self.bad,
            "first_bad": None
            if c is None
            else {"sha": c.sha, "subject": c.subject, "pr": pr_number(c.subject)},
            "candidates": [x.sha for x in self.candidates],
            "runs": self.runs,
            "steps": [s.as_json() for s in self.steps],
            "skipped": [{"sha": s.sha, "reason": s.probe.reason} for s in self.skipped],
            "reason": self.reason,
            "commits_in_range": self.total,
            "line": self.line(),
        }


def expected_runs(n: int) -> int:
    return math.ceil(math.log2(n)) if n > 1 else 0


def _next_midpoint(lo: int, hi: int, skipped: set[int]) -> Optional[int]:
    """The middle of (lo, hi), else the nearest index to it that is not skipped."""
    mid = (lo + hi) // 2
    for d in range(hi - lo):
        for i in (mid - d, mid + d):
            if lo < i < hi and i not in skipped:
                return i
    return None


def bisect(
    good: str,
    commits: Sequence,
    probe: Callable[[object], Probe],
    limits: Limits = DEFAULT_LIMITS,
    clock: Callable[[], float] = time.monotonic,
) -> Bisection:
    """First bad commit in `commits` (oldest first; the last is known bad, `good` is known good)."""
    if not commits:
        return Bisection("nothing_to_do", good, good, reason="empty range")
    lo, hi = -1, len(commits) - 1  # commits[lo] good (or `good`), commits[hi] bad
    skipped: set[int] = set()
    steps: list[Step] = []
    started = clock()
    status, reason = "found", ""
    while hi - lo > 1:
        mid = _next_midpoint(lo, hi, skipped)
        if mid is None:
            status, reason = "narrowed", "every commit left was skipped"
            break
        runs = sum(1 for s in steps if s.probe.ran)
        if runs >= limits.max_steps or clock() - started >= limits.max_seconds:
            status = "capped"
            reason = f"cap reached: {runs} runs, {clock() - started:.0f}s (max {limits.max_steps}, {limits.max_seconds:.0f}s)"
            break
        c = commits[mid]
        p = probe(c)
        steps.append(Step(c.sha, c.subject, p))
        if p.outcome == GOOD:
            lo = mid
        elif p.outcome == BAD:
            hi = mid
        else:
            skipped.add(mid)
    left = tuple(commits[lo + 1 : hi + 1])  # skipped ones included: any of them may be the culprit
    good_sha = commits[lo].sha if lo >= 0 else good
    if status == "found":
        return Bisection(
            "found", good_sha, commits[hi].sha, left, tuple(steps), culprit=commits[hi], total=len(commits)
        )
    return Bisection(status, good_sha, commits[hi].sha, left, tuple(steps), reason, total=len(commits))
