"""Glue: gather a red leg's triage evidence by re-running only its failing tests at other
upstream commits (the checkout + core overlay of `upstream_setup.py`, the pytest runner),
and bisect last-green..SHA to the first bad commit.

Entry points:
- `Rerunner(leg, ...).probe(sha, tests)`: the failing tests at one upstream commit;
- `bisect_range(rerunner, good, bad, tests, limits)`: first-parent bisection of good..bad
  (also what change-aware selection calls for its own runs);
- `investigate(...)`: the evidence for `triage.verdict`, bisection included.
"""

from __future__ import annotations

import itertools
import re
import resource
import signal
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping, Optional, Sequence

from crcr.callback_client.errors import one_line
from crcr.callback_client.junit import read_report
from crcr.dispatch.plan import Leg
from crcr.handler.runner import LegResult, Upstream, child_env, locate_failures, pytest_command, run_command
from crcr.handler.triage import Evidence, failures_of
from crcr.handler.warm import WarmPytest
from crcr.upstream.attribution import Attribution
from crcr.upstream.bisect import BAD, DEFAULT_LIMITS, GOOD, SKIP, Bisection, Limits, Probe, Step, bisect
from crcr.upstream.gitcmd import UpstreamError
from crcr.upstream.overlay import is_native
from crcr.upstream.source import UpstreamSource

SIGNAL_EXITS = {137: "SIGKILL (out of memory or runner lost)", 143: "SIGTERM"}


@dataclass
class Rerunner:
    """Runs one leg's failing tests at any upstream commit of `source`."""

    leg: Leg
    ws: Path
    out: Path
    env: Mapping[str, str]
    source: UpstreamSource
    core_at: object  # (root, sha) -> (delta, overlay dir, note): upstream_setup.py's core overlay
    timeout: float = 900.0
    roots: Mapping[str, Path] = field(default_factory=dict)  # checkouts made already (the leg's own)
    whole_leg: bool = False  # run the leg's own files, not just `tests` (the benchmark's baseline)
    warm: bool = True  # runs fork a warm interpreter (handler/warm.py); False: a fresh one each
    runs: int = 0
    _seq: itertools.count = field(default_factory=itertools.count)
    _zygote: Optional[WarmPytest] = None

    def __enter__(self) -> "Rerunner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._zygote is not None:
            self._zygote.close()

    def _run(self, argv: list[str], core_path, log: Path) -> tuple[int, bool, float]:
        """(exit code, timed out, CPU seconds of the run's process)."""
        env = child_env(self.ws, self.env, core_path)
        if self.warm:
            if self._zygote is None:
                self._zygote = WarmPytest(self.ws, child_env(self.ws, self.env))
            done = self._zygote.run(argv, self.ws, env, self.timeout, log, core_path)
            if done is not None:
                return (*done, self._zygote.cpu)
            self.warm = False  # said once; every later run starts a fresh interpreter
            print(
                f"{self.leg.job_name}: re-runs without a warm interpreter ({self._zygote.off})",
                file=sys.stderr,
            )
        before = _children_cpu()
        code, timed_out = run_command(argv, self.ws, env, self.timeout, log)
        return code, timed_out, _children_cpu() - before

    def probe(self, sha: str, tests: Sequence[str]) -> Probe:
        """The failing `tests` at `sha`; the probe's `parts` say where its time went."""
        started = time.monotonic()
        try:
            root = self.roots.get(sha) or self.source.checkout(sha)
        except UpstreamError as err:
            return Probe(SKIP, f"does not check out: {err}", time.monotonic() - started, ran=False)
        checked_out = time.monotonic()
        delta, core_path, note = self.core_at(root, sha)
        present = [t for t in tests if (root / t.split("::", 1)[0]).is_file()]
        if not present:
            return Probe(
                SKIP, "the failing tests' files are not there", time.monotonic() - started, ran=False
            )
        upstream = Upstream(root, sha, core_path, note)
        base = self.out / "reruns" / f"{self.leg.job_name}-{sha[:12]}-{next(self._seq)}"
        base.parent.mkdir(parents=True, exist_ok=True)
        junit = base.with_suffix(".xml")
        only = () if self.whole_leg else [f"{root}/{t}" for t in present]
        argv = pytest_command(self.leg, self.ws, junit, None, upstream=upstream, only=only)
        overlaid = time.monotonic()
        code, timed_out, cpu = self._run(argv, core_path, base.with_suffix(".log"))
        self.runs += 1
        ran = time.monotonic()
        report = read_report([junit] if junit.exists() else [])
        seconds = time.monotonic() - started
        parts = (
            ("checkout", checked_out - started),
            ("overlay", overlaid - checked_out),
            ("process", ran - overlaid),
            ("tests", _tests_seconds(report)),
            ("cpu", cpu),
        )
        if timed_out or not report.cases or report.counts.passed + report.counts.failed == 0:
            return Probe(
                SKIP,
                f"does not build or run (exit {code}{', timed out' if timed_out else ''})",
                seconds,
                parts=parts,
            )
        _, failing = locate_failures(report, Upstream(root=root))
        still = tuple(t for t in failing if t in tests)
        if still and delta is not None and delta.native:  # red on a core without native changes it needs
            return Probe(SKIP, _unapplied(delta), seconds, ran=True)
        broken = self._core_breaks(delta, core_path) if still else ""
        if broken:  # red on a core we did not build right: no evidence either way
            return Probe(
                SKIP, f"core inexact here, the overlay breaks an import ({broken})", seconds, ran=True
            )
        return Probe(BAD if still else GOOD, "", seconds, still, parts=parts)

    def _core_breaks(self, delta, core_path) -> str:
        """The import the overlay at this commit breaks ("" none): checked only for a red probe."""
        from crcr.handler.core_import import import_error

        return import_error(delta, core_path, self.ws, self.env) if delta and core_path else ""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tests_seconds(report) -> float:
    """What the tests themselves took, by their JUnit times (a bad number counts 0)."""
    total = 0.0
    for case in report.cases:
        try:
            total += float(case.time or 0)
        except ValueError:
            continue
    return total


