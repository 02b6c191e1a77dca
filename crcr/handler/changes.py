"""Change-aware selection at dispatch: the dispatch's diff and the change map (read through
testing/changes, never tools/) -> which tests each leg runs, and the one line saying so.

Pull requests select by default (base..head); pushes and nightlies run full unless
`--select-on` (or $CRCR_SELECT_ON) names them. The tests a change reaches are capped at a
ranked share of each leg's recorded time (`--select-budget`, $CRCR_SELECT_BUDGET, default
25 %: testing/changes/budget.py), and the line says when that cut and by how much. Whatever cannot be worked out (no map, a
corrupt one, no diff) runs the leg full and says why in one line: nothing is skipped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from crcr.dispatch.event import Dispatch
from crcr.dispatch.plan import Leg
from crcr.handler.runner import Upstream, leg_suites
from crcr.upstream.gitcmd import UpstreamError
from testing.changes.changemap import ChangeMap, ChangeMapError, digests, read_map
from testing.changes.decide import NATIVE_YAML, Selection, full_leg, select_tests
from testing.changes.diff import DiffError, FileChange, parse_diff, rebase
from testing.changes.only import resolve, write_only


@dataclass
class DispatchChanges:
    """Read once per dispatch: the map and the diff; `why` says why legs run full instead."""

    m: Optional[ChangeMap] = None
    changes: list[FileChange] = field(default_factory=list)
    file_level: str = ""
    why: str = ""
    widened: str = ""  # the stale-map note, when the diff was widened
    budget: Optional[float] = None  # share of a leg's recorded time the reached tests may take

    def for_leg(self, leg: Leg, ws: Path, upstream: Upstream) -> Selection:
        if self.why or self.m is None:
            return full_leg(leg.feature, self.why or "no change map")
        suites = leg_suites(leg, ws, upstream)
        tests = [Path(p) if Path(p).is_absolute() else ws / p for p in suites.files + suites.upstream]
        roots = {"${REPO_ROOT}": ws, "${TORCH_ROOT}": upstream.root}
        configs = digests([ws / c for c in leg.configs], roots)
        s = select_tests(
            self.m,
            leg.feature,
            self.changes,
            digests(tests, roots),
            configs,
            file_level=self.file_level,
            budget=self.budget,
        )
        if self.widened and not s.full:
            s = Selection(**{**s.__dict__, "reasons": (self.widened, *s.reasons)})
        return s


def upstream_changes(source, base: str, sha: str) -> list[FileChange]:
    """Every changed path with its status; hunks for core Python and native_functions.yaml."""
    status = source.changed_files(base, sha)
    wanted = [
        p
        for s, p in status
        if s != "D" and ((p.startswith("torch/") and p.endswith(".py")) or p == NATIVE_YAML)
    ]
    hunks = {c.path: c.hunks for c in parse_diff(source.diff_hunks(base, sha, wanted))}
    return [FileChange(p, s if s in ("A", "D") else "M", hunks.get(p, ())) for s, p in status]


def onto_map_core(changes: list[FileChange], source, core_base: str, old: str) -> list[FileChange]:
    """The map's line numbers are its core's (the wheel's files: the commit `core_base`); a
    diff's old side is at `old`. Core Python changes are renumbered through core_base..old
    (a line in a region changed since maps to that whole region)."""
    paths = [
        c.path for c in changes if c.status == "M" and c.path.startswith("torch/") and c.path.endswith(".py")
    ]
    if not core_base or core_base == old or not paths:
        return changes
    since = {c.path: c.hunks for c in parse_diff(source.diff_hunks(core_base, old, paths))}
    return [rebase(c, since[c.path]) if c.path in since else c for c in changes]


def prepare_changes(
    dispatch: Dispatch,
    source,
    events: Sequence[str],
    map_path: Path,
    core_base: str = "",
    budget: Optional[float] = None,
) -> DispatchChanges:
    """`core_base`: the commit the pinned wheel's Python stands for (the core overlay's base),
    whose line numbers the map's coverage uses; `map_path`: the change map (Options says which);
    `budget`: the share of a leg's recorded time its reached tests may take (None: no cap)."""
    if dispatch.event_type not in events:
        return DispatchChanges(
            why=f"{dispatch.event_type} dispatches run full (--select-on {' '.join(events) or 'none'})"
        )
    try:
        m = read_map(map_path)
    except ChangeMapError as err:
        return DispatchChanges(why=str(err))
    base = dispatch.change_base
    if source is None:
        return DispatchChanges(m, why="no upstream history to diff (no --upstream-url)")
    try:
        changes = upstream_changes(source, base, dispatch.sha)
        since: list[FileChange] = []
        if m.suite_sha and m.suite_sha != base:  # the map covers an older suite: its changes count too
            known = {c.path for c in changes}
            since = [c for c in upstream_changes(source, m.suite_sha, base) if c.path not in known]
    except (UpstreamError, DiffError) as err:
        return DispatchChanges(m, why=f"no diff {base[:12]}..{dispatch.sha[:12]}: {err}")
    widened = f"map at {m.suite_sha[:12]}, widened by {len(since)} files changed since" if since else ""
    file_level = ""
    try:
        changes = onto_map_core(changes, source, core_base, base) + onto_map_core(
            since, source, core_base, m.suite_sha
        )
    except (UpstreamError, DiffError) as err:
        changes += since
        file_level = f"map's core {core_base[:12]} not diffable with {base[:12]} ({err}): file-level"
    running = core_version()
    if running != m.torch_version:
        file_level = f"map recorded on torch {m.torch_version}, running {running}: file-level"
    return DispatchChanges(m, changes, file_level, widened=widened, budget=budget)


def core_version() -> str:
    """The pinned wheel's version, read from its version.py (no torch import)."""
    from crcr.upstream.overlay import wheel_torch_dir, wheel_version

    try:
        return wheel_version(wheel_torch_dir())
    except (FileNotFoundError, OSError):
        return "unknown"


def only_file(sel: Selection, out: Path, job_name: str, ws: Path, upstream: Upstream) -> Optional[Path]:
    """The --oot-only file a selected leg passes to the plugin (None: run full)."""
    if sel.full:
        return None
    doc = resolve(sel.tests, sel.files, {"${REPO_ROOT}": ws, "${TORCH_ROOT}": upstream.root})
    return write_only(out / f"{job_name}.only.json", doc)
