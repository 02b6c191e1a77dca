"""The one matrix planner: legs per (feature, shard), below both crcr and tools.

The CRCR handler's plan (crcr/dispatch/plan.py) lays its legs out with `shard_slots`;
tools/shard's `matrix` command builds GitHub Actions matrix JSON with `build_matrix`.
Features are testing.config.features.Feature (the one feature type).

A feature is a unit CI runs on its own (a config file or a generated target);
configs/ is read through the config contract (testing/config), never through the
generated configs.bzl.
Its shard count is either fixed or chosen from a duration cap, so a slow
feature is split until each of its legs fits the cap.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Mapping, Sequence, TypeVar

from testing.config import features, runs
from testing.config.features import Feature
from testing.matrix.lpt import lpt_plan

T = TypeVar("T")


def generated_features(workspace: Path, recorded: Mapping[str, float]) -> list[Feature]:
    """One feature per generated config target (`//testing:config_<key>`, testing/config/runs.py)
    of every config under configs/ that lists in-tree suites.

    A config target runs whole suites, so its tests are the recorded tests
    of those files; a suite with nothing recorded yet gets one placeholder
    per file (estimated like any unknown test)."""
    out = []
    for path in features.config_files(workspace / features.CONFIG_DIR):
        config = path.relative_to(workspace).as_posix()
        suites = features.config_suites(workspace, config).files
        if not suites:
            continue
        nodeids = tuple(n for n in recorded if n.split("::", 1)[0] in suites)
        missing = tuple(
            f"{s}::<unrecorded>" for s in suites if not any(n.startswith(s + "::") for n in nodeids)
        )
        out.append(
            Feature(runs.config_target_name(config), (config,), runs.config_target(config), nodeids + missing)
        )
    return sorted(out, key=lambda f: f.name)


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


def shard_slots(features: Sequence[T], count: Callable[[T], int]) -> list[tuple[T, int, int]]:
    """(feature, shard index, shard total) for every leg: each feature cut into count(feature)
    shards, in feature order. The one leg expansion: the CRCR handler's plan (crcr/handler/
    plan.py) and this matrix both lay their legs out through it."""
    slots = []
    for feature in features:
        total = count(feature)
        if total < 1:
            raise ValueError(f"shard count for {feature!r} must be >= 1, not {total}")
        slots += [(feature, index, total) for index in range(total)]
    return slots


def build_matrix(
    features: Sequence[Feature],
    recorded: Mapping[str, float],
    *,
    shards: int | None = None,
    max_leg_seconds: float | None = None,
    max_shards: int = 16,
) -> dict:
    """{"include": [leg, ...]} ready for `fromJSON` in a workflow's strategy."""
    plans = {}

    def sized(feature: Feature) -> int:
        total = sum(lpt_plan(feature.tests, 1, recorded).loads) if feature.tests else 0.0
        n = shard_count(total, len(feature.tests), max_leg_seconds, shards, max_shards)
        plans[feature.name] = lpt_plan(feature.tests, n, recorded) if feature.tests else None
        return n

    legs = []
    for feature, index, count in shard_slots(features, sized):
        plan = plans[feature.name]
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
