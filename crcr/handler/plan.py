"""Pure planning: candidate combinations and the legs that test them.

A candidate combines the three things that move independently (DESIGN.md):
backend, PyTorch core and upstream test suite. The primary one is the newest
backend x the core the dispatch names x the suite at dispatch time, so a red
result is attributable to upstream. Other combinations (an older backend
release against the same core) are planned as separate, non-primary jobs.

Legs split a candidate by feature: one per top-level configs/*.yaml, each
optionally cut into N shards run by tools/shard's duration-balanced plugin.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional, Sequence

from crcr.body import leg_job_name
from crcr.dispatch import Dispatch
from crcr.errors import ConfigError

ALL_FEATURE = "all"


@dataclass(frozen=True)
class Candidate:
    name: str
    backend: str  # git ref of this repo ("HEAD" = newest)
    core: str  # upstream commit whose core we test (the dispatched one)
    suite: str  # upstream commit the test suite is taken at
    primary: bool


@dataclass(frozen=True)
class Leg:
    index: int
    candidate: Candidate
    feature: str
    config: Optional[str]  # workspace-relative configs/<feature>.yaml, None = no config
    shard_index: int
    shard_total: int
    job_name: str

    def matrix_entry(self) -> dict:
        entry = {"leg": self.index, "job_name": self.job_name, "feature": self.feature,
                 "config": self.config or "", "shard_index": self.shard_index, "shard_total": self.shard_total}
        entry.update({f"candidate_{k}": v for k, v in asdict(self.candidate).items()})
        return entry


def plan_candidates(d: Dispatch, backends: Sequence[str] = ("HEAD",)) -> list[Candidate]:
    if not backends:
        raise ConfigError("at least one backend ref is needed")
    newest, *older = backends
    out = [Candidate("primary", newest, d.sha, d.sha, True)]
    out += [Candidate(f"backend-{ref}", ref, d.sha, d.sha, False) for ref in older]
    return out


def discover_features(workspace: Path) -> list[tuple[str, Optional[str]]]:
    """(feature, config path) per top-level configs/*.yaml; one catch-all leg if none."""
    configs = sorted((workspace / "configs").glob("*.yaml")) + sorted((workspace / "configs").glob("*.yml"))
    found = [(p.stem, str(p.relative_to(workspace))) for p in configs if p.is_file()]
    return found or [(ALL_FEATURE, None)]


def plan_legs(candidates: Sequence[Candidate], features: Sequence[tuple[str, Optional[str]]],
              shards: int = 1, base: str = "test") -> list[Leg]:
    if shards < 1:
        raise ConfigError("--shards must be >= 1")
    legs: list[Leg] = []
    for cand in candidates:
        for feature, config in features:
            for shard in range(shards):
                parts = [] if cand.primary else [cand.name]
                parts += [feature] + ([f"{shard + 1}of{shards}"] if shards > 1 else [])
                legs.append(Leg(len(legs), cand, feature, config, shard, shards, leg_job_name(base, *parts)))
    names = [leg.job_name for leg in legs]
    if len(set(names)) != len(names):  # same-job rule: each leg must be its own HUD row
        raise ConfigError("two legs would share a job_name; rename a config")
    return legs


def matrix(legs: Sequence[Leg]) -> dict:
    """GitHub Actions `strategy.matrix` value (use with fromJSON)."""
    return {"include": [leg.matrix_entry() for leg in legs]}
