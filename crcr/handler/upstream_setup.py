"""Glue between a dispatch and upstream at its SHA: which upstream a run uses,
its checkout (suite at dispatch), the core overlay (core at dispatch) and,
after each leg, the last-green record or the attribution of a red result.

Modes (`--upstream`): `fixture` (the embedded default: the generated local
repository), `fetch` (git from `--upstream-url` / $OOT_UPSTREAM_URL, default
GitHub), `none` (in-tree suites on the pinned wheel); `--upstream-root PATH`
uses a checkout someone else made (actions/checkout, or by hand). `auto`: a
given root, else fetch when a URL is configured, else the fixture when no
event was given, else none (resolved once, in options.py).
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from crcr.callback_client.errors import ConfigError
from crcr.dispatch.plan import Leg
from crcr.handler.capskips import note_capability_skips
from crcr.handler.core_base import CoreResolver
from crcr.handler.drift import judge_drift
from crcr.handler.investigate import Triage
from crcr.handler.newscope import NewInScope, configs_scope, file_scopes, measure
from crcr.handler.runner import (
    LegResult,
    LegSettings,
    Upstream,
    left_out_files,
    leg_suites,
    summary_path,
)
from crcr.upstream.attribution import (
    Attribution,
    GreenStore,
    Inputs,
    attribute,
    ops_of_failures,
    suspect_paths,
    touches_op,
)
from crcr.upstream.core_wheel import named, wheel_commit
from crcr.upstream.exactness import Exactness, derive
from crcr.upstream.gitcmd import UpstreamError, check_sha, git
from crcr.upstream.overlay import CoreDelta, build_overlay, core_delta, wheel_git_version, wheel_torch_dir
from crcr.upstream.source import UpstreamSource
from crcr.upstream.wheel_cache import WheelRejected, fetch
from testing.base.atomic import write_json, write_text

if TYPE_CHECKING:
    from crcr.handler.changes import DispatchChanges
    from crcr.handler.options import Options


@dataclass(frozen=True)
class UpstreamSetup:
    mode: str
    url: str  # "" = no upstream
    sha: str  # the suite (and core) SHA the legs run at
    root: Optional[Path] = None
    source: Optional[UpstreamSource] = None
    delta: Optional[CoreDelta] = None
    core_path: Optional[Path] = None
    core_note: str = "core: pinned wheel (no upstream checkout)"
    core_base: Optional[str] = None  # the wheel's commit (or --core-base): what overlays are made from
    cache: Optional[Path] = None
    exactness: Optional[Exactness] = None  # of the core the legs run on (None: no upstream)
    wheel_dir: Optional[Path] = None  # the unpacked base wheel (None: the interpreter's torch)
    resolver: Optional[CoreResolver] = None  # base wheels by SHA, for bisection midpoints too

    def core_at(self, root: Path, sha: str) -> tuple:
        """(delta, overlay dir, note) for the core at another `sha` of this source (bisection):
        its base wheel resolved the same way as the run's."""
        if self.resolver is None:
            return _core(self.source, root, self.core_base, sha, self.cache, self.wheel_dir)
        chosen = self.resolver.at(sha)
        return _core(self.source, root, chosen.base, sha, self.cache, chosen.wheel_dir)

    def for_leg(self, leg: Leg, core: Optional[Exactness] = None) -> Upstream:
        """`core`: the leg's own exactness (its test files' imports checked), else the run's."""
        if leg.candidate.bazel_config:  # another pinned core: no overlay
            return Upstream(self.root, self.sha, None, f"core: pinned --config={leg.candidate.bazel_config}")
        core = core or self.exactness
        line = core.line() if core else self.core_note
        return Upstream(self.root, self.sha, self.core_path, line)

    def exactness_for(self, leg: Leg, runner: str = "pytest") -> Optional[Exactness]:
        """The leg's exactness: the run's, except a leg on another pinned core (no upstream core)
        and a leg the bazel runner ran (its runfiles' pinned wheel, no overlay, no other base)."""
        if leg.candidate.bazel_config or self.exactness is None:
            return None
        return self.exactness.without_overlay() if runner == "bazel" else self.exactness

    def resolved_core(self) -> str:
        """What the legs' core is, for last-green bookkeeping: the SHA when the core is exact,
        else the base wheel + the overlay at the SHA (never the same key as an exact core)."""
        if not self.delta:
            return "pinned-wheel"
        if self.exactness is not None and not self.exactness.exact:
            return f"wheel@{self.delta.base[:12]}+py@{self.sha[:12]}"
        return self.sha

    def inputs(self, leg: Leg, backend: str) -> Inputs:
        core = leg.candidate.bazel_config or self.resolved_core()
        return Inputs(backend, core, self.sha)

    def describe(self) -> str:
        where = f"{self.root}" if self.root else "none"
        based = f" (base: {self.exactness.origin})" if self.exactness else ""
        return f"upstream ({self.mode}): {self.url or '-'} at {self.sha[:12]}, checkout {where}; {self.core_note}{based}"


