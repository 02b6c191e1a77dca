"""CRCR's L3 gates, judged as HUD judges them (pure; the metrics come from queries.l3_metrics).

Read in pytorch/test-infra: torchci/lib/crcr/l3Thresholds.ts (the gates, their direction,
`evaluateL3Threshold`, the 14/7-day windows), l3Readiness.ts (tenure from first reaching L2,
`ready` only when at least one gate was judged and every gate is met) and
clickhouse_queries/crcr_l3_summary/query.sql (the metric formulas, see queries.py).
The newest thresholds judge an overrun rate (share of non-timed-out jobs over 3 h, < 1 %)
where an older version judged the max execution time; the max is still shown, not judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Mapping, Optional

from crcr.warehouse.levels import LevelHistory

PROMOTION_WINDOW_DAYS = 14
DEMOTION_WINDOW_DAYS = 7
THREE_HOURS = 3 * 3600


@dataclass(frozen=True)
class Gate:
    key: str
    label: str
    target_label: str
    target: float
    direction: str  # "atLeast" (>= target) or "below" (< target)
    demotion: bool  # also judged over the 7-day demotion window


GATES: tuple[Gate, ...] = (
    Gate("tenureAtL2Days", "Time at L2", "≥ 1 month", 30, "atLeast", False),
    Gate("e2eTimeS", "End-to-End Time (P50)", "< 3 h", THREE_HOURS, "below", True),
    Gate("overrunRate", "Overrun Rate", "< 1% of jobs over 3h", 0.01, "below", False),
    Gate("avgQueueTimeS", "Avg Queue Time", "< 30 min", 30 * 60, "below", False),
    Gate("timeoutRate", "Timeout Rate", "< 1%", 0.01, "below", True),
    Gate("passRate", "Job Pass Rate", "≥ 90%", 0.9, "atLeast", True),
)


def evaluate(gate: Gate, measured: Optional[float]) -> Optional[bool]:
    """True met, False not met, None no data to judge."""
    if measured is None or (isinstance(measured, float) and math.isnan(measured)):
        return None
    return measured < gate.target if gate.direction == "below" else measured >= gate.target


@dataclass(frozen=True)
class Verdict:
    gate: Gate
    value: Optional[float]
    met: Optional[bool]
    window_days: Optional[int]  # None for tenure (counted from first reaching L2)


@dataclass(frozen=True)
class Readiness:
    verdicts: tuple[Verdict, ...]
    window_days: int
    jobs: int

    @property
    def ready(self) -> bool:
        judged = [v for v in self.verdicts if v.met is not None]
        return bool(judged) and all(v.met is True for v in self.verdicts)


def readiness(metrics: Mapping[str, Optional[float]], window_days: int, jobs: int) -> Readiness:
    """Every promotion gate over `metrics` (keys as GATES, tenureAtL2Days included)."""
    verdicts = tuple(
        Verdict(
            g,
            metrics.get(g.key),
            evaluate(g, metrics.get(g.key)),
            None if g.key == "tenureAtL2Days" else window_days,
        )
        for g in GATES
    )
    return Readiness(verdicts, window_days, jobs)


def demotion(metrics: Mapping[str, Optional[float]], jobs: int) -> tuple[bool, tuple[Verdict, ...]]:
    """(on temporary demotion, the demotion gates) over the 7-day window, as demotionStatus.ts:
    any demotion gate not met, or no jobs at all; a null verdict never violates."""
    verdicts = tuple(
        Verdict(g, metrics.get(g.key), evaluate(g, metrics.get(g.key)), DEMOTION_WINDOW_DAYS)
        for g in GATES
        if g.demotion
    )
    return jobs == 0 or any(v.met is False for v in verdicts), verdicts


def format_value(gate: Gate, value: Optional[float]) -> str:
    if value is None:
        return NO_TENURE if gate.key == "tenureAtL2Days" else "no data"
    if gate.key.endswith("Rate"):
        return f"{value * 100:.1f}%"
    if gate.key == "tenureAtL2Days":
        return f"{value:.1f} days"
    return f"{value / 60:.1f} min" if value < 3600 else f"{value / 3600:.2f} h"


NO_TENURE = "no tenure data"


@dataclass(frozen=True)
class Standing:
    """A repo's L3 standing: what `warehouse_tool l3`, its JSON and the HUD's L3 panel show,
    all from `standing()`. Promotion: the six gates over 14 days (tenure from the level
    history). Demotion, as demotionStatus.ts: the three demotion gates over 7 days; on
    temporary demotion when one is not met or there are no PR jobs at all (`no_data`); the
    level-status API asks for a demotion PR only for an L3 repo, and never for silence."""

    repo: str
    promotion: Readiness
    demotion: tuple[Verdict, ...]
    demotion_jobs: int
    history: Optional[LevelHistory]
    now: float
    runs: int = 0  # the promotion window's runs
    max_exec_s: Optional[float] = None  # shown, not judged (the overrun rate is)
    setup_share: Optional[float] = None  # of the jobs' execution time: checkout, build, set-up

    @property
    def no_data(self) -> bool:
        return self.demotion_jobs == 0

    @property
    def on_temporary_demotion(self) -> bool:
        return self.no_data or any(v.met is False for v in self.demotion)

    @property
    def level(self) -> Optional[str]:
        current = self.history.current() if self.history else None
        return current.level if current else None

    @property
    def demotion_pr(self) -> bool:
        """level-status.ts: `change: "demote"` only for an L3 repo, and only on a metric."""
        return self.level == "L3" and self.on_temporary_demotion and not self.no_data

    @property
    def recorded_demotion(self) -> Optional[bool]:
        """The history's own word: a temporary demotion open now (None: no history)."""
        return None if self.history is None else self.history.on_temporary_demotion(self.now)

    def changes(self) -> list[tuple[str, str]]:
        """(day, what) for every level change and temporary demotion, oldest first."""
        if self.history is None:
            return []
        out = [(e.since, e.level) for e in self.history.entries]
        for d in self.history.demotions:
            end = "ongoing" if d.end is None else f"until {_day(d.end)}"
            out.append((d.start, f"temporary demotion, {end}"))
        return [(_day(at), what) for at, what in sorted(out)]

    def tenure_note(self) -> str:
        if self.history is None:
            return f"{NO_TENURE} (no level history given)"
        since = self.history.l2_since()
        return (
            f"since first reaching L2 on {_day(since)}" if since is not None else f"{NO_TENURE} (never at L2)"
        )

    def lines(self) -> list[str]:
        """The standing as text, one fact a line (the command line's output)."""
        p = self.promotion
        out = [
            f"{self.repo}: {'ready' if p.ready else 'not ready'} for L3 ({p.jobs} PR jobs, last {p.window_days} days)",
            f"  {self.jobs_note()}",
            f"  {self.time_note()}",
        ]
        out += [_line(v, self.tenure_note()) for v in p.verdicts]
        out.append(
            f"  demotion, last {DEMOTION_WINDOW_DAYS} days ({self.demotion_jobs} PR jobs): {self.demotion_word()}"
        )
        out += [_line(v, "") for v in self.demotion]
        out.append(f"  level: {self.level or 'unknown (no level history)'}; {self.recorded_word()}")
        out += [f"  {day}  {what}" for day, what in self.changes()]
        return out

    def jobs_note(self) -> str:
        p = self.promotion
        return f"{p.jobs} PR jobs in {self.runs} runs; max execution {format_value(GATES[1], self.max_exec_s)} (shown, not judged)"

    def time_note(self) -> str:
        """Our measured queue and how much of a leg's time is build and set-up, not tests."""
        (queue,) = [v.value for v in self.promotion.verdicts if v.gate.key == "avgQueueTimeS"]
        share = "no data" if self.setup_share is None else f"{self.setup_share * 100:.0f}%"
        return (
            f"measured queue (dispatch -> a run's first in_progress): {format_value(GATES[3], queue)} on average; "
            f"build and set-up (in_progress -> the tests start): {share} of the legs' execution time"
        )

    def demotion_word(self) -> str:
        if self.no_data:
            return "on temporary demotion: no data (no PR jobs)"
        if self.on_temporary_demotion:
            return "on temporary demotion: " + ", ".join(
                v.gate.label for v in self.demotion if v.met is False
            )
        return "not on temporary demotion"

    def recorded_word(self) -> str:
        recorded = self.recorded_demotion
        if recorded is None:
            return "recorded demotions: unknown"
        return "a temporary demotion is open" if recorded else "no temporary demotion open"

    def as_json(self) -> dict:
        def verdicts(vs):
            return [
                {"key": v.gate.key, "value": v.value, "met": v.met, "window_days": v.window_days} for v in vs
            ]

        return {
            "repo": self.repo,
            "ready": self.promotion.ready,
            "jobs": self.promotion.jobs,
            "window_days": self.promotion.window_days,
            "gates": verdicts(self.promotion.verdicts),
            "tenure": self.tenure_note(),
            "demotion": {
                "window_days": DEMOTION_WINDOW_DAYS,
                "jobs": self.demotion_jobs,
                "no_data": self.no_data,
                "on_temporary_demotion": self.on_temporary_demotion,
                "demotion_pr": self.demotion_pr,
                "gates": verdicts(self.demotion),
            },
            "runs": self.runs,
            "max_exec_s": self.max_exec_s,
            "setup_share": self.setup_share,
            "level": self.level,
            "recorded_demotion_open": self.recorded_demotion,
            "level_changes": [{"day": d, "what": w} for d, w in self.changes()],
        }


