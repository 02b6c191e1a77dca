"""configs/ as features: which configs a leg or a generated target runs, and their names.

A config that lists test files is a feature; one without `files` holds device-wide
settings (configs/<device>/device.yaml) and is passed along with every feature of its
directory; a directory with only such files is one feature. The names:

* feature (CI leg, HUD row): the directory parts and the stem joined by '-'
  (configs/spyre/nn.yaml -> `spyre-nn`);
* generated Bazel target: `config_<key>` (runs.py: `config_spyre_nn`, testing/targets).

Reading a config here never fails: a broken file counts as a feature, and whoever runs or
plans it reports it with file:line (`dispatch_handler` checks every leg's configs before it
plans one: testing/plugin/precheck.py).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

from testing.base.errors import ConfigError, OotError
from testing.config.load import read_yaml
from testing.config.paths import REPO_ROOT, TORCH_ROOT, files_under, split_root

CONFIG_DIR = "configs"
ALL_FEATURE = "all"


def _body(path: Path):
    """The test_suite_config mapping (None: not a mapping); raises ConfigError when unreadable."""
    raw, _ = read_yaml(path)
    return raw.get("test_suite_config", raw) if isinstance(raw, dict) else None


def file_paths(path: Path) -> list[str]:
    """The `path` of each files entry of a config, as written ([] when unreadable)."""
    try:
        body = _body(path)
    except ConfigError:
        return []
    entries = body.get("files") if isinstance(body, dict) else None
    return [
        e["path"]
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict) and isinstance(e.get("path"), str)
    ]


def lists_files(path: Path) -> bool:
    """Does this config select test files (a feature), or only set device-wide globals?"""
    try:
        body = _body(path)
    except ConfigError:
        return True  # a feature: its check (precheck.py) reports the error with file:line
    if body is None:
        return True
    return isinstance(body, dict) and bool(body.get("files"))


def suite_configs(device_dir: Path) -> list[str]:
    """The configs of one device directory (configs/<device>) that run the in-tree suites, in
    merge order: device-wide ones first, then those listing files; model-op configs (whose
    files are the model-op suite, each model its own target) left out. The one set the
    adapter parity test and the native benchmark run."""
    configs = [p for p in config_files(device_dir) if p.parent == device_dir]
    wide = [p for p in configs if not lists_files(p)]
    suites = [
        p
        for p in configs
        if lists_files(p) and not all("test_model_ops" in f for f in file_paths(p) or ["-"])
    ]
    return [str(p) for p in wide + suites]


@dataclass(frozen=True)
class Suites:
    """Test files a feature config lists, resolved: in-tree (`${REPO_ROOT}/...`, workspace-
    relative) and upstream (`${TORCH_ROOT}/...`, against the checkout); `missing` are upstream
    entries the checkout lacks (or all of them when there is no checkout)."""

    files: tuple[str, ...] = ()
    upstream: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


def config_suites(workspace: Path, config: str, torch_root: Optional[Path] = None) -> Suites:
    """Resolve a config's `files` entries (globs allowed) to paths for pytest."""
    files: list[str] = []
    upstream: list[str] = []
    missing: list[str] = []
    for path in file_paths(workspace / config):
        root, rel = split_root(path)
        if root == REPO_ROOT:
            files += [str(hit.relative_to(workspace)) for hit in files_under(workspace, rel)]
        elif root == TORCH_ROOT:
            hits = files_under(torch_root, rel) if torch_root else []
            upstream += [str(hit) for hit in hits]
            if not hits:
                missing.append(rel)
    return Suites(tuple(dict.fromkeys(files)), tuple(dict.fromkeys(upstream)), tuple(missing))


class Feature(NamedTuple):
    """A unit CI runs on its own (a leg's row, before sharding): the one feature type of the
    CRCR handler's plan and the shard matrix (testing/matrix). A tuple, so callers may also
    write features as plain (name, configs) pairs."""

    name: str
    configs: tuple[str, ...]  # workspace-relative (else absolute) config paths, the feature's own last
    target: str = ""  # what a leg runs when it is not pytest over `configs` (e.g. a Bazel label)
    tests: tuple[str, ...] = ()  # its known node ids, for duration-balanced shard counts

    @property
    def config(self) -> Optional[str]:
        """The feature's own config (None for the catch-all)."""
        return self.configs[-1] if self.configs else None


class FeatureError(OotError, ValueError):
    """A bad feature source (e.g. an --extra-configs directory that is not one)."""


def _rel(workspace: Path, path: Path) -> str:
    """Workspace-relative when inside it (as the matrix shows them), else absolute."""
    try:
        return str(path.relative_to(workspace))
    except ValueError:
        return str(path)


def config_files(root: Path) -> list[Path]:
    """Every config YAML under root (schema/ holds JSON only and is skipped)."""
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.suffix in (".yaml", ".yml") and p.is_file() and "schema" not in p.relative_to(root).parts
    )


def _device_wide(workspace: Path, root: Path) -> dict[Path, tuple[str, ...]]:
    """{directory relative to root: its configs without `files`} (device-wide settings)."""
    found: dict[Path, tuple[str, ...]] = {}
    for p in config_files(root):
        if not lists_files(p):
            rel = p.parent.relative_to(root)
            found[rel] = found.get(rel, ()) + (_rel(workspace, p),)
    return found


def _features_under(
    workspace: Path, root: Path, name_root: Path, inherit: Optional[dict[Path, tuple[str, ...]]] = None
) -> list[Feature]:
    groups: dict[Path, list[Path]] = {}
    for p in config_files(root):
        groups.setdefault(p.parent, []).append(p)
    features: list[Feature] = []
    for directory, members in sorted(groups.items()):
        prefix = "-".join(directory.relative_to(name_root).parts)
        shared = (inherit or {}).get(directory.relative_to(root), ()) + tuple(
            _rel(workspace, p) for p in members if not lists_files(p)
        )
        own = [p for p in members if lists_files(p)]
        for p in own:
            features.append(Feature("-".join(filter(None, [prefix, p.stem])), shared + (_rel(workspace, p),)))
        if not own and shared:
            features.append(Feature(prefix or ALL_FEATURE, shared))
    return features


def discover_features(workspace: Path, extra: Sequence[Path] = ()) -> list[Feature]:
    """Features from configs/**/*.yaml; one catch-all if none.

    `extra` config directories (e.g. the generated upstream fixture's) add features
    named after the directory (<dir>/spyre/nn.yaml -> `<dir>-spyre-nn`); their
    subdirectories inherit the device-wide configs of the same directory under
    configs/ (<dir>/spyre/ gets configs/spyre/device.yaml).
    """
    root = workspace / CONFIG_DIR
    features = _features_under(workspace, root, root)
    inherit = _device_wide(workspace, root)
    for directory in extra:
        if not directory.is_dir():
            raise FeatureError(f"--extra-configs {directory}: not a directory")
        features += _features_under(workspace, directory, directory.parent, inherit)
    return features or [Feature(ALL_FEATURE, ())]
