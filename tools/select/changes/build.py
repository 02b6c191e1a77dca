"""Build the change map: each feature's leg runs under covplugin (per-test coverage of
torch/**/*.py), its lines are folded onto statements (a line counts for its statement; a
def's signature for the def's callers; lines run outside every test kept apart), and the
repository memory's aten-op index is joined in. Incremental per feature: a feature whose configs and test files
hash as before, on the same core and suite SHA, is taken from the previous map as is.

The legs run through the handler's own pytest command (crcr.handler.runner), so the map
records exactly the tests a leg generates (tools may import crcr; never the reverse).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

from crcr.dispatch.plan import Candidate, Leg
from crcr.handler.runner import Upstream, child_env, leg_suites, pytest_command, run_command
from testing.changes.budget import cannot_fail
from testing.changes.changemap import (
    ChangeMap,
    Feature,
    Function,
    Recorded,
    coverage_of,
    digests,
    map_from_coverage,
)
from testing.config.features import Feature as ConfigFeature
from tools.select.changes import covplugin
from tools.select.changes.spans import body_owner, functions, units

SENTINELS = 2  # per feature: the quickest passing tests, fixed for the map's life
PLUGIN = "tools.select.changes.covplugin"


@dataclass
class Run:
    """One feature's recorded leg."""

    feature: str
    configs: dict[str, Optional[str]]
    test_files: dict[str, Optional[str]]
    tests: dict[str, dict] = field(default_factory=dict)  # id -> {seconds, outcome, mode}
    data_dir: Optional[Path] = None  # holds .coverage (None: coverage off)
    torch_dirs: list[str] = field(default_factory=list)
    wall: float = 0.0
    exit_code: int = 0


def leg_of(f: ConfigFeature, sha: str = "") -> Leg:
    return Leg(0, Candidate("map", "HEAD", sha, sha, True), f.name, tuple(f.configs), 0, 1, f"map-{f.name}")


def roots_of(ws: Path, upstream: Upstream) -> dict[str, Optional[Path]]:
    return {"${REPO_ROOT}": ws, "${TORCH_ROOT}": upstream.root}


def leg_files(leg: Leg, ws: Path, upstream: Upstream) -> tuple[list[Path], list[Path]]:
    """(config paths, test file paths) of a leg, absolute."""
    suites = leg_suites(leg, ws, upstream)
    tests = [Path(p) if Path(p).is_absolute() else ws / p for p in suites.files + suites.upstream]
    return [ws / c for c in leg.configs], tests


def record_leg(
    leg: Leg,
    ws: Path,
    upstream: Upstream,
    out: Path,
    env: Mapping[str, str],
    *,
    coverage: bool = True,
    only: Optional[Path] = None,
    timeout: float = 3600.0,
    pytest_args: Sequence[str] = (),
) -> Run:
    """Run the whole leg (no smoke slice) with per-test recording; coverage optional."""
    out.mkdir(parents=True, exist_ok=True)
    roots = roots_of(ws, upstream)
    configs, tests = leg_files(leg, ws, upstream)
    run = Run(leg.feature, digests(configs, roots), digests(tests, roots))
    extra = ["-p", PLUGIN, *pytest_args] + (["--oot-only", str(only)] if only else [])
    argv = pytest_command(leg, ws, out / "junit.xml", None, extra, smoke=1, upstream=upstream)
    child = child_env(ws, env, upstream.core_path)
    child.update(
        {
            covplugin.OUT_ENV: str(out),
            covplugin.ROOTS_ENV: json.dumps({k: str(v) for k, v in roots.items() if v}),
        }
    )
    if not coverage:
        child[covplugin.OFF_ENV] = "1"
    started = time.perf_counter()
    run.exit_code, _ = run_command(argv, ws, child, timeout, out / "pytest.log")
    run.wall = time.perf_counter() - started
    try:
        rec = json.loads((out / "tests.json").read_text())
    except (OSError, ValueError):
        rec = {"tests": {}, "torch_dirs": []}
    run.tests, run.torch_dirs = rec["tests"], rec["torch_dirs"]
    run.data_dir = out if coverage and (out / ".coverage").exists() else None
    return run


