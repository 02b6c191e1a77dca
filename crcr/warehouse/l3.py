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
from typing import Mapping, Optional

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
        return "no data"
    if gate.key.endswith("Rate"):
        return f"{value * 100:.1f}%"
    if gate.key == "tenureAtL2Days":
        return f"{value:.1f} days"
    return f"{value / 60:.1f} min" if value < 3600 else f"{value / 3600:.2f} h"