def standing(
    repo: str,
    promotion_metrics: Mapping[str, Optional[float]],
    promotion_jobs: int,
    demotion_metrics: Mapping[str, Optional[float]],
    demotion_jobs: int,
    history: Optional[LevelHistory],
    now: float,
    runs: int = 0,
    max_exec_s: Optional[float] = None,
    setup_share: Optional[float] = None,
) -> Standing:
    """The one place a repo's L3 standing is decided (metrics from queries.l3_metrics over the
    14- and 7-day windows, without tenure: it comes from `history` here)."""
    tenure = history.tenure_days(now) if history is not None else None
    ready = readiness({**promotion_metrics, "tenureAtL2Days": tenure}, PROMOTION_WINDOW_DAYS, promotion_jobs)
    _, verdicts = demotion(demotion_metrics, demotion_jobs)
    return Standing(repo, ready, verdicts, demotion_jobs, history, now, runs, max_exec_s, setup_share)


def _day(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).date().isoformat()


def _line(v: Verdict, tenure_note: str) -> str:
    verdict = {True: "met", False: "NOT MET", None: "no data"}[v.met]
    window = f"{v.window_days} d" if v.window_days else tenure_note
    return f"  {v.gate.label:<24} {v.gate.target_label:<22} {format_value(v.gate, v.value):>14}  {verdict:<8} {window}"
