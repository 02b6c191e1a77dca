"""Bisection cost on the generated upstream (N = 32 commits, regression seeded at 21),
measured side by side in one run, nothing extrapolated:

  A  the bisection as the handler runs it: only the failing tests re-run at each
     midpoint (⌈log2 31⌉ = 5 runs) plus the culprit's confirming re-run, each run a fork
     of one warm interpreter (crcr/handler/warm.py; its start-up is counted in A);
  B  the failing leg re-run at every commit of the range (31 runs), each as the
     handler runs a leg: a fresh `python -m pytest` of the leg's configured files;
  C  the same bisection re-running that whole leg per step, as B runs it;
  C' (the split, not a target) the whole leg per step through A's warm interpreter:
     A/C' is what running only the failing tests saves, C'/C what the warm process saves.

Each way gets its own cold checkout and overlay cache (its checkouts, overlays and
bytecode are part of its cost); one untimed run of the failing leg at the head comes
first (it finds the failing tests and warms the page cache for every way alike).
Prints A/B (target <= 0.2), A/C (target <= 0.5), the leg's size and where a step's
time goes (checkout, overlay, process start-up, the tests themselves).

    tools/bazel run //tools/bench:bisect_bench
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from crcr.handler import main as handler
from crcr.handler.investigate import Rerunner, bisect_range
from crcr.handler.runner import LegSettings, leg_suites, run_leg
from crcr.handler.upstream_setup import prepare
from crcr.handler.workspace import workspace_root
from crcr.upstream.bisect import Limits
from testing.base.cliargs import Parser
from testing.base.command import command

JOB = "test-upstream-spyre-nn"
PARTS = ("checkout", "overlay", "process", "tests")


def _options(state: Path, cache: Path, env):
    return handler.parse_options(
        [
            "--state-dir",
            str(state),
            "--upstream",
            "fixture",
            "--upstream-cache",
            str(cache),
            "--runner",
            "pytest",
        ],
        env,
    )


class Way:
    """One way of finding the culprit: its own cold cache, its runs and wall time."""

    def __init__(self, name: str, tmp: Path, fixture, env, ws: Path, leg, whole: bool, warm: bool):
        self.name = name
        self.setup = prepare(_options(tmp / "state", tmp / name / "cache", env), fixture.head, fixture)
        self.rerunner = Rerunner(
            leg, ws, tmp / name, env, self.setup.source, self.setup.core_at, 900, whole_leg=whole, warm=warm
        )
        self.wall = 0.0
        self.probes: list = []

    def bisect(self, good: str, bad: str, tests) -> object:
        t = time.monotonic()
        with self.rerunner:
            found = bisect_range(self.rerunner, good, bad, tests, Limits(16, 3600))
        self.wall = time.monotonic() - t
        self.probes = [s.probe for s in found.steps if s.probe.ran]
        return found

    def every(self, commits, tests) -> None:
        t = time.monotonic()
        with self.rerunner:
            self.probes = [self.rerunner.probe(c.sha, tests) for c in commits]
        self.wall = time.monotonic() - t

    def per_run(self) -> dict[str, float]:
        n = max(1, len(self.probes))
        return {k: sum(dict(p.parts).get(k, 0.0) for p in self.probes) / n for k in PARTS}

    def zygote(self) -> float:
        z = self.rerunner._zygote
        return z.start_seconds if z is not None else 0.0

    def forked(self) -> str:
        """How the warm runs were forked: from a new or a reused overlay zygote (else why not)."""
        z = self.rerunner._zygote
        return ", ".join(f"{how or 'fresh'} {n}" for how, n in sorted(z.forked.items())) if z else "-"

    def cpu(self) -> float:
        """CPU seconds of every run's process, plus the warm interpreter's start-up."""
        z = self.rerunner._zygote
        return sum(dict(p.parts).get("cpu", 0.0) for p in self.probes) + (z.start_cpu if z else 0.0)


def _short(path: str, root: Path) -> str:
    """A checkout's file relative to the checkout (the temp dir means nothing to a reader)."""
    p = Path(path)
    return str(p.relative_to(root)) if p.is_relative_to(root) else path