# ---------------------------------------------------------------- coverage -> lines
class Functions:
    """The map's function table (defs whose body ran), filled file by file."""

    def __init__(self) -> None:
        self.tested: dict[tuple[str, str, int, int], bool] = {}

    def add(self, file: str, name: str, start: int, end: int, tested: bool) -> None:
        key = (file, name, start, end)
        self.tested[key] = self.tested.get(key, False) or tested

    def table(self) -> tuple[Function, ...]:
        return tuple(Function(*key, tested) for key, tested in sorted(self.tested.items()))


def torch_rel(path: str, torch_dirs: Sequence[str]) -> Optional[str]:
    for d in torch_dirs:
        base = d.rstrip(os.sep) + os.sep
        if path.startswith(base):
            return "torch/" + path[len(base) :]
    return None


FileLines = dict[int, set[str]]  # line -> ids of the tests that executed it


def fold_file(
    source: str, by_line: Mapping[int, Sequence[str]], tests: Mapping[str, object]
) -> tuple[FileLines, set[int], list[tuple[str, int, int, bool]]]:
    """One file's coverage contexts -> (line -> tests, lines run outside every test, the defs
    whose body ran as (name, start, end, a test ran it)). A line counts for its statement;
    a def's signature counts as executed by the tests that ran its body."""
    spans = functions(source)
    if not spans:
        return {}, set(), []
    owner, u = body_owner(spans), units(source, spans)
    per_unit: dict[tuple[int, int], set[str]] = {}
    at_import: set[tuple[int, int]] = set()
    own: dict[int, set[str]] = {}  # def -> tests that ran its own body
    ran: set[int] = set()
    for line, contexts in by_line.items():
        unit = u.unit.get(line, (line, line))
        i = owner[line] if 0 <= line < len(owner) else 0
        ran.add(i)
        for ctx in contexts:
            if ctx in tests:
                per_unit.setdefault(unit, set()).add(ctx)
                own.setdefault(i, set()).add(ctx)
            elif not ctx and unit not in u.signature:
                at_import.add(unit)
    for unit, i in u.signature.items():
        if own.get(i):
            per_unit.setdefault(unit, set()).update(own[i])
    lines: FileLines = {}
    for (a, b), ids in per_unit.items():
        for line in range(a, b + 1):
            lines.setdefault(line, set()).update(ids)
    defs = [(spans[i].name, spans[i].start, spans[i].end, bool(own.get(i))) for i in sorted(ran) if i]
    return lines, {ln for a, b in at_import for ln in range(a, b + 1)}, defs


def fold_coverage(run: Run, fns: Functions) -> tuple[dict[str, FileLines], dict[str, set[int]]]:
    """(core file -> line -> tests, core file -> lines executed outside every test)."""
    from coverage import CoverageData

    data = CoverageData(basename=str(run.data_dir / ".coverage"))
    data.read()
    per_file: dict[str, FileLines] = {}
    outside: dict[str, set[int]] = {}
    for path in data.measured_files():
        rel = torch_rel(path, run.torch_dirs)
        if rel is None or not rel.endswith(".py"):
            continue
        try:
            source = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        lines, imports, defs = fold_file(source, data.contexts_by_lineno(path), run.tests)
        for name, start, end, tested in defs:
            fns.add(rel, name, start, end, tested)
        if lines:
            per_file[rel] = lines
        if imports:
            outside[rel] = imports
    return per_file, outside


def ops_from_memory(memory: Optional[Path], test_ids: Sequence[str]) -> Optional[dict[str, frozenset[str]]]:
    """test id -> aten ops from the repository memory's op index (None: no memory).
    The index keys generic tests (`file::Class::test`, variant = op); a generated test
    `test_x_<op>_<device>_<dtype>` matches by prefix."""
    if not memory or not memory.is_file():
        return None
    db = sqlite3.connect(f"file:{memory}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT op, test_id, variant FROM op_index").fetchall()
    except sqlite3.DatabaseError:
        return None
    finally:
        db.close()
    index: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for op, tid, variant in rows:
        file, _, rest = tid.partition("::")
        cls, _, test = rest.partition("::")
        index.setdefault((os.path.basename(file), cls), []).append((test, variant or "", op))
    out = {}
    for tid in test_ids:
        file, cls, name = tid.split("::")
        ops = {
            op
            for test, variant, op in index.get((os.path.basename(file), cls), ())
            if name.startswith(f"{test}_{variant.replace('.', '_')}_" if variant else f"{test}_")
            or name == test
        }
        out[tid] = frozenset(ops)
    return out


