"""GitHub Actions matrix JSON: one leg per (feature, shard).

A feature is a unit CI runs on its own (a config file or a generated target).
Its shard count is either fixed or chosen from a duration cap, so a slow
feature is split until each of its legs fits the cap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from tools.shard.planner import lpt_plan


@dataclass(frozen=True)
class Feature:
    name: str
    target: str  # what a leg runs, e.g. a Bazel label
    nodeids: tuple[str, ...]


def generated_features(
    bzl_text: str, recorded: Mapping[str, float], package: str = "//testing"
) -> list[Feature]:
    """One feature per generated config target (testing/targets/configs.bzl).

    A config target runs whole suites, so its tests are the recorded tests
    of those files; a suite with nothing recorded yet gets one placeholder
    per file (estimated like any unknown test)."""
    configs = _bzl_dict(bzl_text, "CONFIGS")
    features = []
    for name, config in sorted(configs.items()):
        if not config.get("suites"):
            continue
        suites = tuple(config["suites"])
        nodeids = tuple(n for n in recorded if n.split("::", 1)[0] in suites)
        missing = tuple(
            f"{s}::<unrecorded>" for s in suites if not any(n.startswith(s + "::") for n in nodeids)
        )
        features.append(Feature(f"config_{name}", f"{package}:config_{name}", nodeids + missing))
    return features


def _bzl_dict(text: str, variable: str) -> dict:
    """A `NAME = {...}` JSON literal from a generated .bzl file."""
    import json
    import re

    match = re.search(rf"^{variable} = (\{{.*?^\}})$", text, re.S | re.M)
    if not match:
        raise ValueError(f"no {variable} = {{...}} in the generated targets file")
    return json.loads(match.group(1))


def shard_count(
    estimated_total: float, tests: int, max_leg_seconds: float | None, fixed: int | None, max_shards: int
) -> int:
    """Shards for one feature: `fixed`, or enough to keep legs under the cap;
    never more shards than tests, never fewer than one."""
    if fixed is not None:
        wanted = fixed
    elif max_leg_seconds is not None:
        wanted = math.ceil(estimated_total / max_leg_seconds) if estimated_total > 0 else 1
    else:
        wanted = 1
    return max(1, min(wanted, max_shards, max(tests, 1)))


def build_matrix(
    features: Sequence[Feature],
    recorded: Mapping[str, float],
    *,
    shards: int | None = None,
    max_leg_seconds: float | None = None,
    max_shards: int = 16,
) -> dict:
    """{"include": [leg, ...]} ready for `fromJSON` in a workflow's strategy."""
    legs = []
    for feature in features:
        total = sum(lpt_plan(feature.nodeids, 1, recorded).loads) if feature.nodeids else 0.0
        count = shard_count(total, len(feature.nodeids), max_leg_seconds, shards, max_shards)
        plan = lpt_plan(feature.nodeids, count, recorded) if feature.nodeids else None
        for index in range(count):
            legs.append(
                {
                    "name": f"{feature.name} {index + 1}/{count}",
                    "feature": feature.name,
                    "target": feature.target,
                    "shard_index": index,
                    "shard_total": count,
                    "tests": len(plan.shards[index]) if plan else 0,
                    "estimated_seconds": round(plan.loads[index], 3) if plan else 0.0,
                }
            )
    return {"include": legs}
