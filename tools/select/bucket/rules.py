"""Pure stage-3 rules: facts + capabilities + out-of-scope features -> bucket and rationale.

``None`` means the rules cannot tell (no trace to reason from); the engine then asks the
embedding neighbours. Rules are ordered from the most to the least certain evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from testing.config.modes import Mode
from tools.select.bucket.facts import UnitFacts
from tools.select.common import restrictions
from tools.select.common.capabilities import CapabilityTable, packet


@dataclass(frozen=True)
class Verdict:
    mode: Mode
    rationale: str
    dtypes: tuple[str, ...] = ()  # dtypes it must pass in (mandatory only)
    skipped_dtypes: tuple[str, ...] = ()
    source: str = "rules"  # rules | neighbours | llm | generation (bucket.GENERATION)
    evidence: tuple[str, ...] = field(default=())

    @property
    def short_reason(self) -> str:
        return self.rationale.split(";")[0]


def _short(op: str) -> str:
    return op.removeprefix("aten::")


# Ops that create test inputs; which of them run depends on the dtype (uniform_ for floats,
# random_ for ints), so a trace at one dtype says nothing about the others.
INPUT_CREATION = frozenset(
    {
        "uniform_",
        "normal_",
        "random_",
        "bernoulli_",
        "randperm",
        "fill_",
        "zero_",
        "arange",
        "linspace",
        "eye",
        "randint",
        "rand",
        "randn",
        "full",
        "scalar_tensor",
    }
)
FLOATING = frozenset({"float32", "float16", "bfloat16", "float64"})
CPU_FAILED = ("crashed", "timeout", "failed", "error")


def unsupported_ops(facts: UnitFacts, caps: CapabilityTable) -> list[str]:
    return sorted({_short(op) for op in facts.kernel_ops if not caps.supports(op)})


def _refusals(facts: UnitFacts, caps: CapabilityTable, dtype: str) -> str | None:
    """Why ``dtype`` cannot run on the device, or None. With a trace at that dtype, every dtype
    each kernel saw is checked (a float32 test may build float64 references); without one, the
    kernels of another dtype's trace stand in (input-creation ops excepted: they differ by dtype)."""
    if not set(facts.members(dtype)) <= caps.dtypes:
        return "no kernel"
    trace = facts.trace_at(dtype)
    if trace is not None:
        if trace.status in CPU_FAILED:
            return f"CPU {trace.status}: {trace.error}"[:120] if trace.error else f"CPU {trace.status}"
        if trace.status in ("skipped", "xfailed"):
            return f"upstream {trace.status} it on CPU"
        if trace.status == "trace_error":
            return "the tracer cannot follow it (passes untraced)"
        blockers = sorted(
            {
                f"{_short(op)}({seen})"
                for op in trace.kernel_ops
                for seen in trace.kernel_dtypes.get(op, (dtype,))
                if not caps.supports(op, seen, storage=True)
            }
        )
    else:
        blockers = sorted(
            {
                _short(op)
                for op in facts.kernel_ops
                if packet(op) not in INPUT_CREATION and not caps.supports(op, dtype)
            }
        )
    return f"{', '.join(blockers)} {'lacks' if len(blockers) == 1 else 'lack'} it" if blockers else None


def runnable_dtypes(facts: UnitFacts, caps: CapabilityTable) -> tuple[list[str], dict[str, str]]:
    """Dtypes the device generates that every kernel supports, and for each refused one why."""
    refused = {d: why for d in facts.device_dtypes if (why := _refusals(facts, caps, d))}
    return [d for d in facts.device_dtypes if d not in refused], refused


def refusal_text(refused: dict[str, str]) -> str:
    """float64, complex64: no kernel; int8: abs(int8) lack it -- one clause per reason."""
    by_reason: dict[str, list[str]] = {}
    for dtype, why in sorted(refused.items()):
        by_reason.setdefault(why, []).append(dtype)
    return "; ".join(f"{', '.join(ds)}: {why}" for why, ds in sorted(by_reason.items(), key=lambda kv: kv[1]))