def sentinels(run: Run) -> tuple[str, ...]:
    """The quickest passing tests that can fail the leg (an xfail test's XPASS passes too)."""
    passing = [
        (r["seconds"], t)
        for t, r in run.tests.items()
        if r.get("outcome") == "passed" and not cannot_fail(str(r.get("mode") or ""))
    ]
    return tuple(t for _, t in sorted(passing)[:SENTINELS])


def assemble(
    runs: Sequence[Run],
    *,
    torch_version: str,
    git_version: str,
    suite_sha: str,
    memory: Optional[Path] = None,
    previous: Optional[ChangeMap] = None,
) -> ChangeMap:
    fns = Functions()
    coverage: dict[str, dict[str, FileLines]] = {}
    imports: dict[str, set[int]] = {}
    features: dict[str, Feature] = {}
    ops = ops_from_memory(memory, [t for r in runs for t in r.tests])
    carried = coverage_of(previous) if previous else ({}, {})
    for run in runs:
        if run.data_dir is None and previous and run.feature in previous.features:
            # reused: its coverage, the lines run at import and the defs, as recorded
            coverage[run.feature] = carried[0].get(run.feature, {})
            for file, lines in carried[1].items():
                imports.setdefault(file, set()).update(lines)
            for f in previous.functions:
                fns.add(f.file, f.name, f.start, f.end, f.tested)
            features[run.feature] = previous.features[run.feature]
            continue
        per_file, outside = fold_coverage(run, fns) if run.data_dir else ({}, {})
        coverage[run.feature] = per_file
        for file, lines in outside.items():
            imports.setdefault(file, set()).update(lines)
        tests = {
            t: Recorded(float(r["seconds"]), (ops or {}).get(t, frozenset()), str(r.get("mode") or ""))
            for t, r in run.tests.items()
        }
        features[run.feature] = Feature(
            {k: v for k, v in run.configs.items() if v},
            {k: v for k, v in run.test_files.items() if v},
            tests,
            sentinels(run),
        )
    return map_from_coverage(
        coverage,
        imports,
        torch_version=torch_version,
        core_git_version=git_version,
        suite_sha=suite_sha,
        functions=fns.table(),
        features=features,
        ops_recorded=ops is not None,
        built_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )


def unchanged(
    prev: Optional[ChangeMap], feature: str, configs: dict, test_files: dict, core: tuple[str, str, str]
) -> bool:
    """The previous map's entry for this feature still holds (incremental build)."""
    if prev is None or (prev.torch_version, prev.core_git_version, prev.suite_sha) != core:
        return False
    feat = prev.features.get(feature)
    return (
        feat is not None
        and dict(feat.configs) == {k: v for k, v in configs.items() if v}
        and all(feat.test_files.get(k) == v for k, v in test_files.items() if v)
    )


def build(
    legs: Sequence[Leg],
    ws: Path,
    upstream: Upstream,
    out_dir: Path,
    env: Mapping[str, str],
    *,
    torch_version: str,
    git_version: str,
    memory: Optional[Path] = None,
    previous: Optional[ChangeMap] = None,
    coverage: bool = True,
    progress: Callable[[str], None] = lambda _: None,
) -> tuple[ChangeMap, list[Run]]:
    runs = []
    core = (torch_version, git_version, upstream.sha)
    for leg in legs:
        configs, tests = leg_files(leg, ws, upstream)
        roots = roots_of(ws, upstream)
        cd, td = digests(configs, roots), digests(tests, roots)
        if coverage and unchanged(previous, leg.feature, cd, td, core):
            progress(f"{leg.feature}: unchanged since the previous map, reused")
            runs.append(Run(leg.feature, cd, td))
            continue
        progress(
            f"{leg.feature}: running {len(tests)} test files with coverage={'on' if coverage else 'off'}"
        )
        run = record_leg(leg, ws, upstream, out_dir / leg.feature, env, coverage=coverage)
        progress(f"{leg.feature}: {len(run.tests)} tests in {run.wall:.1f}s (exit {run.exit_code})")
        runs.append(run)
    m = assemble(
        runs,
        torch_version=torch_version,
        git_version=git_version,
        suite_sha=upstream.sha,
        memory=memory,
        previous=previous,
    )
    return m, runs
