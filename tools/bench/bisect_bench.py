"""Bisection cost on the generated upstream (N = 32 commits, regression seeded at 21),
three ways measured side by side in one run, same checkouts and core overlays (warmed
first, as a CI cache would hold them):

  A  the bisection as the handler runs it: only the failing tests re-run at each
     midpoint (⌈log2 31⌉ = 5 runs) plus the culprit's confirming re-run;
  B  the failing leg re-run whole at every commit of the range (31 runs);
  C  the same bisection re-running the whole leg at each step.

Prints A/B (target <= 0.2) and A/C (target <= 0.5). Each run is a fresh pytest process
(torch import included), so on a leg as small as the fixture's (16 tests) start-up
dominates both A and C: the A/C ratio says how much of a step is the tests themselves.

    tools/bazel run //tools/bench:bisect_bench [-- --sample 8]

`--sample K` runs B at K commits spread over the range and scales to all 31 (printed as
an estimate); the default runs all of them (minutes).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from crcr.handler import main as handler
from crcr.handler.investigate import Rerunner, bisect_range
from crcr.handler.runner import run_leg
from crcr.handler.upstream import prepare
from crcr.upstream.bisect import Limits

JOB = "test-upstream-spyre-nn"


def _args(state: Path, cache: Path):
    return handler._parser().parse_args(
        [
            "--state-dir",
            str(state),
            "--upstream",
            "fixture",
            "--upstream-cache",
            str(cache),
            "--runner",
            "pytest",
        ]
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sample", type=int, default=0, help="B at K commits, scaled to the range (0 = all)")
    opts = p.parse_args(argv)
    if opts.sample < 0:
        print("bisect_bench: --sample must be >= 0", file=sys.stderr)
        return 2
    console = Console(stderr=True)
    env = dict(os.environ)
    ws = handler.workspace_root(env, None)
    with tempfile.TemporaryDirectory(prefix="bisect-bench-") as tmp:
        tmp = Path(tmp)
        args = _args(tmp / "state", tmp / "cache")
        t0 = time.monotonic()
        fixture = handler.make_fixture(args, env)
        gen = time.monotonic() - t0
        planned = handler.load_plan(args, env, ws, fixture)
        leg = next(leg for leg in planned.legs if leg.job_name == JOB)
        setup = prepare("fixture", args, fixture.head, env, fixture)
        red = run_leg(
            leg, ws, tmp / "out", runner="pytest", env=env, timeout=900, upstream=setup.for_leg(leg)
        )
        tests = red.failing_tests
        if not tests:
            console.print(f"[red]{JOB} did not fail at the fixture's head: nothing to bisect[/red]")
            return 1
        commits = list(reversed(setup.source.commits_between(fixture.base, fixture.head, first_parent=True)))
        for c in commits:  # warm the checkout and overlay cache, as CI's would be
            setup.core_at(setup.source.checkout(c.sha), c.sha)

        def rerunner(whole: bool) -> Rerunner:
            return Rerunner(leg, ws, tmp / "reruns", env, setup.source, setup.core_at, 900, whole_leg=whole)

        limits = Limits(16, 3600)
        t = time.monotonic()
        a = bisect_range(rerunner(False), fixture.base, fixture.head, tests, limits)
        wall_a = time.monotonic() - t
        t = time.monotonic()
        c = bisect_range(rerunner(True), fixture.base, fixture.head, tests, limits)
        wall_c = time.monotonic() - t
        picked = (
            commits if not opts.sample else commits[:: max(1, len(commits) // opts.sample)][: opts.sample]
        )
        every = rerunner(True)
        t = time.monotonic()
        for commit in picked:
            every.probe(commit.sha, tests)
        wall_b = (time.monotonic() - t) * len(commits) / len(picked)

    table = Table(
        title=f"bisection over {len(commits)} commits (fixture of {len(commits) + 1}; generated in {gen:.1f}s)"
    )
    for col in ("way", "runs", "wall s", "first bad commit"):
        table.add_column(col)
    name = lambda b: b.culprit.sha[:12] if b.culprit else b.status  # noqa: E731
    table.add_row(
        "A bisect, failing tests only",
        f"{a.runs} (+{len(a.steps) - a.runs} confirm)",
        f"{wall_a:.1f}",
        name(a),
    )
    table.add_row(
        "B whole leg at every commit" + (" (estimated)" if opts.sample else ""),
        f"{len(picked)} of {len(commits)}",
        f"{wall_b:.1f}",
        "",
    )
    table.add_row(
        "C bisect, whole leg per step",
        f"{c.runs} (+{len(c.steps) - c.runs} confirm)",
        f"{wall_c:.1f}",
        name(c),
    )
    console.print(table)
    print(f"bisection/every-commit (A/B) = {wall_a / wall_b:.3f}  (target <= 0.2)")
    print(f"bisection/whole-leg-per-step (A/C) = {wall_a / wall_c:.3f}  (target <= 0.5)")
    print(
        f"failing leg: {red.counts.passed + red.counts.failed} tests run, {len(tests)} failing re-run per step"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
