"""Stage-3 decision engines behind one interface.

The deterministic engine (default) applies rules.py and breaks ties with the embedding
neighbours of already-decided units. Other engines (llm.py) implement the same Protocol.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Mapping, Protocol

import numpy as np

from testing.config.modes import Mode
from tools.select.bucket import rules
from tools.select.bucket.facts import UnitFacts
from tools.select.bucket.rules import Verdict
from tools.select.common.capabilities import CapabilityTable
from tools.select.memory import embeddings as emb

NEIGHBOURS = 5


@dataclass(frozen=True)
class Context:
    caps: CapabilityTable
    out_features: Mapping[str, str]
    vectors: Mapping[str, np.ndarray] = field(default_factory=dict)  # test_id -> embedding
    variant_vectors: Mapping[str, np.ndarray] = field(default_factory=dict)  # op/module name -> embedding
    # Verdicts already known (e.g. from a previous full run): neighbours may use them too.
    prior: Mapping[str, Verdict] = field(default_factory=dict)
    prior_tests: Mapping[str, str] = field(default_factory=dict)  # unit_id -> test_id of prior


class DecisionEngine(Protocol):
    name: str

    def decide(self, units: list[UnitFacts], ctx: Context) -> dict[str, Verdict]: ...


def _variant_of(unit_id: str) -> str:
    return unit_id[unit_id.index("[") + 1 : -1] if unit_id.endswith("]") and "[" in unit_id else ""


def neighbour_vote(
    unit: UnitFacts,
    decided: Mapping[str, Verdict],
    unit_tests: Mapping[str, str],
    vectors: Mapping[str, np.ndarray],
    k: int = NEIGHBOURS,
    variant_vectors: Mapping[str, np.ndarray] | None = None,
) -> Verdict:
    """Similarity-weighted majority of the k nearest decided units. A unit sits where its test's
    text plus its op/module name embed, so linalg.polar lands near other linalg ops of the test."""
    variant_vectors = variant_vectors or {}
    position = lambda uid, test_id: emb.combine(vectors.get(test_id), variant_vectors.get(_variant_of(uid)))  # noqa: E731
    query = position(unit.unit_id, unit.test_id)
    ids = sorted(u for u in decided if unit_tests.get(u) in vectors and u != unit.unit_id)
    why = f"rules could not decide ({unit.import_error or unit.error or 'no CPU trace'})"
    if query is None or not ids:
        return Verdict(Mode.skip, f"{why}; no decided neighbour to learn from", source="neighbours")
    matrix = np.stack([position(u, unit_tests[u]) for u in ids])
    near = emb.nearest(query, matrix, k)
    score: dict[str, float] = defaultdict(float)
    for index, similarity in near:
        score[decided[ids[index]].mode] += max(similarity, 0.0)
    mode = max(sorted(score), key=lambda m: score[m])
    named = ", ".join(f"{ids[i].split('::', 2)[-1]} ({decided[ids[i]].mode}, {s:.2f})" for i, s in near)
    return Verdict(
        mode,
        f"{why}; nearest decided tests by embedding: {named}",
        source="neighbours",
        evidence=tuple(ids[i] for i, _ in near),
    )


class DeterministicEngine:
    name = "deterministic"

    def decide(self, units: list[UnitFacts], ctx: Context) -> dict[str, Verdict]:
        verdicts: dict[str, Verdict] = {}
        undecided = []
        for unit in units:
            verdict = rules.decide(unit, ctx.caps, ctx.out_features)
            if verdict is None:
                undecided.append(unit)
            else:
                verdicts[unit.unit_id] = verdict
        decided = {**ctx.prior, **verdicts}
        unit_tests = {**ctx.prior_tests, **{u.unit_id: u.test_id for u in units}}
        for unit in undecided:
            verdicts[unit.unit_id] = self.tie_break(unit, decided, unit_tests, ctx)
        return verdicts

    def tie_break(
        self, unit: UnitFacts, decided: Mapping[str, Verdict], unit_tests: Mapping[str, str], ctx: Context
    ) -> Verdict:
        # Only rule-decided units vote, so the outcome never depends on the order of ties.
        voters = {u: v for u, v in decided.items() if v.source == "rules"}
        return neighbour_vote(unit, voters, unit_tests, ctx.vectors, variant_vectors=ctx.variant_vectors)