def _root_head(root: Path) -> Optional[str]:
    if not (root / ".git").exists():
        return None
    r = git(["rev-parse", "HEAD"], cwd=root, check=False)
    return r.stdout.strip() if r.returncode == 0 else None


def _core(
    source: UpstreamSource, root: Path, base: Optional[str], sha: str, cache: Path, wheel_dir=None
) -> tuple:
    """(delta, overlay dir, note) for core at `sha`: the wheel plus upstream's Python changes;
    `wheel_dir`: an unpacked --core-wheel (else the interpreter's own torch)."""
    if wheel_dir is not None:
        torch_dir = wheel_dir / "torch"
    else:
        try:
            torch_dir = wheel_torch_dir()
        except FileNotFoundError:
            return None, None, "core: no torch importable here; nothing to overlay"
    base = base or wheel_git_version(torch_dir)
    if not base:
        return None, None, f"core: pinned wheel ({torch_dir / 'version.py'} names no git_version)"
    try:
        delta = core_delta(check_sha(base, "core base SHA"), sha, source.changed_files(base, sha))
    except UpstreamError as err:
        return None, None, f"core: pinned wheel; no core diff ({err})"
    absent = [p for s, p in delta.python if s != "D" and not (root / p).is_file()]
    if absent:
        return (
            delta,
            wheel_dir,
            f"core: base wheel; the checkout lacks {len(absent)} changed core files ({absent[0]})",
        )
    return delta, build_overlay(torch_dir, root, delta, cache) or wheel_dir, delta.note()


def dispatched_paths(source: Optional[UpstreamSource], before: str, sha: str) -> Optional[list[str]]:
    """The paths the dispatched change itself touches (the PR's diff from where it branched off
    its base, the pushed range); None when it cannot be told (no history, a new branch, a base
    not in it). A PR's base SHA is its base branch's tip, which may have moved past the branch
    point: diffing from it would count main's later changes as the PR's."""
    if source is None or not before or set(before) == {"0"}:
        return None
    try:
        start = source.merge_base(before, sha)
        return [p for _, p in source.changed_files(start, sha)] if start else None
    except UpstreamError:
        return None


def exactness_of(
    options: "Options",
    delta: Optional[CoreDelta],
    core_path: Optional[Path],
    note: str,
    dispatched,
    wheel_dir: Optional[Path] = None,
) -> Exactness:
    """Once per core: from the delta, then the import check of the overlaid core."""
    from crcr.handler.core_import import import_error

    if delta is not None and delta.python and core_path in (None, wheel_dir):
        return derive(None, dispatched, note)  # the overlay could not be made: we do not know the core
    found = derive(delta, dispatched, note)
    if delta is None or core_path is None:
        return found
    error = import_error(delta, core_path, options.workspace, options.env, wheel_dir)
    return found.with_import_failure(error) if error else found