def _unapplied(delta) -> str:
    """Why a red midpoint is no evidence: its resolved core lacks native changes (base..midpoint)."""
    more = f" +{len(delta.native) - 1}" if len(delta.native) > 1 else ""
    return f"core inexact here ({delta.base[:12]}..{delta.sha[:12]}: {len(delta.native)} native not applied, {delta.native[0]}{more})"


def _native_files(commit) -> list[str]:
    return [f for f in commit.files if is_native(f)]


def bisect_range(
    rerunner: Rerunner, good: str, bad: str, tests: Sequence[str], limits: Limits = DEFAULT_LIMITS
) -> Bisection:
    """First bad commit of good..bad (first parent) for `tests`. A commit that changes native
    code is skipped without running (the nearest wheel cannot hold it); the culprit found
    is re-run once more: passing then makes the result a flake, not a culprit."""
    try:
        commits = list(reversed(rerunner.source.commits_between(good, bad, first_parent=True)))
    except UpstreamError as err:
        return Bisection("nothing_to_do", good, bad, reason=one_line(str(err)))
    if len(commits) <= 1:
        if not commits:
            return Bisection("nothing_to_do", good, bad, reason="empty range")
        return Bisection("found", good, bad, tuple(commits), culprit=commits[0], total=1)

    def probe(commit) -> Probe:
        native = _native_files(commit)
        if native:
            return Probe(
                SKIP,
                f"needs native changes ({native[0]}{f' +{len(native) - 1}' if len(native) > 1 else ''})",
                ran=False,
            )
        return rerunner.probe(commit.sha, tests)

    found = bisect(good, commits, probe, limits)
    if found.status != "found":
        return found
    return _confirm(rerunner, found, commits, tests)


def _confirm(rerunner: Rerunner, found: Bisection, commits: Sequence, tests: Sequence[str]) -> Bisection:
    """Re-run the culprit when the bisection ran it only once (the last commit was run by the
    leg itself and its retry): a test that flips there is a flake, not a culprit."""
    culprit = found.culprit
    if culprit.sha == commits[-1].sha:
        return found
    again = rerunner.probe(culprit.sha, tests)
    steps = found.steps + (Step(culprit.sha, culprit.subject, again, kind="confirm"),)
    if again.outcome == GOOD:
        return Bisection(
            "flake",
            found.good,
            found.bad,
            found.candidates,
            steps,
            f"{culprit.sha[:12]} failed once, then passed when re-run",
            total=found.total,
        )
    return replace(found, steps=steps)


