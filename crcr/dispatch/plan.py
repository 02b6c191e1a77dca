"""Pure planning: candidate combinations and the legs that test them.

A candidate combines the three things that move independently (DESIGN.md):
backend, PyTorch core and upstream test suite. The primary one is the newest
backend x the core the dispatch names x the suite at dispatch time, so a red
result is attributable to upstream. Other combinations are planned as separate,
non-primary jobs: an older backend release against the same core, or the newest
backend against another pinned core that a Bazel --config selects (e.g.
torch-2.14.1, the next release; such legs need the bazel runner).

Legs split a candidate by feature (testing/config/features.py: one per config
file under configs/ that lists test files, with its directory's device-wide
configs), each optionally cut into N shards run by tools/shard's
duration-balanced plugin.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

from crcr.callback_client.body import leg_job_name
from crcr.callback_client.errors import ConfigError
from crcr.dispatch.event import Dispatch
from testing.config import features as config_features
from testing.config.features import ALL_FEATURE, Feature, Suites, config_suites  # noqa: F401  (re-exported)
from testing.matrix.legs import shard_slots


@dataclass(frozen=True)
class Candidate:
    name: str
    backend: str  # git ref of this repo ("HEAD" = newest)
    core: str  # upstream commit whose core we test (the dispatched one)
    suite: str  # upstream commit the test suite is taken at
    primary: bool
    bazel_config: str = ""  # Bazel --config selecting a pinned core instead ("" = default)


@dataclass(frozen=True)
class Leg:
    index: int
    candidate: Candidate
    feature: str
    configs: tuple[str, ...]  # workspace-relative config paths, feature's own last; () = none
    shard_index: int
    shard_total: int
    job_name: str

    @property
    def config(self) -> Optional[str]:
        """The feature's own config file (None for the catch-all leg)."""
        return self.configs[-1] if self.configs else None

    def matrix_entry(self) -> dict:
        entry = {
            "leg": self.index,
            "job_name": self.job_name,
            "feature": self.feature,
            "configs": " ".join(self.configs),
            "shard_index": self.shard_index,
            "shard_total": self.shard_total,
        }
        entry.update({f"candidate_{k}": v for k, v in asdict(self.candidate).items()})
        return entry


def plan_candidates(
    d: Dispatch, backends: Sequence[str] = ("HEAD",), core_configs: Sequence[str] = ()
) -> list[Candidate]:
    if not backends:
        raise ConfigError("at least one backend ref is needed")
    newest, *older = backends
    out = [Candidate("primary", newest, d.sha, d.sha, True)]
    out += [Candidate(f"backend-{ref}", ref, d.sha, d.sha, False) for ref in older]
    out += [Candidate(f"core-{cfg}", newest, cfg, d.sha, False, cfg) for cfg in core_configs]
    return out


def check_core_configs(configs: Sequence[str], bazelrc: str) -> None:
    """Each --core-config must be a plain name that .bazelrc defines as `build:<name>`."""
    defined = set(re.findall(r"^build:([A-Za-z0-9._-]+)\s", bazelrc, re.MULTILINE))
    for cfg in configs:
        if not re.fullmatch(r"[A-Za-z0-9._-]+", cfg):
            raise ConfigError(f"--core-config {cfg!r}: not a Bazel config name")
        if cfg not in defined:
            raise ConfigError(
                f"--core-config {cfg}: .bazelrc has no build:{cfg} "
                f"(defined: {', '.join(sorted(defined)) or 'none'})"
            )


def discover_features(workspace: Path, extra: Sequence[Path] = ()) -> list[Feature]:
    """(feature name, configs) from configs/ and `extra` directories (testing/config/features.py)."""
    try:
        return config_features.discover_features(workspace, extra)
    except config_features.FeatureError as err:
        raise ConfigError(str(err)) from None


def config_problems(
    workspace: Path, legs: Sequence[Leg], roots: dict[str, str], env: Mapping[str, str]
) -> list:
    """Each leg's configs checked as its run will check them before importing a test
    (testing/plugin/precheck.py), so a config that does not load stops the plan, not a leg:
    the first such one raises ConfigError at its file:line; the warnings (unknown names, with
    the closest) are returned, each once."""
    from testing.plugin import precheck

    found: list = []
    for configs in dict.fromkeys(leg.configs for leg in legs if leg.configs):
        for problem in precheck.config_problems([str(workspace / c) for c in configs], roots, env):
            if problem.severity == "error":
                raise ConfigError(problem.loc, problem.key, problem.message)
            found.append(problem)
    return sorted(dict.fromkeys(found), key=lambda p: (p.loc.file, p.loc.line))


def auto_shards(features: Sequence[Feature], requested: int) -> int:
    """0 = auto: split a lone feature in two so CI legs run side by side."""
    if requested < 0:
        raise ConfigError("--shards must be >= 0 (0 = auto)")
    return requested or (2 if len(features) == 1 else 1)


def plan_legs(
    candidates: Sequence[Candidate], features: Sequence[Feature], shards: int = 1, base: str = "test"
) -> list[Leg]:
    """Every candidate x feature x shard (testing/matrix/legs.py lays the slots out)."""
    if shards < 1:
        raise ConfigError("--shards must be >= 1")
    legs: list[Leg] = []
    slots = shard_slots([Feature(*f) for f in features], lambda _: shards)
    for cand in candidates:
        for (feature, configs, *_), shard, total in slots:
            parts = [] if cand.primary else [cand.name]
            parts += [feature] + ([f"{shard + 1}of{total}"] if total > 1 else [])
            legs.append(
                Leg(len(legs), cand, feature, tuple(configs), shard, total, leg_job_name(base, *parts))
            )
    names = [leg.job_name for leg in legs]
    if len(set(names)) != len(names):  # same-job rule: each leg must be its own HUD row
        raise ConfigError("two legs would share a job_name; rename a config")
    return legs


def matrix(legs: Sequence[Leg]) -> dict:
    """GitHub Actions `strategy.matrix` value (use with fromJSON)."""
    return {"include": [leg.matrix_entry() for leg in legs]}