def prepare(options: "Options", sha: str, fixture=None, before: str = "") -> UpstreamSetup:
    """Make the checkout and the core overlay for this run (one per run, shared by its legs);
    `options.upstream` says which upstream (resolved at the entry); `before`: the dispatched
    change's base (its diff decides whether a leg's change ran)."""
    mode = options.upstream
    if mode == "none":
        if options.core_wheel or options.core_wheel_url:
            raise ConfigError("--core-wheel needs an upstream to check it against (--upstream)")
        return UpstreamSetup("none", "", sha)
    cache = options.upstream_cache
    if mode == "root":
        root = options.upstream_root.resolve()
        if not root.is_dir():
            raise ConfigError(f"--upstream-root {options.upstream_root}: not a directory")
        url = options.upstream_url
        source = UpstreamSource(url, cache) if url else None
        head = _root_head(root)
        if head and head != sha:
            raise ConfigError(f"--upstream-root is at {head}, not the dispatched {sha} ({root})")
        setup = UpstreamSetup("root", url or "", sha, root, source)
        if not source:
            if options.core_wheel or options.core_wheel_url:
                raise ConfigError("--core-wheel needs upstream history to check its commit (--upstream-url)")
            note = "core: pinned wheel (set --upstream-url for the core diff)"
            if options.core_index:
                note += "; --core-index unused: it needs upstream history too"
            return replace(setup, core_note=note, exactness=derive(None, None, note))
    else:
        source = UpstreamSource(fixture.url if mode == "fixture" else options.fetch_url, cache)
        setup = UpstreamSetup(mode, source.url, sha, source.checkout(sha), source)
    resolver = core_resolver(options, source, sha, fixture)
    chosen = resolver.at(sha)
    if chosen.fallback:
        print(f"core: {chosen.fallback}", file=sys.stderr)
    delta, core_path, note = _core(source, setup.root, chosen.base, sha, cache, chosen.wheel_dir)
    dispatched = dispatched_paths(source, before, sha)
    exactness = exactness_of(options, delta, core_path, note, dispatched, chosen.wheel_dir)
    return replace(
        setup,
        delta=delta,
        core_path=core_path,
        core_note=note,
        core_base=delta.base if delta else chosen.base,
        cache=cache,
        exactness=exactness.based_on(chosen.origin, chosen.fallback),
        wheel_dir=chosen.wheel_dir,
        resolver=resolver,
    )


def core_resolver(options: "Options", source: UpstreamSource, sha: str, fixture=None) -> CoreResolver:
    """The run's resolver of base wheels; a --core-wheel (a URL one downloaded and hash-checked
    first) that is not for this SHA's history is refused here, in one line."""
    pinned = options.core_base or (fixture.base if fixture else None)
    index = options.core_index or (str(fixture.index) if fixture and fixture.index else "")
    resolver = CoreResolver(source, options.core_cache, pinned, index=index)
    wheel, commit = options.core_wheel, options.core_wheel_commit
    where = named(wheel) if wheel else ""
    if options.core_wheel_url:
        where = f"--core-wheel {options.core_wheel_url.partition('#')[0]}"
        wheel, commit = download_core_wheel(options.core_wheel_url, where, options.core_cache)
    if wheel is not None:
        resolver.wheel, resolver.wheel_commit = wheel, core_wheel_base(where, commit, source, sha)
    return resolver


def download_core_wheel(url: str, where: str, cache: Path) -> tuple[Path, str]:
    """`--core-wheel URL#sha256=<hex>`: the wheel, downloaded once into the core cache, and its commit."""
    location, _, fragment = url.partition("#")
    try:
        wheel, _ = fetch(location, fragment.removeprefix("sha256="), cache)
    except WheelRejected as err:
        raise ConfigError(f"{where}: {err}") from None
    return wheel, wheel_commit(wheel, where)


