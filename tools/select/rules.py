"""Pure stage-3 rules: facts + capabilities + out-of-scope features -> bucket and rationale.

``None`` means the rules cannot tell (no trace to reason from); the engine then asks the
embedding neighbours. Rules are ordered from the most to the least certain evidence.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .capabilities import CapabilityTable, packet
from .facts import UnitFacts

MANDATORY = "mandatory_success"
SKIP = "skip"


@dataclass(frozen=True)
class Verdict:
    mode: str
    rationale: str
    dtypes: tuple[str, ...] = ()                 # dtypes it must pass in (mandatory only)
    skipped_dtypes: tuple[str, ...] = ()
    source: str = "rules"                        # rules | neighbours | llm
    evidence: tuple[str, ...] = field(default=())

    @property
    def short_reason(self) -> str:
        return self.rationale.split(";")[0]


def _short(op: str) -> str:
    return op.removeprefix("aten::")


# Ops that create test inputs; which of them run depends on the dtype (uniform_ for floats,
# random_ for ints), so a trace at one dtype says nothing about the others.
INPUT_CREATION = frozenset({"uniform_", "normal_", "random_", "bernoulli_", "randperm", "fill_", "zero_",
                            "arange", "linspace", "eye", "randint", "rand", "randn", "full", "scalar_tensor"})


def unsupported_ops(facts: UnitFacts, caps: CapabilityTable) -> list[str]:
    return sorted({_short(op) for op in facts.kernel_ops if not caps.supports(op)})


def runnable_dtypes(facts: UnitFacts, caps: CapabilityTable) -> tuple[list[str], dict[str, list[str]]]:
    """Dtypes every kernel op supports, and for each refused dtype the ops refusing it."""
    candidates = list(facts.dtypes)
    refused: dict[str, list[str]] = {}
    for dtype in candidates:
        blockers = sorted({_short(op) for op in facts.kernel_ops
                           if packet(op) not in INPUT_CREATION and not caps.supports(op, dtype)})
        if dtype not in caps.dtypes:
            blockers = ["<device has no such dtype>"]
        if blockers:
            refused[dtype] = blockers
    return [d for d in candidates if d not in refused], refused


def _layout_conflict(facts: UnitFacts, caps: CapabilityTable) -> list[str]:
    text = f"{facts.test} {facts.summary}".lower()
    if "contiguous" not in text and "strided" not in text:
        return []
    return sorted({packet(op) for op in facts.kernel_ops if (c := caps.lookup(op)) and c.layout == "contiguous"})


def decide(facts: UnitFacts, caps: CapabilityTable, out_features: dict[str, str]) -> Verdict | None:
    if facts.status is None:
        return None
    if facts.status in ("crash", "timeout"):
        return Verdict(SKIP, f"the CPU reference run {facts.status}ed ({facts.error}); a crash cannot be xfailed")
    if facts.status in ("failed", "error"):
        return Verdict(SKIP, f"fails on CPU already ({facts.error or facts.status}); nothing to learn on {caps.device}")
    if facts.status in ("skipped", "xfailed"):
        return Verdict(SKIP, f"upstream {facts.status} it on CPU ({facts.error or 'decorator'})")
    outside = sorted(set(facts.features) & out_features.keys())
    if outside:
        return Verdict(SKIP, f"uses {', '.join(outside)}; {out_features[outside[0]]}")
    missing = unsupported_ops(facts, caps)
    if missing:
        return Verdict(SKIP, f"needs aten ops missing from the {caps.device} table: {', '.join(missing)}",
                       evidence=tuple(missing))
    layout = _layout_conflict(facts, caps)
    if layout:
        return Verdict(SKIP, f"exercises strided inputs but {', '.join(layout)} refuse non-contiguous tensors on {caps.device}")
    ok, refused = runnable_dtypes(facts, caps)
    refused_text = "; ".join(f"{d} refused by {', '.join(ops)}" for d, ops in sorted(refused.items()))
    if facts.dtypes and not ok:
        return Verdict(SKIP, f"no generated dtype runs on {caps.device}: {refused_text}",
                       skipped_dtypes=tuple(sorted(refused)))
    kernels = ", ".join(sorted({_short(o) for o in facts.kernel_ops})) or "only composite/view ops"
    reduced = sorted({c.internal_precision for o in facts.kernel_ops if (c := caps.lookup(o)) and
                      c.internal_precision not in ("exact", "")})
    rationale = f"every traced kernel is in the {caps.device} table ({kernels})"
    if facts.dtypes:
        rationale += f"; runs in {', '.join(ok)}"
    if refused:
        rationale += f"; not generated for {refused_text}"
    if reduced:
        rationale += f"; computed through {', '.join(reduced)}, so refinement may add a precision knob"
    return Verdict(MANDATORY, rationale, dtypes=tuple(ok), skipped_dtypes=tuple(sorted(refused)))
