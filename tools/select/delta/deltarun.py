"""Run stage 3 on the delta only, and check it against a full run of the new version."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

from testing.config.modes import Mode
from tools.select.bucket import generation
from tools.select.bucket.bucket import GENERATION, context
from tools.select.bucket.engines import DecisionEngine
from tools.select.bucket.facts import UnitFacts, gather
from tools.select.bucket.rules import Verdict
from tools.select.common.capabilities import CapabilityTable
from tools.select.delta import delta as dl
from tools.select.memory import opinfo_index as oi
from tools.select.memory.store import Memory


def same(prior: Verdict, full: Verdict) -> bool:
    """Equal decisions: bucket and dtypes (rationale wording may name other neighbours). A prior
    mandatory decision the base configs made silent (bucket's generation check) was demoted
    after deciding; the full run decides before that check, so its mandatory is the same."""
    if prior.source == GENERATION:
        return full.mode in (Mode.mandatory_success, Mode.skip)
    return prior.mode == full.mode and tuple(prior.dtypes) == tuple(full.dtypes)


# What a mismatch of unchanged units most often means: the prior came from other inputs.
MISMATCH_HINT = (
    " (was --prior decided with the same --scope, --base-config, --capabilities and --engine as this run?)"
)


@dataclass
class DeltaResult:
    plan: dl.DeltaPlan
    full_units: int  # units of the new version
    delta_units: list[UnitFacts]
    verdicts: dict[str, Verdict]  # merged: prior for unchanged, fresh for the delta
    full_verdicts: dict[str, Verdict]
    flipped: dict[str, tuple[str, str]]  # delta unit -> (old mode, new mode)
    unchanged_mismatch: list[str]
    delta_mismatch: list[str]

    @property
    def ratio(self) -> float:
        return len(self.delta_units) / max(self.full_units, 1)

    def report(self) -> str:
        counts = self.plan.counts()
        lines = [
            f"OpInfos {self.plan.version}: {counts['added']} added, {counts['removed']} removed, "
            f"{counts['changed']} changed ({counts['foreign_only']} only in CUDA/ROCm/XPU/MPS fields)",
            f"units: full {self.full_units}, delta {len(self.delta_units)} ({self.ratio:.1%}), "
            f"removed {len(self.plan.removed)}",
            f"bucket changes in the delta: {len(self.flipped)}",
            f"unchanged units whose decision differs from a full run: {len(self.unchanged_mismatch)}"
            + (MISMATCH_HINT if self.unchanged_mismatch else ""),
            f"delta units whose decision differs from a full run: {len(self.delta_mismatch)}",
        ]
        return "\n".join(lines)


def annotate(unit_verdict: Verdict, why: str, version: str) -> Verdict:
    return replace(unit_verdict, rationale=f"{unit_verdict.rationale} [re-evaluated for {version}: {why}]")


def run(
    memory: Memory,
    caps: CapabilityTable,
    engine: DecisionEngine,
    out_features: Mapping[str, str],
    new_internal: Path,
    version: str,
    prior: Mapping[str, Verdict] | None = None,
    classes: dict[str, set[str]] | None = None,
    changed_tests: set[str] = frozenset(),
    old_internal: Path | None = None,
    embedder=None,
    view: "generation.DeviceView | None" = None,
) -> DeltaResult:
    """`view`: the base configs' view of the device, as `select bucket --base-config` narrowed
    the prior decisions; the full and the fresh decisions are narrowed alike."""
    old_units = gather(memory, classes)
    plan = dl.plan(
        old_units, old_internal or oi.installed_internal(), new_internal, version, caps.device, changed_tests
    )
    # ops the new version adds have no name embedding yet: embed them now (MiniLM, offline)
    added_names = sorted({u.variant for u in plan.added})
    if added_names and embedder is None:
        from tools.select.memory.embeddings import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    ctx = context(memory, caps, out_features, extra_variants=added_names, embedder=embedder)
    if prior is None:  # decided now, narrowed as bucket narrows what it saves
        prior = generation.narrow(old_units, engine.decide(old_units, ctx), view)
    new_units = [
        dl.overlay(u, plan.changes, caps.device, version) for u in old_units if u.unit_id not in plan.removed
    ] + plan.added
    full = generation.narrow(new_units, engine.decide(new_units, ctx), view)
    delta_units = [u for u in new_units if u.unit_id in plan.affected]
    unchanged = {u.unit_id: prior[u.unit_id] for u in new_units if u.unit_id not in plan.affected}
    tests = {u.unit_id: u.test_id for u in new_units}
    fresh = generation.narrow(
        delta_units, engine.decide(delta_units, replace(ctx, prior=unchanged, prior_tests=tests)), view
    )
    fresh = {uid: annotate(v, plan.affected[uid], version) for uid, v in fresh.items()}
    merged = {**unchanged, **fresh}
    flipped = {
        uid: (prior[uid].mode, v.mode)
        for uid, v in fresh.items()
        if uid in prior and prior[uid].mode != v.mode
    }
    return DeltaResult(
        plan,
        len(new_units),
        delta_units,
        merged,
        full,
        flipped,
        sorted(uid for uid in unchanged if not same(unchanged[uid], full[uid])),
        sorted(uid for uid in fresh if not same(fresh[uid], full[uid])),
    )