def core_wheel_base(where: str, commit: str, source: UpstreamSource, sha: str) -> str:
    """The --core-wheel's commit, when it is `sha` or an ancestor of it; one line otherwise."""
    try:
        ours = source.is_ancestor(commit, sha)
    except UpstreamError as err:
        raise ConfigError(f"{where}: cannot check its git_version {commit[:12]} ({err})") from None
    if not ours:
        raise ConfigError(
            f"{where}: its git_version {commit[:12]} is neither {sha[:12]} nor an ancestor of it in {source.url}"
        )
    return commit


# -- after a leg: last green or attribution ----------------------------------------
def backend_id(ws: Path, ref: str) -> str:
    """The backend's commit; uncommitted changes get a content hash, so an edit is a move."""
    if ref != "HEAD" or not (ws / ".git").exists():
        return ref
    head = git(["rev-parse", "HEAD"], cwd=ws, check=False)
    if head.returncode != 0:
        return ref
    diff = git(["diff", "HEAD", "--no-ext-diff", "--", "."], cwd=ws, check=False).stdout
    untracked = git(["ls-files", "-z", "--others", "--exclude-standard"], cwd=ws, check=False).stdout
    if untracked:  # new files count too: their names and contents
        names = "\n".join(sorted(n for n in untracked.split("\0") if n))
        diff += names + git(["hash-object", "--stdin-paths"], cwd=ws, check=False, input=names).stdout
    sha = head.stdout.strip()
    return f"{sha}-dirty-{hashlib.sha256(diff.encode()).hexdigest()[:12]}" if diff else sha


def open_store(options: "Options") -> GreenStore:
    """The last-green store: $CRCR_GREEN_STORE, else beside the state (Options says which)."""
    return GreenStore(options.green_store_path)


def store_key(setup: UpstreamSetup) -> str:
    """The last-green store's key of this upstream (its URL)."""
    return setup.url or "none"


def after_leg(
    setup: UpstreamSetup,
    store: GreenStore,
    leg: Leg,
    result: LegResult,
    backend: str,
    out: Path,
    options: "Options",
    triage: Optional[Triage] = None,
) -> tuple[LegResult, Optional[Attribution]]:
    """Record a green leg; explain a red one. Writes <out>/<job>.results.json either way.
    Tests new since the job's last green suite are new in scope: a leg whose only failures
    are such tests is not red (never a regression), and is not recorded green either, so
    they stay new in scope until a config buckets them."""
    found = None
    key = store_key(setup)
    now = setup.inputs(leg, backend)
    scope = leg_new_in_scope(
        setup, store.last_green(key, leg.job_name), result, options.workspace, leg.configs
    )
    if scope is not None:
        result = replace(result, notes=result.notes + (scope.line(),))
        fragment = out / f"{leg.job_name}.new_in_scope.diff"
        write_text(fragment, scope.diff)
        if (
            result.conclusion == "failure"
            and result.failing_tests
            and set(result.failing_tests) <= set(scope.failing)
        ):
            result = replace(
                result,
                conclusion="success",
                notes=result.notes
                + (
                    f"failures are all new in scope, not regressions: bucket them with "
                    f"`patch -p0 < {fragment}` from the repository root",
                ),
            )
    core = result.core if result.core is not None else leg_exactness(setup, leg, result.runner, options)
    result = judge_core(core, result)
    result = judge_drift(result, setup.resolver, setup.sha)  # harness drift: neutral (drift.py)
    result = note_capability_skips(result)  # the capability bucket (capskips.py)
    if result.conclusion == "success" and not (scope is not None and scope.failed):
        store.record_green(key, leg.job_name, now)
    elif result.conclusion in ("failure", "timed_out"):
        found = attribute(leg.job_name, now, store.last_green(key, leg.job_name))
        if found.range and setup.source:
            core_files = [p for _, p in setup.delta.python] + list(setup.delta.native) if setup.delta else []
            paths = suspect_paths(result.failing_files, core_files)
            ops = ops_of_failures(options.select_memory, result.failing_tests)
            try:
                commits = setup.source.commits_between(*found.range, paths) if paths else []
                if ops:  # and the commits touching files named for an op the failing tests dispatch
                    every = setup.source.commits_between(*found.range)
                    keep = {c.sha for c in commits} | {
                        c.sha for c in every if any(touches_op(f, op) for f in c.files for op in ops)
                    }
                    commits = [c for c in every if c.sha in keep]
                found = replace(found, commits=tuple(commits), paths=paths, ops=ops)
            except UpstreamError as err:
                found = replace(found, paths=paths, ops=ops, error=str(err))
        result = replace(result, notes=result.notes + (found.summary(),))
    if triage is not None and result.conclusion in ("failure", "timed_out"):
        result = triage.apply(setup, leg, result, found, out)
    details = out / f"{leg.job_name}.results.json"
    write_json(
        details,
        {
            "job_name": leg.job_name,
            "conclusion": result.conclusion,
            "test_results": result.counts.as_results(),
            "notes": list(result.notes),
            "failing_files": list(result.failing_files),
            "failing_tests": list(result.failing_tests),
            "left_out_files": left_out_files(result.report, setup.for_leg(leg)),
            "selection": result.selection,
            "upstream": {
                "mode": setup.mode,
                "url": setup.url,
                "sha": setup.sha,
                "root": str(setup.root or ""),
                "core": setup.delta.as_json() if setup.delta else None,
            },
            "exactness": result.core.as_json() if result.core else None,
            "inputs": vars(now),
            "attribution": found.as_json() if found else None,
            "failed_tests_detail": result.failed_tests_detail(),
            "triage_verdict": result.verdict,
            "bisection": result.bisection.as_json() if result.bisection else None,
            "new_in_scope": scope.as_json() if scope is not None else None,
            "device": result.device,  # the card its results come from ("" = not pinned)
            "devices_lost": list(result.drained),  # when it lost every card (its results are infra)
        },
        sort_keys=True,
        durable=True,
    )
    return replace(result, details=details), found


