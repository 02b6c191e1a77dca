"""Per-model results of model-op cases: the typed value behind the run summary's ``models``.

Each model-op case (testing/config/modelops.py) is one test; its run decides one ``CaseResult``
kind (``passed``, ``failed``, ``mismatched`` with the largest errors, ``unsupported`` on the
device, ``skipped`` for a case that cannot be built). ``ModelCounts`` adds them up per model;
``from_summary`` reads them back from a JSON summary, so the results warehouse ingests the same
value the plugin wrote. Standard library only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Optional

KINDS = ("passed", "failed", "mismatched", "unsupported", "skipped")


def case_kind(outcome: str, case_outcome: Optional[str]) -> str:
    """One case's kind from its test outcome and the kind its run recorded (``case_outcome``).
    A crash or an error before the call is a failure; a recorded kind wins otherwise."""
    if outcome in ("crashed", "error"):
        return "failed"
    if case_outcome in KINDS:
        return case_outcome
    if outcome in ("passed", "xpassed", "xpassed_strict"):
        return "passed"
    return "skipped" if outcome == "skipped" else "failed"


@dataclass(frozen=True)
class Mismatch:
    case: str
    max_abs_error: float
    max_rel_error: float


@dataclass(frozen=True)
class ModelCounts:
    """One model's cases on one device run."""

    model: str
    cases: int = 0
    passed: int = 0
    failed: int = 0
    mismatched: int = 0
    unsupported: int = 0
    skipped: int = 0
    max_abs_error: Optional[float] = None  # over the mismatched cases
    max_rel_error: Optional[float] = None
    mismatches: tuple[Mismatch, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ModelCounts":
        mism = tuple(Mismatch(**m) for m in data.get("mismatches", ()))
        return cls(**{**{k: v for k, v in data.items() if k != "mismatches"}, "mismatches": mism})

    def line(self) -> str:
        worst = (
            f" (max abs error {self.max_abs_error:.3g}, max rel error {self.max_rel_error:.3g})"
            if self.max_abs_error is not None
            else ""
        )
        return (
            f"model {self.model}: {self.cases} cases: {self.passed} passed, {self.failed} failed, "
            f"{self.mismatched} mismatched{worst}, {self.unsupported} unsupported, {self.skipped} skipped"
        )


def tally(tests: Iterable[dict[str, Any]]) -> list[ModelCounts]:
    """Summary test records (those with a ``model``) -> counts per model, by model name."""
    grouped: dict[str, list[dict]] = {}
    for t in tests:
        if t.get("model"):
            grouped.setdefault(t["model"], []).append(t)
    return [_count(model, records) for model, records in sorted(grouped.items())]


def _count(model: str, records: list[dict]) -> ModelCounts:
    kinds = {k: 0 for k in KINDS}
    mismatches = []
    for r in records:
        kind = case_kind(r.get("outcome", ""), r.get("case_outcome"))
        kinds[kind] += 1
        if kind == "mismatched" and r.get("max_abs_error") is not None:
            mismatches.append(
                Mismatch(
                    r.get("case", r["nodeid"]),
                    float(r["max_abs_error"]),
                    float(r.get("max_rel_error") or 0.0),
                )
            )
    return ModelCounts(
        model,
        len(records),
        **kinds,
        max_abs_error=max((m.max_abs_error for m in mismatches), default=None),
        max_rel_error=max((m.max_rel_error for m in mismatches), default=None),
        mismatches=tuple(sorted(mismatches, key=lambda m: m.case)),
    )


def from_summary(summary: dict[str, Any]) -> list[ModelCounts]:
    """The ``models`` of a plugin JSON summary (``--oot-summary``), as typed values."""
    return [ModelCounts.from_json(m) for m in summary.get("models", ())]