@command("bisect_bench")
def main(argv=None) -> int:
    p = Parser(prog="bisect_bench", description=__doc__.split("\n\n")[0])
    p.parse_args(argv)
    console = Console(stderr=True, width=120)
    env = dict(os.environ)
    ws = workspace_root(env, None)
    with tempfile.TemporaryDirectory(prefix="bisect-bench-") as tmp:
        tmp = Path(tmp)
        options = _options(tmp / "state", tmp / "head-cache", env)
        t0 = time.monotonic()
        fixture = handler.make_fixture(options)
        gen = time.monotonic() - t0
        planned = handler.load_plan(options, fixture)
        leg = next(leg for leg in planned.legs if leg.job_name == JOB)
        setup = prepare(options, fixture.head, fixture)
        red = run_leg(leg, LegSettings(ws, tmp / "out", "pytest", env, timeout=900), setup.for_leg(leg))
        tests = red.failing_tests
        if not tests:
            console.print(f"[red]{JOB} did not fail at the fixture's head: nothing to bisect[/red]")
            return 1
        commits = list(reversed(setup.source.commits_between(fixture.base, fixture.head, first_parent=True)))
        suites = leg_suites(leg, ws, setup.for_leg(leg))
        a = Way("A", tmp, fixture, env, ws, leg, whole=False, warm=True)
        c = Way("C", tmp, fixture, env, ws, leg, whole=True, warm=False)
        c2 = Way("C2", tmp, fixture, env, ws, leg, whole=True, warm=True)
        b = Way("B", tmp, fixture, env, ws, leg, whole=True, warm=False)
        found = {w.name: w.bisect(fixture.base, fixture.head, tests) for w in (a, c, c2)}
        b.every(commits, tests)

    table = Table(
        title=f"bisection over {len(commits)} commits (fixture of {len(commits) + 1}; generated in {gen:.1f}s)"
    )
    for col in (
        "way",
        "runs",
        "wall s",
        "CPU s",
        "per run: checkout / overlay / process / tests s",
        "first bad commit",
    ):
        table.add_column(col)
    name = lambda f: f.culprit.sha[:12] if f.culprit else f.status  # noqa: E731
    rows = (
        (a, "A bisect, failing tests, warm", found["A"]),
        (b, "B whole leg at every commit", None),
        (c, "C bisect, whole leg per step", found["C"]),
        (c2, "C' bisect, whole leg, warm", found["C2"]),
    )
    for way, label, f in rows:
        runs = f"{f.runs} (+{len(f.steps) - f.runs} confirm)" if f else f"{len(way.probes)} of {len(commits)}"
        parts = " / ".join(f"{way.per_run()[k]:.2f}" for k in PARTS)
        table.add_row(label, runs, f"{way.wall:.1f}", f"{way.cpu():.1f}", parts, name(f) if f else "")
    console.print(table)
    print(
        f"failing leg {JOB}: {len(suites.files) + len(suites.upstream)} file(s) "
        f"({', '.join(_short(x, setup.root) for x in suites.upstream + suites.files)}), "
        f"configs {', '.join(leg.configs)}: "
        f"{red.counts.passed + red.counts.failed + red.counts.skipped} tests ({red.counts.failed} failing) "
        f"in {red.seconds:.1f}s; {len(tests)} failing re-run per step"
    )
    print(f"A's warm interpreter started in {a.zygote():.1f}s (counted in A); C' in {c2.zygote():.1f}s")
    print(f"A's runs by overlay zygote: {a.forked()}; C': {c2.forked()}")
    print(f"bisection/every-commit (A/B) = {a.wall / b.wall:.3f}  (target <= 0.2)")
    print(f"bisection/whole-leg-per-step (A/C) = {a.wall / c.wall:.3f}  (target <= 0.5)")
    print(
        f"split: failing tests only (A/C') = {a.wall / c2.wall:.3f}; warm interpreter (C'/C) = {c2.wall / c.wall:.3f}"
    )
    print(f"CPU (other jobs' load left out): A/B = {a.cpu() / b.cpu():.3f}, A/C = {a.cpu() / c.cpu():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