def _layout_conflict(facts: UnitFacts, caps: CapabilityTable) -> list[str]:
    text = f"{facts.test} {facts.summary}".lower()
    if "contiguous" not in text and "strided" not in text:
        return []
    return sorted(
        {packet(op) for op in facts.kernel_ops if (c := caps.lookup(op)) and c.layout == "contiguous"}
    )


def reduced_precision(facts: UnitFacts, caps: CapabilityTable, ok: list[str]) -> dict[str, str]:
    """Kernels computed through a narrower type on values the test compares: only floating
    dtypes, only when the test compares numbers (a repr or an integer test never needs a knob)."""
    floats = [d for d in ok if set(facts.members(d)) & FLOATING] or (
        [] if facts.device_dtypes else ["float32"]
    )
    if not floats or not facts.compare_ops:
        return {}
    out = {}
    for op in facts.kernel_ops:
        cap = caps.lookup(op)
        if cap is None or cap.internal_precision in ("exact", "") or packet(op) in INPUT_CREATION:
            continue  # random inputs are drawn, not compared against CPU
        seen = (
            set().union(*(t.kernel_dtypes.get(op, ()) for t in facts.traces)) if facts.traces else set(floats)
        )
        if seen & FLOATING or not seen:
            out[_short(op)] = cap.internal_precision
    return dict(sorted(out.items()))


def decide(facts: UnitFacts, caps: CapabilityTable, out_features: dict[str, str]) -> Verdict | None:
    blocked = restrictions.blocking(facts.decorators, facts.restrictions, caps.device)
    if blocked:
        return Verdict(Mode.skip, blocked)
    outside = sorted(set(facts.features) & out_features.keys())
    if outside:  # before the trace: out-of-scope tests are not traced at all
        return Verdict(Mode.skip, f"uses {', '.join(outside)}; {out_features[outside[0]]}")
    if facts.status is None or facts.status == "trace_error":
        return None
    if facts.status in ("crashed", "timeout"):
        how = "crashed" if facts.status == "crashed" else "timed out"
        return Verdict(Mode.skip, f"the CPU reference run {how} ({facts.error}); a crash cannot be xfailed")
    if facts.status in ("failed", "error"):
        return Verdict(
            Mode.skip,
            f"fails on CPU already, untraced too ({facts.error or facts.status}); "
            f"nothing to learn on {caps.device}",
        )
    if facts.status in ("skipped", "xfailed"):
        return Verdict(Mode.skip, f"upstream {facts.status} it on CPU ({facts.error or 'decorator'})")
    missing = unsupported_ops(facts, caps)
    if missing:
        return Verdict(
            Mode.skip,
            f"needs aten ops missing from the {caps.device} table: {', '.join(missing)}",
            evidence=tuple(missing),
        )
    layout = _layout_conflict(facts, caps)
    if layout:
        return Verdict(
            Mode.skip,
            f"exercises strided inputs but {', '.join(layout)} refuse non-contiguous tensors on {caps.device}",
        )
    ok, refused = runnable_dtypes(facts, caps)
    if facts.device_dtypes and not ok:
        return Verdict(
            Mode.skip,
            f"no dtype it is generated in runs on {caps.device}: {refusal_text(refused)}",
            skipped_dtypes=tuple(sorted(refused)),
        )
    kernels = ", ".join(sorted({_short(o) for o in facts.kernel_ops})) or "only composite/view ops"
    traced = sorted({t.dtype for t in facts.traces if t.dtype and t.dtype in ok})
    rationale = f"every kernel it reaches is in the {caps.device} table ({kernels})"
    if traced:
        rationale += f"; traced in {', '.join(traced)}"
    if ok:
        rationale += f"; runs in {', '.join(ok)}"
    if refused:
        rationale += f"; left out {refusal_text(refused)}"
    reduced = reduced_precision(facts, caps, ok)
    if reduced:
        rationale += (
            f"; {', '.join(reduced)} compute through {', '.join(sorted(set(reduced.values())))} "
            f"on {caps.device}: refinement may add a tolerance"
        )
    return Verdict(Mode.mandatory_success, rationale, dtypes=tuple(ok), skipped_dtypes=tuple(sorted(refused)))
