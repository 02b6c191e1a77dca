"""Pure planning: candidate combinations and the legs that test them.

A candidate combines the three things that move independently (DESIGN.md):
backend, PyTorch core and upstream test suite. The primary one is the newest
backend x the core the dispatch names x the suite at dispatch time, so a red
result is attributable to upstream. Other combinations are planned as separate,
non-primary jobs: an older backend release against the same core, or the newest
backend against another pinned core that a Bazel --config selects (e.g.
torch-2.14.1, the next release; such legs need the bazel runner).

Legs split a candidate by feature: one per config file under configs/ that
lists test files, each optionally cut into N shards run by tools/shard's
duration-balanced plugin. Config files without `files` (device-wide settings
such as configs/<device>/device.yaml) are passed to every leg of their
directory; a directory with only such files is one feature.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional, Sequence

import yaml

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


def _config_body(path: Path):
    doc = yaml.safe_load(path.read_text())
    return doc.get("test_suite_config", doc) if isinstance(doc, dict) else None


@dataclass(frozen=True)
class Suites:
    """Test files a feature config lists, resolved: in-tree (`${REPO_ROOT}/...`) and
    upstream (`${TORCH_ROOT}/...`, against the checkout); `missing` are upstream
    entries the checkout lacks (or all of them when there is no checkout)."""

    files: tuple[str, ...] = ()
    upstream: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


def _expand(base: Path, pattern: str) -> list[Path]:
    if any(c in pattern for c in "*?["):
        return sorted(base.glob(pattern))
    return [base / pattern] if (base / pattern).exists() else []


def config_suites(workspace: Path, config: str, torch_root: Optional[Path] = None) -> Suites:
    """Resolve a config's `files` entries (globs allowed) to paths for pytest."""
    try:
        body = _config_body(workspace / config)
    except (OSError, yaml.YAMLError):
        return Suites()
    entries = body.get("files") if isinstance(body, dict) else None
    files: list[str] = []
    upstream: list[str] = []
    missing: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        path = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(path, str):
            continue
        if path.startswith("${REPO_ROOT}/"):
            files += [
                str(hit.relative_to(workspace)) for hit in _expand(workspace, path[len("${REPO_ROOT}/") :])
            ]
        elif path.startswith("${TORCH_ROOT}/"):
            rel = path[len("${TORCH_ROOT}/") :]
            hits = _expand(torch_root, rel) if torch_root else []
            upstream += [str(hit) for hit in hits]
            if not hits:
                missing.append(rel)
    return Suites(tuple(dict.fromkeys(files)), tuple(dict.fromkeys(upstream)), tuple(missing))


def lists_files(path: Path) -> bool:
    """Does this config select test files (a feature), or only set device-wide globals?"""
    try:
        body = _config_body(path)
    except (OSError, yaml.YAMLError):
        return True  # let the plugin report the error, with file:line, inside its leg
    if body is None:
        return True
    return isinstance(body, dict) and bool(body.get("files"))


Feature = tuple[str, tuple[str, ...]]


def _rel(workspace: Path, path: Path) -> str:
    """Workspace-relative when inside it (as the matrix shows them), else absolute."""
    try:
        return str(path.relative_to(workspace))
    except ValueError:
        return str(path)


def _config_files(root: Path) -> list[Path]:
    return (
        sorted(
            p
            for p in root.rglob("*")
            if p.suffix in (".yaml", ".yml") and p.is_file() and "schema" not in p.relative_to(root).parts
        )
        if root.is_dir()
        else []
    )


def _device_wide(workspace: Path, root: Path) -> dict[Path, tuple[str, ...]]:
    """{directory relative to root: its configs without `files`} (device-wide settings)."""
    found: dict[Path, tuple[str, ...]] = {}
    for p in _config_files(root):
        if not lists_files(p):
            rel = p.parent.relative_to(root)
            found[rel] = found.get(rel, ()) + (_rel(workspace, p),)
    return found


def _features_under(
    workspace: Path, root: Path, name_root: Path, inherit: Optional[dict[Path, tuple[str, ...]]] = None
) -> list[Feature]:
    files = _config_files(root)
    groups: dict[Path, list[Path]] = {}
    for p in files:
        groups.setdefault(p.parent, []).append(p)
    features: list[Feature] = []
    for directory, members in sorted(groups.items()):
        prefix = "-".join(directory.relative_to(name_root).parts)
        shared = (inherit or {}).get(directory.relative_to(root), ()) + tuple(
            _rel(workspace, p) for p in members if not lists_files(p)
        )
        own = [p for p in members if lists_files(p)]
        for p in own:
            features.append(("-".join(filter(None, [prefix, p.stem])), shared + (_rel(workspace, p),)))
        if not own and shared:
            features.append((prefix or ALL_FEATURE, shared))
    return features


def discover_features(workspace: Path, extra: Sequence[Path] = ()) -> list[Feature]:
    """(feature name, configs) from configs/**/*.yaml (schema/ excluded); one catch-all if none.

    `extra` config directories (e.g. the generated upstream fixture's) add features
    named after the directory (<dir>/spyre/nn.yaml -> `<dir>-spyre-nn`); their
    subdirectories inherit the device-wide configs of the same directory under
    configs/ (<dir>/spyre/ gets configs/spyre/device.yaml).
    """
    root = workspace / "configs"
    features = _features_under(workspace, root, root)
    inherit = _device_wide(workspace, root)
    for directory in extra:
        if not directory.is_dir():
            raise ConfigError(f"--extra-configs {directory}: not a directory")
        features += _features_under(workspace, directory, directory.parent, inherit)
    return features or [(ALL_FEATURE, ())]


def auto_shards(features: Sequence[Feature], requested: int) -> int:
    """0 = auto: split a lone feature in two so CI legs run side by side."""
    if requested < 0:
        raise ConfigError("--shards must be >= 0 (0 = auto)")
    return requested or (2 if len(features) == 1 else 1)


def plan_legs(
    candidates: Sequence[Candidate], features: Sequence[Feature], shards: int = 1, base: str = "test"
) -> list[Leg]:
    if shards < 1:
        raise ConfigError("--shards must be >= 1")
    legs: list[Leg] = []
    for cand in candidates:
        for feature, configs in features:
            for shard in range(shards):
                parts = [] if cand.primary else [cand.name]
                parts += [feature] + ([f"{shard + 1}of{shards}"] if shards > 1 else [])
                legs.append(
                    Leg(len(legs), cand, feature, tuple(configs), shard, shards, leg_job_name(base, *parts))
                )
    names = [leg.job_name for leg in legs]
    if len(set(names)) != len(names):  # same-job rule: each leg must be its own HUD row
        raise ConfigError("two legs would share a job_name; rename a config")
    return legs


def matrix(legs: Sequence[Leg]) -> dict:
    """GitHub Actions `strategy.matrix` value (use with fromJSON)."""
    return {"include": [leg.matrix_entry() for leg in legs]}
