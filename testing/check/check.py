"""Check configs with every rule the plugin applies, without running a test.

Configs are checked in sets, as they run: a config that lists test files together with the
device-wide configs of its directory (testing/config/features.py: `configs/spyre/nn.yaml`
with `configs/spyre/device.yaml`). For each set:

1. the plan is loaded in process (testing/plugin/plan.py): a config that does not load
   (unknown key, bad value, YAML syntax, unset ${TORCH_ROOT}) is an error at its file:line;
2. otherwise the adaptation plugin collects the set's test files (`pytest --collect-only`,
   a subprocess: collection imports torch and patches it) with testing/check/collect.py
   loaded, which writes every problem the plugin found: unknown ops, dtypes, modules and
   tests (with the closest known names), what the device's capabilities lack, entries that
   select nothing, hygiene notes, files that fail to import.

Findings are deduplicated across sets (a device config is in every set of its directory).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable, Optional, Sequence

from testing.base.errors import Loc, OotError
from testing.config import features, runs
from testing.config.paths import REPO_ROOT, default_roots
from testing.plugin import precheck
from testing.plugin.problems import Problem as Finding  # the plugin's own, plus severity 'error'

ERROR, WARNING, HYGIENE = "error", "warning", "hygiene"
COLLECT_PLUGIN = "testing.check.collect"


class CheckError(OotError, ValueError):
    """A bad argument (a path that is no config or directory): one line, exit 2."""


# ---------------------------------------------------------------- which sets


def config_sets(paths: Sequence[Path]) -> list[tuple[Path, ...]]:
    """The sets to check for config files and directories: each config that lists files with
    the device-wide configs of its directory (first, as runs pass them); a directory with
    only device-wide configs is one set. A set inside another one is left out: the larger
    run meets all of its problems (device.yaml is checked with each feature of its directory)."""
    sets: list[tuple[Path, ...]] = []
    for path in paths:
        if path.is_dir():
            configs = features.config_files(path)
        elif path.is_file() and path.suffix in (".yaml", ".yml"):
            configs = [path]
        else:
            raise CheckError(f"{path}: not a config file (.yaml) or a directory")
        for config in configs:
            base = [p for p in features.config_files(config.parent) if p.parent == config.parent]
            shared = tuple(p for p in base if not features.lists_files(p))
            sets.append(shared if config in shared else shared + (config,))
    unique = list(dict.fromkeys(sets))
    return [s for s in unique if not any(set(s) < set(other) for other in unique)]


# ---------------------------------------------------------------- one set


def _suites(workspace: Path, configs: Sequence[Path], upstream_root: Optional[str]) -> list[str]:
    torch_root = Path(upstream_root) if upstream_root else None
    found: list[str] = []
    for config in configs:
        suites = features.config_suites(workspace, str(config), torch_root)
        found += [str(workspace / f) for f in suites.files] + list(suites.upstream)
    return list(dict.fromkeys(found))


def _collect(
    workspace: Path, configs: Sequence[Path], suites: list[str], upstream_root: Optional[str]
) -> list[Finding]:
    """The plugin's own findings over the set's test files (configure and collection)."""
    with tempfile.TemporaryDirectory(prefix="oot-check-") as tmp:
        out = Path(tmp) / "problems.json"
        empty = Path(tmp) / "no-tests"  # a set without test files: only configure-time rules
        empty.mkdir()
        cmd = runs.PytestCommand(
            paths=suites or [str(empty)],
            plugins=[runs.PLUGIN, COLLECT_PLUGIN],
            configs=[str(c) for c in configs],
            extra=[f"--check-out={out}"],
            quiet=True,
            cache=False,
            collect_only=True,
            upstream_root=upstream_root,
            rootdir=str(workspace),
        ).argv()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(workspace)] + sys.path))
        env[REPO_ROOT] = str(workspace)  # ${REPO_ROOT} is the workspace whose configs are checked
        proc = subprocess.run(cmd, cwd=workspace, env=env, capture_output=True, text=True)
        if not out.exists():
            return [_crash(configs, proc)]
        data = json.loads(out.read_text(encoding="utf-8"))
    found = [Finding.from_json(p) for p in data["problems"]]
    found += [
        Finding(Loc(e["file"], 0), "", f"collection error: {e['message']}", ERROR)
        for e in data["collection_errors"]
    ]
    # a file needing a name the harness in use lacks: not the config's error, but it runs nothing
    found += [Finding(Loc(d["file"], 0), "", d["line"], WARNING) for d in data.get("harness_drift", ())]
    return found


def _crash(configs: Sequence[Path], proc: subprocess.CompletedProcess) -> Finding:
    """The plugin stopped before the end (a backend that does not import, say): its last line."""
    lines = [x.strip() for x in (proc.stderr + proc.stdout).splitlines() if x.strip()]
    last = next((x for x in reversed(lines) if x.startswith("ERROR:")), lines[-1] if lines else "no output")
    return Finding(
        Loc(str(configs[-1]), 0), "", f"the plugin stopped (exit {proc.returncode}): {last}", ERROR
    )


def check_set(workspace: Path, configs: Sequence[Path], upstream_root: Optional[str] = None) -> list[Finding]:
    """Every finding for one set of configs, as the plugin run of that set would meet them."""
    roots = dict(default_roots(upstream_root), **{REPO_ROOT: str(workspace)})
    failed = precheck.load_error([str(c) for c in configs], roots)
    if failed is not None:
        return [failed]
    return _collect(workspace, configs, _suites(workspace, configs, upstream_root), upstream_root)


def check(
    workspace: Path, paths: Sequence[Path], upstream_root: Optional[str] = None, progress=None
) -> tuple[list[tuple[Path, ...]], list[Finding]]:
    """(the sets checked, their findings in file:line order, each once)."""
    sets = config_sets(paths)

    def one(i: int, configs: tuple[Path, ...]) -> list[Finding]:
        if progress:
            progress(i, len(sets), configs)
        return check_set(workspace, configs, upstream_root)

    # Each set is a subprocess that mostly computes (torch, op_db): one per core at a time.
    with ThreadPoolExecutor(max_workers=max(1, min(len(sets), os.cpu_count() or 1))) as pool:
        found = [f for part in pool.map(one, range(1, len(sets) + 1), sets) for f in part]
    return sets, ordered(found)


def ordered(found: Iterable[Finding]) -> list[Finding]:
    return sorted(set(found), key=lambda f: (f.loc.file, f.loc.line, f.key, f.message))