# -- the evidence of one red leg --------------------------------------------------------------
def outside_tests(result: LegResult) -> tuple[str, bool]:
    """(why the leg failed outside its tests, certain?) or ("", True) when it did not."""
    code = result.exit_code
    if result.conclusion == "timed_out" or result.timed_out:
        return "the leg timed out", True
    if result.conclusion != "failure":
        return "", True
    if code < 0 or code in SIGNAL_EXITS:
        name = SIGNAL_EXITS.get(code) or (
            signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else f"signal {-code}"
        )
        return f"the test process was killed: {name}", True
    if not result.report.files or result.report.problems:
        return f"no readable JUnit (exit {code}): setup, checkout or build failed", True
    if result.counts.failed == 0:
        return f"exit code {code} with no failed test", False
    return "", True


# How a test's failure says the device, not the code, went wrong: the supervisor's and the
# device pool's own words (testing/supervisor, tools/shard/devices.py) and a runtime's fault.
DEVICE_TROUBLE = (
    (re.compile(r"\bhang: no progress"), "hang"),
    (re.compile(r"\binfra: "), "infra"),
    (re.compile(r"\bdevice fault\b"), "device fault"),
    (re.compile(r"\bdevice busy\b|\bis busy: held by pid\b"), "device busy"),
)


def troubles(result: LegResult, names: Sequence[str]) -> dict[str, str]:
    """Each failing test whose failure is the device's: its kind of trouble."""
    found = {}
    for case in result.report.failures:
        said = f"{case.properties.get('trouble', '')} {case.properties.get('infra', '')} {case.text or ''}"
        kind = next((k for pattern, k in DEVICE_TROUBLE if pattern.search(said)), "")
        if kind:
            found[case.name] = kind
    return {n: found[n.rsplit("::", 1)[-1]] for n in names if n.rsplit("::", 1)[-1] in found}


def excerpts(result: LegResult, names: Sequence[str]) -> dict[str, str]:
    """Each failing test's first line of failure text, by the test's own (last) name part."""
    first = {c.name: (c.text or "").strip().split("\n", 1)[0] for c in result.report.failures}
    return {n: first.get(n.rsplit("::", 1)[-1], "") for n in names}


def upstream_moved(found: Optional[Attribution]) -> bool:
    """Whether upstream (its tests or its core) differs from the job's last green. A range
    to search says so; a `backend_moved` attribution keeps none (nothing is bisected when
    the backend moved too), so its two ends are compared: a last green recorded at another
    backend commit and another upstream SHA (a state dir shared with another checkout) is
    `both moved`, never `backend ... upstream did not`."""
    if found is None:
        return False
    if found.range:
        return True
    last, now = found.last_green, found.now
    return (
        found.verdict == "backend_moved"
        and last is not None
        and now is not None
        and (last.suite, last.core) != (now.suite, now.core)
    )


def investigate(
    leg: Leg,
    result: LegResult,
    found: Optional[Attribution],
    rerunner: Optional[Rerunner],
    sha: str,
    limits: Limits,
    log_url: str = "",
) -> Evidence:
    why, certain = outside_tests(result)
    tests = result.failing_tests
    names = tests or tuple(f"{c.classname}::{c.name}" for c in result.report.failures)
    e = Evidence(
        leg.job_name,
        result.conclusion,
        failures_of(names, excerpts(result, names), troubles(result, names)),
        why,
        certain,
        has_last_green=found is not None and found.verdict != "no_green",
        backend_moved=found is not None and found.verdict == "backend_moved",
        upstream_moved=upstream_moved(found),
        upstream_range="..".join(s[:12] for s in found.range) if found and found.range else "",
        log_url=log_url,
        drained=result.drained,
    )
    if why or not tests or rerunner is None or e.drained or any(f.trouble for f in e.failures):
        return e  # a sick device is not re-run or bisected through: nothing upstream to find
    retry = rerunner.probe(sha, tests)
    if retry.outcome == SKIP:
        return e
    e = replace(e, retry_failing=retry.failing)
    if not retry.failing or not (found and found.range and found.verdict == "only_upstream"):
        return e
    # the tests that held on retry are what the bisection chases; the ones that flipped are flakes
    b = bisect_range(rerunner, found.range[0], found.range[1], retry.failing, limits)
    e = replace(e, bisection=b, range_commits=b.total)
    if b.status == "found" and b.culprit is not None and b.good == found.range[0]:
        # the culprit sits right after the last green: check that end too (once)
        at_green = rerunner.probe(found.range[0], retry.failing)
        if at_green.outcome != SKIP:
            e = replace(e, at_last_green_failing=at_green.outcome == BAD)
    return e