def leg_exactness(
    setup: UpstreamSetup, leg: Leg, runner: str, options: Optional["Options"]
) -> Optional[Exactness]:
    """The leg's exactness, with its own test files' torch imports checked on the core it runs on
    (a leg on upstream files; the run's core itself was checked once already). Called before
    the leg's tests run (LegHooks.core_for), so a failing import is named from the leg's first line."""
    from crcr.handler.core_import import leg_import_error

    found = setup.exactness_for(leg, runner)
    if found is None or found.no_overlay or found.failed_import or options is None:
        return found
    files = [Path(p) for p in leg_suites(leg, options.workspace, setup.for_leg(leg)).upstream]
    error = leg_import_error(files, setup.core_path, options.workspace, options.env)
    return found.with_import_failure(error) if error else found


def judge_core(exactness: Optional[Exactness], result: LegResult) -> LegResult:
    """The leg carries its core's exactness; a success whose dispatched native change the core
    did not apply becomes neutral, saying which files never ran."""
    if exactness is None:
        return result
    result = replace(result, core=exactness)
    if exactness.no_overlay and result.notes and result.notes[0].startswith("core:"):
        result = replace(result, notes=(exactness.line(),) + result.notes[1:])  # the line the leg ran on
    if not exactness.untested:
        return result
    notes = list(result.notes)
    notes.insert(1 if notes and notes[0].startswith("core:") else 0, exactness.untested_line())
    return replace(result, conclusion=exactness.conclusion(result.conclusion), notes=tuple(notes))


