"""Shard balance on recorded durations: makespan / ideal, balanced beside round-robin.

    python3 -m tools.bench.shard_bench [--timings FILE | --results JUNIT_OR_SUMMARY ...]
    tools/bazel run //tools/bench:shard_bench

For 2, 4 and 8 shards it prints, measured side by side in one run:
  - lpt:        balanced plan from the recorded durations;
  - lpt 25% new: the same, after hiding a quarter of the durations (seeded), so
                those tests are planned from estimates; scored on real durations;
  - round-robin: tests dealt in run order, the naive split.
ideal = max(total / shards, longest test): no split of these tests can finish
sooner, so a ratio of 1.00 is perfect. total/shards is printed too. Target:
lpt <= 1.05.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from testing.base.cliargs import Parser, user_path
from testing.base.command import command
from testing.matrix import lpt as planner
from testing.matrix import timings
from tools.shard import ingest

REPO = Path(__file__).resolve().parents[2]
DEFAULT_TIMINGS = REPO / "tools/shard/timings/timings.json"
SHARDS = (2, 4, 8)
TARGET = 1.05


def load(args: argparse.Namespace) -> dict[str, float]:
    """Durations in run order (results files) or in the timings file's order."""
    if args.results:
        durations: dict[str, float] = {}
        for path in args.results:
            durations.update(ingest.from_file(path, REPO))
        return durations
    return dict(timings.load(args.timings).tests)


def hide(durations: dict[str, float], fraction: float, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    hidden = set(rng.sample(sorted(durations), int(len(durations) * fraction)))
    return {n: s for n, s in durations.items() if n not in hidden}


def ratios(durations: dict[str, float], shards: int) -> dict[str, float]:
    nodeids = list(durations)
    ideal = max(planner.ideal_makespan(durations.values(), shards), max(durations.values()))
    lpt = planner.lpt_plan(nodeids, shards, durations)
    partial = planner.lpt_plan(nodeids, shards, hide(durations, 0.25, seed=shards))
    rr = planner.round_robin_plan(nodeids, shards, durations)
    return {
        "ideal": ideal,
        "even": planner.ideal_makespan(durations.values(), shards),
        "lpt": lpt.makespan / ideal,
        "lpt_est": planner.true_makespan(partial, durations) / ideal,
        "rr": rr.makespan / ideal,
    }


@command("shard_bench", {(timings.TimingsError, ingest.IngestError): 2}, prefix="error: ")
def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="shard_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--timings", type=user_path, default=DEFAULT_TIMINGS)
    # paths are read where the user stands, under `tools/bazel run` too
    parser.add_argument(
        "--results", type=user_path, nargs="*", help="JUnit XML / JSON summaries of a real run"
    )
    args = parser.parse_args(argv)
    durations = load(args)
    if len(durations) < max(SHARDS):
        raise timings.TimingsError(
            f"need at least {max(SHARDS)} recorded tests, have {len(durations)} "
            f"(record some: python -m tools.shard update <junit.xml>)"
        )
    console = Console(width=110)
    source = ", ".join(map(str, args.results)) if args.results else str(args.timings)
    console.print(
        f"{len(durations)} tests, {sum(durations.values()):.1f} s recorded, "
        f"longest {max(durations.values()):.2f} s  ({source})"
    )
    table = Table("shards", "total/shards s", "ideal s", "lpt", "lpt 25% new", "round-robin", "lpt <= 1.05")
    worst = 0.0
    for shards in SHARDS:
        r = ratios(durations, shards)
        worst = max(worst, r["lpt"])
        table.add_row(
            str(shards),
            f"{r['even']:.2f}",
            f"{r['ideal']:.2f}",
            f"{r['lpt']:.3f}",
            f"{r['lpt_est']:.3f}",
            f"{r['rr']:.3f}",
            "yes" if r["lpt"] <= TARGET else "NO",
        )
    console.print(table)
    console.print(f"makespan / ideal, worst balanced: {worst:.3f} (target <= {TARGET})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
