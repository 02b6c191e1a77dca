"""Command line: python -m tools.shard {update,plan,matrix,leg} ...

update  fold durations from JUnit XML / JSON summaries into the timings file
plan    print the shards for a list of node ids
matrix  print a GitHub Actions matrix (one leg per feature x shard)
leg     run a CI leg command, retrying it on infrastructure failures
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from testing.base.atomic import write_text
from testing.base.cliargs import Parser, positive_float, positive_int, user_path, workspace_dir
from testing.base.command import command
from testing.config import features, runs
from testing.config.features import Feature
from testing.matrix import legs as matrix
from testing.matrix import lpt as planner
from testing.matrix import timings
from tools.errors import ToolsError
from tools.shard import ingest, leg

# Under `bazel run`, paths the user types are read where they stand (testing/base/cliargs.py);
# this default belongs to the checkout.
TIMINGS = "tools/shard/timings/timings.json"
SHOWN = 5  # dropped tests named in the message; the rest are counted


class CliError(ToolsError):
    pass


def _read_nodeids(source: str) -> list[str]:
    try:
        text = sys.stdin.read() if source == "-" else user_path(source).read_text(encoding="utf-8")
    except OSError as err:
        raise CliError(f"{source}: cannot read: {err.strerror}") from None
    # Accepts `pytest --collect-only -q` output: node ids, then a blank line and a count.
    return [line.strip() for line in text.splitlines() if "::" in line and not line.startswith(" ")]


def config_testlogs(testlogs: Path, workspace: Path) -> list[Path]:
    """The test.xml of every generated config target (//testing:config_<key>) under a
    bazel-testlogs directory: exactly those, so no other target's results are folded in
    (a glob `config_*` also matched //testing:config_unit_test)."""
    if not testlogs.is_dir():
        raise CliError(
            f"--from-testlogs {testlogs}: not a directory (run `tools/bazel test //testing:configs`)"
        )
    found = []
    for path in features.config_files(workspace / features.CONFIG_DIR):
        name = runs.config_target_name(path.relative_to(workspace).as_posix())
        target = testlogs / runs.TARGET_PACKAGE.strip("/") / name
        # a target with shard_count keeps one test.xml per Bazel shard (shard_1_of_2/...)
        found += [
            x for x in [target / "test.xml", *sorted(target.glob("shard_*_of_*/test.xml"))] if x.is_file()
        ]
    if not found:
        raise CliError(f"--from-testlogs {testlogs}: no generated config target has results there")
    return found


def _drop_message(stale: list[str], recorded: int) -> str:
    shown = ", ".join(stale[:SHOWN]) + (f" (+{len(stale) - SHOWN} more)" if len(stale) > SHOWN else "")
    return f"--prune drops {len(stale)} of {recorded} recorded tests: {shown}"


def cmd_update(args: argparse.Namespace) -> int:
    old = timings.load(args.timings)
    results = list(args.results)
    if args.from_testlogs:
        results += config_testlogs(args.from_testlogs, workspace_dir())
    if not results:
        raise CliError("update: give result files and/or --from-testlogs DIR")
    observed: dict[str, float] = {}
    for result in results:
        observed.update(ingest.from_file(result, args.root))
    tests = timings.merge(old.tests, observed, args.weight)
    stale = timings.stale(tests, set(observed)) if args.prune else []
    if stale and not args.drop:
        raise CliError(_drop_message(stale, len(tests)) + "; nothing written, add --drop to drop them")
    if stale:
        print(_drop_message(stale, len(tests)), file=sys.stderr)
        tests = timings.prune(tests, set(tests).difference(stale))
    previous = timings.save(args.timings, timings.Timings(tests=tests))
    kept = f"; previous version in {previous}" if previous else ""
    print(
        f"{args.timings}: {len(observed)} durations from {len(results)} files folded in, "
        f"{len(tests)} tests recorded (were {len(old.tests)}){kept}"
    )
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    nodeids = _read_nodeids(args.nodeids)
    recorded = timings.load(args.timings).tests
    make = planner.lpt_plan if args.strategy == "lpt" else planner.round_robin_plan
    plan = make(nodeids, args.shards, recorded)
    print(
        json.dumps(
            {
                "makespan": round(plan.makespan, 3),
                "ideal": round(planner.ideal_makespan(plan.loads, args.shards), 3),
                "shards": [
                    {"index": i, "seconds": round(load, 3), "nodeids": list(members)}
                    for i, (members, load) in enumerate(zip(plan.shards, plan.loads))
                ],
            },
            indent=1,
        )
    )
    return 0


def _feature(spec: str) -> Feature:
    name, sep, rest = spec.partition("=")
    target, sep2, listing = rest.rpartition(":")
    if not (sep and sep2 and name and target and listing):
        raise CliError(f"--feature {spec!r}: expected NAME=TARGET:NODEID_LIST_FILE")
    return Feature(name, (), target, tuple(_read_nodeids(listing)))


def cmd_matrix(args: argparse.Namespace) -> int:
    recorded = timings.load(args.timings).tests
    features = [_feature(spec) for spec in args.feature or ()]
    if args.generated:
        if not (args.generated / "configs").is_dir():
            raise CliError(f"--generated {args.generated}: no configs/ directory there")
        features += matrix.generated_features(args.generated, recorded)
    if not features:
        raise CliError("matrix: give --generated and/or --feature")
    doc = matrix.build_matrix(
        features,
        recorded,
        shards=args.shards,
        max_leg_seconds=args.max_leg_seconds,
        max_shards=args.max_shards,
    )
    text = json.dumps(doc, separators=(",", ":")) if args.compact else json.dumps(doc, indent=1)
    if args.out:  # written whole or not at all (a shell's `> file` leaves it empty on a failure)
        write_text(args.out, text + "\n")
        print(f"matrix: {len(doc['include'])} legs written to {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


def cmd_leg(args: argparse.Namespace) -> int:
    if not args.command:
        raise CliError("leg: give the leg's command after --")
    return leg.run_with_retry(args.command, args.attempts)


def parser() -> argparse.ArgumentParser:
    top = Parser(prog="python -m tools.shard", description=__doc__.split("\n\n")[0])
    sub = top.add_subparsers(dest="command_name", required=True)
    positive = positive_int
    recorded = workspace_dir() / TIMINGS

    up = sub.add_parser("update", help="fold new durations into the timings file")
    up.add_argument("results", nargs="*", type=user_path, help="JUnit XML or JSON summary files")
    up.add_argument(
        "--from-testlogs",
        type=user_path,
        metavar="DIR",
        help="the generated config targets' results under a bazel-testlogs directory",
    )
    up.add_argument("--timings", type=user_path, default=recorded)
    up.add_argument(
        "--root", type=user_path, default=workspace_dir(), help="resolve JUnit classnames to files here"
    )
    up.add_argument(
        "--weight", type=float, default=timings.DEFAULT_WEIGHT, help="weight of the new run (0..1]"
    )
    up.add_argument(
        "--prune",
        action="store_true",
        help="drop recorded tests absent from these results, in the files the results ran "
        "(names what it would drop; writes nothing without --drop)",
    )
    up.add_argument("--drop", action="store_true", help="with --prune: do drop them")
    up.set_defaults(run=cmd_update)

    pl = sub.add_parser("plan", help="print the shards for node ids (file or - for stdin)")
    pl.add_argument("nodeids")
    pl.add_argument("--shards", type=positive, required=True)
    pl.add_argument("--timings", type=user_path, default=recorded)
    pl.add_argument("--strategy", choices=("lpt", "round-robin"), default="lpt")
    pl.set_defaults(run=cmd_plan)

    mx = sub.add_parser("matrix", help="print a GitHub Actions matrix JSON")
    mx.add_argument(
        "--generated",
        type=user_path,
        nargs="?",
        const=Path("."),
        metavar="WORKSPACE",
        help="one feature per generated config target, from WORKSPACE/configs/ (default: .)",
    )
    mx.add_argument("--feature", action="append", metavar="NAME=TARGET:NODEID_LIST_FILE")
    size = mx.add_mutually_exclusive_group()
    size.add_argument("--shards", type=positive, help="fixed shards per feature")
    size.add_argument("--max-leg-seconds", type=positive_float, help="split a feature until each leg fits")
    mx.add_argument("--max-shards", type=positive, default=16)
    mx.add_argument("--timings", type=user_path, default=recorded)
    mx.add_argument("--compact", action="store_true", help="one line, for $GITHUB_OUTPUT")
    mx.add_argument("-o", "--out", type=user_path, help="write the JSON here (atomically) instead of stdout")
    mx.set_defaults(run=cmd_matrix)

    lg = sub.add_parser("leg", help="run a leg command with infrastructure retries")
    lg.add_argument("--attempts", type=positive, default=2)
    lg.add_argument("command", nargs=argparse.REMAINDER)
    lg.set_defaults(run=cmd_leg)
    return top


@command("python -m tools.shard", {(CliError, timings.TimingsError, ingest.IngestError, ValueError): 2})
def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if getattr(args, "command", None) and args.command[:1] == ["--"]:
        args.command = args.command[1:]
    return args.run(args)
