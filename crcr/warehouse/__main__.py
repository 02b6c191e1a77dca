"""warehouse: ask the results warehouse, write its HUD page, or fill it with simulated history.

    tools/bazel run //crcr:warehouse_tool -- flaky
    tools/bazel run //crcr:warehouse_tool -- --warehouse clickhouse://127.0.0.1:9000/oot_ci l3
    tools/bazel run //crcr:warehouse_tool -- --simulate-days 30 page --out /tmp/hud.html

Exit codes: 0 ok, 2 bad input or an unreachable warehouse (one line, no traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Optional, Sequence

from crcr.callback_client.errors import KNOWN, CrcrError
from crcr.warehouse import queries
from crcr.warehouse.backends import open_warehouse
from crcr.warehouse.levels import ENV as LEVELS_ENV
from crcr.warehouse.levels import given_histories
from testing.base import flags
from testing.base.cliargs import Parser, positive_int
from testing.base.command import command


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="warehouse", description=__doc__.split("\n\n")[0])
    flags.warehouse(p)
    p.add_argument(
        "--simulate-days",
        type=positive_int,
        help="first write this many days of SIMULATED history (labelled; never counted as real L3 data)",
    )
    p.add_argument("--seed", type=int, default=0, help="simulation seed")
    p.add_argument(
        "--level-history",
        type=Path,
        help=f"a backend's level history (crcr/warehouse/levels.py; default ${LEVELS_ENV}): tenure and demotions",
    )
    flags.json_output(p)
    sub = p.add_subparsers(dest="command")
    h = sub.add_parser("history", help="a test's (or an op's) outcomes per upstream commit")
    h.add_argument("--test", help="test id or a part of it (classname::name)")
    h.add_argument("--op", help="an OpInfo name, e.g. add")
    f = sub.add_parser("flaky", help="flaky tests with their evidence")
    f.add_argument("--days", type=positive_int, default=14)
    pr = sub.add_parser("promotions", help="xfail tests that passed their last K runs, with the config diff")
    pr.add_argument("-k", type=positive_int, default=3)
    sub.add_parser("failing", help="failing tests: first seen, first failed, last passed")
    r = sub.add_parser("pass-rate", help="pass rate per feature per day")
    r.add_argument("--days", type=positive_int, default=30)
    sub.add_parser("dispatches", help="the dispatch history")
    sub.add_parser(
        "l3",
        help="L3 standing (real legs only), as CRCR computes it: promotion gates, demotion, level history",
    )
    ss = sub.add_parser(
        "simulate-stream",
        help="how many devices for L3: replay a dispatch stream through the real gating, planner, "
        "supersession and reuse onto D devices (simulated time, no test runs), judged by the L3 code",
    )
    ss.add_argument(
        "--stream", type=Path, help='JSONL, one {"at": T, "event": E} a line (default: synthetic)'
    )
    ss.add_argument(
        "--days", type=positive_int, default=14, help="synthetic stream: days (default 14, the L3 window)"
    )
    ss.add_argument("--devices", default="1-12", help="pool sizes to try: N, A-B or A,B,C (default 1-12)")
    ss.add_argument(
        "--mode",
        action="append",
        help="gating value(s) to compare (crcr/dispatch/gating.py; default the three modes)",
    )
    ss.add_argument("--no-reuse", action="store_true", help="run every leg (no reuse of green legs)")
    ss.add_argument("--no-supersede", action="store_true", help="a newer dispatch cancels nothing")
    ss.add_argument(
        "--scratch",
        type=Path,
        help="scratch warehouse directory for the simulated legs (default: a temp dir)",
    )
    pg = sub.add_parser("page", help="write the HUD page (all panels) as one offline HTML file")
    pg.add_argument("--out", type=Path, required=True)
    pg.add_argument("--screenshot", type=Path, help="also a full-page PNG, taken in headless Chromium")
    return p


def _print(args, rows, text_of) -> None:
    if args.json:
        print(
            json.dumps(
                [asdict(r) if hasattr(r, "__dataclass_fields__") else r for r in rows], default=str, indent=1
            )
        )
        return
    for r in rows:
        print(text_of(r))
    if not rows:  # an empty answer still says what was asked of which warehouse
        print(f"{args.command}: none found in {args.where}")


def cmd_l3(wh, args, now: float, levels: dict) -> int:
    found = queries.l3_standings(wh, now, levels)
    if args.json:
        print(json.dumps([s.as_json() for s in found], indent=1))
        return 0
    if not found:
        print("no real legs in the warehouse and no level history: every gate has no data")
    for s in found:
        print("\n".join(s.lines()))
    return 0


def run(argv: Optional[Sequence[str]] = None, env=None) -> int:
    env = os.environ if env is None else env
    args = _parser().parse_args(argv)
    where = env.get("BUILD_WORKING_DIRECTORY")  # `bazel run` runs us elsewhere: relative paths are the user's
    if where:
        for name in ("out", "screenshot", "level_history", "stream", "scratch"):
            if getattr(args, name, None) is not None:
                setattr(args, name, Path(where) / getattr(args, name))
    now = time.time()
    levels = given_histories(args.level_history, env, now)  # before the warehouse: a bad file is one line
    wh = open_warehouse(args.warehouse, env, create=bool(args.simulate_days))  # only writing creates one
    args.where = wh.where
    ws = Path(env.get("BUILD_WORKSPACE_DIRECTORY") or ".")
    if args.simulate_days:
        from crcr.warehouse.simulate import write_history

        added = write_history(wh, args.simulate_days, now, args.seed, ws)
        print(
            f"simulated: {added} legs over {args.simulate_days} days written to {wh.where} (SIMULATED, labelled)",
            file=sys.stderr,
        )
    cmd = args.command
    if cmd in LISTS:
        ask, line = LISTS[cmd]
        found = ask(wh, args, now)
        _print(args, found, line)
        if cmd == "promotions" and found and not args.json:
            from crcr.warehouse.promote import candidate_diff

            sys.stdout.write(candidate_diff(wh, found, ws))
    elif cmd == "l3":
        return cmd_l3(wh, args, now, levels)
    elif cmd == "simulate-stream":
        from crcr.warehouse.capacity_cli import cmd_simulate_stream

        return cmd_simulate_stream(wh, args, now, ws)
    elif cmd == "page":
        cmd_page(wh, args, now, ws, levels)
    elif not args.simulate_days:
        _parser().print_usage(sys.stderr)
        return 2
    return 0


def _history(wh, args, now: float):
    if not (args.test or args.op):
        raise CrcrCliError("history needs --test or --op")
    return queries.history(wh, args.test, args.op)


def _flaky_line(f) -> str:
    evidence = "".join(f"\n  {_when(t)} {u[:10]}/{b[:10]} {j}: {o}" for t, u, b, j, o in f.evidence)
    return f"{f.test_id}: {f.reason}, flip rate {f.flip_rate:.0%} over {f.runs} runs{evidence}"


# The commands that list rows: command -> (its question, one row's text line). --json prints
# the rows themselves; promotions also print the config diff (run()).
LISTS = {
    "history": (
        _history,
        lambda p: f"{p.upstream_sha[:12]} {p.backend_sha[:12]} {_when(p.at)} {p.outcomes}",
    ),
    "flaky": (lambda wh, args, now: queries.flaky(wh, now, args.days), _flaky_line),
    "promotions": (
        lambda wh, args, now: queries.promotion_candidates(wh, args.k),
        lambda p: f"{p.test_id} ({p.rule or 'no rule line'}): " + ", ".join(o for _, _, o in p.last),
    ),
    "failing": (
        lambda wh, args, now: queries.failing_tests(wh),
        lambda f: (
            f"{f.test_id}: {f.outcome}; first seen {_when(f.first_seen)}, first failed {_when(f.first_failed)},"
            f" last passed {_when(f.last_passed)} {f.last_passed_sha[:12]}"
        ),
    ),
    "pass-rate": (
        lambda wh, args, now: queries.pass_rate_by_day(wh, now, args.days),
        lambda p: (
            f"{p.x} {p.series}{' (simulated)' if p.simulated else ''}: {p.passed}/{p.passed + p.failed}"
        ),
    ),
    "dispatches": (
        lambda wh, args, now: queries.dispatches(wh, 50),
        lambda d: (
            f"{_when(d.started_at)} {d.event_type} {d.upstream_sha[:12]} legs {d.legs_green}/{d.legs}"
            f" tests {d.passed}/{d.passed + d.failed}{' SIMULATED' if d.simulated else ''}"
        ),
    ),
}


def cmd_page(wh, args, now: float, ws: Path, levels: dict) -> None:
    from crcr.relay.panels import PageContext, warehouse_page
    from testing.base.atomic import write_text

    page = warehouse_page(wh, PageContext(now, ws, levels=levels))
    print(write_text(args.out, page))
    if args.screenshot:
        from crcr.relay.browser import screenshot

        charts = screenshot(args.out.resolve().as_uri(), str(args.screenshot))
        print(f"{args.screenshot}: " + ", ".join(f"{c['chart']} {c['drawn']} points" for c in charts))


class CrcrCliError(CrcrError):
    pass


def _when(epoch) -> str:
    from crcr.relay.panels import when

    return when(epoch)


@command("warehouse", {KNOWN: 2}, prefix="warehouse: ", broken_pipe=0)  # `| head` is fine
def main(argv: Optional[Sequence[str]] = None) -> int:
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