# -- from a red leg to its verdict ------------------------------------------------------------
def upstream_cannot_reach(leg: Leg, result: LegResult) -> str:
    """Why the dispatched upstream range changes nothing this leg ran ("" when it can).

    The bazel runner runs the generated targets of configs/ (`testing/targets`): in-tree
    suites (a config naming upstream files gets no target) on the core in the test's runfiles,
    the pinned wheel or another pinned --config core, never the core overlay. The same tests
    on the same core at every commit of last-green..SHA: nothing to re-run there or bisect,
    and the failure is not upstream's. (A --target-template naming another target is the
    user's: the same holds for its core, which is never overlaid.)"""
    if leg.candidate.bazel_config:
        return (
            f"it tests the pinned core of --config={leg.candidate.bazel_config}, not upstream's at "
            "each commit: upstream's range changes nothing it runs"
        )
    if result.runner == "bazel":
        return (
            "the bazel runner runs configs/' generated targets (in-tree suites) on the pinned wheel "
            "without the core overlay: upstream's range changes nothing it runs "
            "(--runner pytest tests the core at each commit)"
        )
    return ""


@dataclass(frozen=True)
class Triage:
    """How red legs are triaged in this run: where to re-run, how far to bisect, the logs' URL."""

    ws: Path
    env: Mapping[str, str]
    limits: Limits = DEFAULT_LIMITS
    timeout: float = 900.0
    log_url: str = ""  # http(s) link for the verdict's evidence (the CI run), "" locally

    def rerunner(self, setup, leg: Leg, out: Path) -> Optional[Rerunner]:
        """Re-runs need a git source (other SHAs) and a checkout-based leg on this interpreter."""
        if setup.source is None or setup.root is None or leg.candidate.bazel_config:
            return None
        return Rerunner(
            leg, self.ws, out, self.env, setup.source, setup.core_at, self.timeout, {setup.sha: setup.root}
        )

    def apply(self, setup, leg: Leg, result: LegResult, found: Optional[Attribution], out: Path) -> LegResult:
        from crcr.callback_client.verdict_rules import fit
        from crcr.handler.triage import verdict

        beyond = upstream_cannot_reach(leg, result)
        rerunner = None if beyond else self.rerunner(setup, leg, out)
        try:
            e = investigate(leg, result, found, rerunner, setup.sha, self.limits, self.log_url)
        finally:
            if rerunner is not None:
                rerunner.close()
        if beyond:  # the range is real, but nothing in it reaches what this leg ran
            e = replace(e, upstream_moved=False, upstream_range="", beyond_upstream=True)
        core = result.core if result.core is not None else setup.exactness_for(leg, result.runner)
        if core is not None and not core.exact:  # our core, not upstream's: no high confidence
            e = replace(e, core_gap=core.gap_line())
        sent, warnings = fit(verdict(e))
        notes = [f"triage: {w}" for w in warnings]
        if beyond and e.failures and not e.outside_tests:
            notes.append(f"triage: not re-run or bisected: {beyond}")
        if sent:
            notes.insert(0, f"triage: {sent['category']}/{sent['confidence']}: {sent['summary']}")
        b = e.bisection
        if b is not None:
            notes.append(b.line())
        return replace(
            result,
            notes=result.notes + tuple(notes),
            verdict=sent,
            bisection=b,
        )