def leg_new_in_scope(
    setup: UpstreamSetup,
    last: Optional[Inputs],
    result: LegResult,
    ws: Path,
    configs: tuple[str, ...] = (),
) -> Optional[NewInScope]:
    """What of this leg's upstream files is new since the job's last green suite (None: nothing,
    or nothing to compare with); `configs` (relative to the workspace `ws`): the leg's, for the
    config diff."""
    if not (setup.root and setup.source and last and last.suite != setup.sha and result.junit):
        return None
    summary = summary_path(result.junit[0])
    try:
        tests = json.loads(summary.read_text()).get("tests", [])
    except (OSError, ValueError):
        return None
    files = sorted(
        {
            t["nodeid"].split("::", 1)[0]
            for t in tests
            if (setup.root / t["nodeid"].split("::", 1)[0]).is_file()
        }
    )
    paths = tuple(ws / c for c in configs)
    try:
        scopes = file_scopes(setup.source, setup.root, last.suite, setup.sha, files, configs_scope(paths))
    except UpstreamError:
        return None
    return measure(scopes, summary, last.suite, setup.sha, setup.root, result.failing_tests, paths, ws)


class LegHooks:
    """What the cycle and run-leg do around each leg for upstream: the inputs a leg
    runs with, and afterwards the record or attribution (collected for the report)."""

    def __init__(
        self,
        setup: UpstreamSetup,
        store: Optional[GreenStore],
        backend: str,
        out: Path,
        options: Optional["Options"] = None,
        triage: Optional[Triage] = None,
        changes: Optional["DispatchChanges"] = None,
    ):
        # options: the run's (workspace, select memory) for after_leg; None only without a store
        self.setup, self.store, self.backend, self.out, self.options = setup, store, backend, out, options
        self.reuse = None  # crcr/handler/reuse.py Reuse when stored green legs may be reused
        self.triage = triage
        self.changes = changes  # the dispatch's diff and change map (None: no selection at all)
        self.attributions: list[Attribution] = []
        self._cores: dict = {}  # (job, runner) -> the leg's exactness: checked once per leg

    def upstream_for(self, leg: Leg, core: Optional[Exactness] = None) -> Upstream:
        return self.setup.for_leg(leg, core)

    def core_for(self, leg: Leg, runner: str) -> Optional[Exactness]:
        """The leg's exactness, before any of its tests runs: the run's core, the leg's test files'
        torch imports executed on it (a failure the overlay causes makes the leg inexact). Once
        per leg: the reuse key and the leg's run read the same one."""
        key = (leg.job_name, runner)
        if key not in self._cores:
            self._cores[key] = leg_exactness(self.setup, leg, runner, self.options)
        return self._cores[key]

    def selection_for(self, leg: Leg, how: LegSettings):
        """(Selection, --oot-only file or None) for a leg; (None, None) without selection."""
        if self.changes is None:
            return None, None
        from crcr.handler.changes import only_file
        from testing.changes.decide import full_leg

        upstream = self.upstream_for(leg)
        if how.template:
            return full_leg(leg.feature, "a --test-command template runs whole legs"), None
        sel = self.changes.for_leg(leg, how.ws, upstream)
        return sel, only_file(sel, how.out, leg.job_name, how.ws, upstream)

    def reused(self, leg: Leg, result: LegResult) -> LegResult:
        """A leg reused green (handler/reuse.py) was green at this SHA's inputs: it moves the
        job's last green as a run would, so the next red leg's range starts here."""
        if self.store is not None and result.conclusion == "success":
            self.store.record_green(store_key(self.setup), leg.job_name, self.setup.inputs(leg, self.backend))
        return result

    def finish(self, leg: Leg, result: LegResult) -> LegResult:
        if self.store is None:
            return result
        result, found = after_leg(
            self.setup, self.store, leg, result, self.backend, self.out, self.options, self.triage
        )
        if found:
            self.attributions.append(found)
        return result

    def write_report(self) -> Path:
        path = self.out / "attribution.json"
        write_json(
            path,
            {
                "upstream": {
                    "mode": self.setup.mode,
                    "url": self.setup.url,
                    "sha": self.setup.sha,
                    "core": self.setup.delta.as_json() if self.setup.delta else None,
                    "core_note": self.setup.core_note,
                },
                "backend": self.backend,
                "attributions": [a.as_json() for a in self.attributions],
            },
            sort_keys=True,
            durable=True,
        )
        return path

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
