"""Run one shard's tests with crash recovery and test-level reruns.

    python -m tools.shard.runner [--reruns N] [--isolate-mode fork|restart] [--junitxml OUT] [--summary OUT] -- <pytest args>

pytest runs in child processes with the sharding plugin (testing.matrix.plugin) and the
journal plugin (tools.shard.plugin) journaling progress into a pipe, as the crash-restart supervisor's events (testing/supervisor):
  1. the shard runs (sharding comes from the environment, as in any pytest);
     with --isolate-mode fork (the default) the child pytest is a zygote: it
     imports and collects once and forks per batch, so a test that kills its
     process (segfault, abort) is recorded as crashed at the cost of one fork;
  2. if a child pytest itself dies (restart mode, or where fork is unsafe), the
     test it was running is recorded as crashed and the tests it never started
     run in a new child;
  3. tests whose last attempt failed, errored or crashed are rerun up to N
     times, each round in a fresh child; fail-then-pass is reported as flaky.
The merged JUnit XML goes to --junitxml (default $XML_OUTPUT_FILE), and a JSON
summary to --summary (default $TEST_UNDECLARED_OUTPUTS_DIR/shard_summary.json).
Exit status: 0 when no test's verdict is failed/error/crashed (testing.results' BAD: a
strict XPASS is a promotion candidate, run once, green), 1 otherwise,
or pytest's own status when it could not run the tests at all.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

from testing.base import atomic
from testing.base.cliargs import Parser, non_negative_int, positive_float, positive_int, user_path
from testing.base.command import command
from testing.results import junit
from testing.results.outcomes import BAD, FLAKY, PROMOTABLE
from testing.supervisor import supervisor
from testing.supervisor.stall import SLOW
from testing.supervisor.supervisor import describe_exit, supervise
from tools.shard.devices import INFRA, DevicePlan, Pool, collect, device_list, spoiled
from tools.shard.merge_junit import Attempt, final_case
from tools.shard.shardrun import ShardRun, Workspace, log
from tools.shard.verdicts import Verdict, classify, to_rerun

NO_TESTS = 5  # pytest's "no tests collected"


def run_until_done(
    pytest_args: list[str], only: list[str] | None, ws: Workspace
) -> tuple[dict[str, Attempt], int | None]:
    """Run the tests (all selected, or `only`) to the end, restarting after
    crashes with the tests not yet started. Returns attempts per test, and
    pytest's status if it could not select tests at all (else None)."""
    run = ShardRun(pytest_args, only, ws)
    progress = supervise(run.launch, run.sink, max_restarts=supervisor.MAX_RESTARTS)
    attempts = run.with_cases()
    if progress.planned is None:
        if only:  # it selected before; now dies during collection: give up on the rest
            for nodeid in only:
                attempts[nodeid] = Attempt(
                    "error", 0.0, None, f"not run: pytest {describe_exit(progress.status)} before any test"
                )
            return attempts, None
        return attempts, progress.status
    if not progress.planned and only is None:
        return attempts, NO_TESTS
    return attempts, None


def run_shard(
    pytest_args: list[str], reruns: int, ws: Workspace, plan: DevicePlan | None = None
) -> tuple[dict[str, Verdict], dict[str, list[Attempt]], int | None]:
    """The shard's tests and their reruns, in one process chain or (``plan``) on a pool of cards."""
    if plan is None:
        first, status = run_until_done(pytest_args, None, ws)
        history = {nodeid: [attempt] for nodeid, attempt in first.items()}
        rerun = lambda again: {k: [a] for k, a in run_until_done(pytest_args, again, ws)[0].items()}  # noqa: E731
    else:
        pool = Pool(plan, pytest_args, ws.root / "devices", log)
        pool.probe_ahead()  # while the shard's tests are collected
        tests = collect(pytest_args, ws.root / "devices")
        history, status = (pool.run(tests), None) if tests else ({}, NO_TESTS)
        rerun = pool.run
    verdicts = {nodeid: classify(counted(tries)) for nodeid, tries in history.items()}
    for round_ in range(1, reruns + 1):
        again = [n for n in to_rerun(verdicts, round_) if may_rerun(history[n])]
        if not again:
            break
        log(f"rerun {round_}/{reruns}: {len(again)} tests whose last attempt failed")
        results = rerun(again)
        for nodeid in again:
            history[nodeid] += results.get(nodeid) or [Attempt("error", 0.0, None, "not run in rerun")]
            verdicts[nodeid] = classify(counted(history[nodeid]))
    if plan is not None:
        ws.children += [child for part in pool.workspaces for child in part.children]
        ws.devices = pool.report()
    return verdicts, history, status


def may_rerun(tries: list[Attempt]) -> bool:
    """A test killed as slow (stall.py) is re-run once, and never when it is slow again:
    a deterministic overrun does not become green by trying, it only costs the budget again."""
    kinds = [SLOW if a.detail.startswith(f"{SLOW}:") else "" for a in tries]
    if SLOW not in kinds:
        return True
    return kinds.count(SLOW) == 1 and kinds[-1] == SLOW


def counted(tries: list[Attempt]) -> list[str]:
    """The outcomes a verdict is made of: an attempt a sick device spoiled (infra) is not the
    test's (it ran again on a healthy card), unless nothing else is left of it."""
    own = [a.outcome for a in tries if not spoiled(a)]
    return own or [tries[-1].outcome]


def summary(verdicts: dict[str, Verdict], history: dict[str, list[Attempt]], ws: Workspace) -> dict:
    def seconds(nodeid: str) -> float:
        tries = history[nodeid]
        return (tries[-1] if verdicts[nodeid].outcome == FLAKY else tries[0]).seconds

    return {
        "format": "oot-ci-shard-summary",
        "version": 1,
        "counts": dict(sorted(Counter(v.outcome for v in verdicts.values()).items())),
        "tests": [
            {"nodeid": n, "outcome": v.outcome, "attempts": list(v.attempts), "duration": seconds(n)}
            for n, v in verdicts.items()
        ],
        # passed although configured to fail (a strict XPASS too: green, run once)
        "promotion_candidates": [n for n, v in verdicts.items() if v.outcome in PROMOTABLE],
        "processes": ws.children,
        **({} if ws.devices is None else {"devices": ws.devices}),
    }


def _default_junit() -> Path | None:
    """Bazel tells a test where its JUnit XML goes."""
    return Path(os.environ["XML_OUTPUT_FILE"]) if os.environ.get("XML_OUTPUT_FILE") else None


def _default_summary() -> Path | None:
    """Bazel keeps files written here as the test's undeclared outputs."""
    base = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
    return Path(base) / "shard_summary.json" if base else None


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = Parser(prog="python -m tools.shard.runner", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--reruns", type=non_negative_int, default=2, help="reruns of a failing test (default 2)"
    )
    parser.add_argument(
        "--isolate-mode",
        choices=("fork", "restart"),
        default="fork",
        help="fork: the child pytest is a zygote, a crash costs one fork (default); "
        "restart: a crash costs a new pytest process",
    )
    parser.add_argument("--junitxml", type=user_path, default=_default_junit(), help="merged JUnit XML")
    parser.add_argument(
        "--summary",
        type=user_path,
        default=_default_summary(),
        help="JSON summary (verdicts, attempts, durations)",
    )
    cards = parser.add_argument_group("devices (tools/shard/devices.py)")
    cards.add_argument(
        "--devices",
        type=device_list,
        default=None,
        help="run on these cards, one pinned worker each, probed and drained when sick (e.g. 0,1,2,3)",
    )
    cards.add_argument("--device-type", default="spyre", help="the torch device type (default spyre)")
    cards.add_argument(
        "--device-module",
        default="torch_spyre",
        help="the backend's package each probe imports ('' where torch autoloads it; default torch_spyre)",
    )
    cards.add_argument(
        "--device-env",
        default="SPYRE_VISIBLE_DEVICES",
        help="the variable that pins a process to one card (default SPYRE_VISIBLE_DEVICES)",
    )
    cards.add_argument(
        "--device-node",
        default=None,
        help="the file a process holding card {i} has open, e.g. '$SPYRE_STATE_DIR/spyre{i}.lock': "
        "its holders are ended before a probe, and a card still held is 'device busy'",
    )
    cards.add_argument(
        "--probe-every",
        type=positive_int,
        default=50,
        help="tests per batch on a card, each checked after it in its process (default 50)",
    )
    cards.add_argument(
        "--probe-timeout", type=positive_float, default=60.0, help="a probe longer than this is a hang (60)"
    )
    cards.add_argument(
        "--hang-window",
        type=positive_float,
        default=None,
        help="seconds without progress that make a test hung, not slow (default 300)",
    )
    if "--" in argv:
        cut = argv.index("--")
        ours, pytest_args = argv[:cut], argv[cut + 1 :]
    else:
        ours, pytest_args = [], argv
    return parser.parse_args(ours), pytest_args


@command("python -m tools.shard.runner")
def main(argv: list[str] | None = None) -> int:
    args, pytest_args = parse_args(sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix="shard-", dir=os.environ.get("TEST_TMPDIR")) as tmp:
        ws = Workspace(Path(tmp), args.isolate_mode)
        verdicts, history, status = run_shard(pytest_args, args.reruns, ws, device_plan(args))
        if status is not None and status != NO_TESTS:
            log(f"pytest could not run the tests ({describe_exit(status)})")
            return status
        report = summary(verdicts, history, ws)
        if args.junitxml:
            cases = [case_of(n, v, history[n]) for n, v in verdicts.items()]
            junit.write(args.junitxml, junit.report(cases, "shard"))
        if args.summary:
            atomic.write_json(args.summary, report)
    counts = ", ".join(f"{n} {o}" for o, n in report["counts"].items()) or "no tests"
    log(f"verdicts: {counts}")
    if status == NO_TESTS and not _sharded():
        return NO_TESTS
    return 1 if any(v.outcome in BAD for v in verdicts.values()) else 0


def device_plan(args: argparse.Namespace) -> DevicePlan | None:
    if args.devices is None:
        return None
    return DevicePlan(
        devices=args.devices,
        device_type=args.device_type,
        device_module=args.device_module,
        device_env=args.device_env,
        node=args.device_node,
        probe_every=args.probe_every,
        probe_timeout=args.probe_timeout,
        hang_window=args.hang_window,
    )


def case_of(nodeid: str, verdict: Verdict, tries: list[Attempt]):
    """The test's <testcase>, decided by its own attempts; what a sick card spoiled is a property."""
    own = [a for a in tries if not spoiled(a)] or tries
    case = final_case(nodeid, verdict, own)
    details = [a.detail for a in tries if spoiled(a)]
    if details and own is not tries:
        junit.set_property(case, INFRA, " | ".join(details))
    return case


def _sharded() -> bool:
    return any(int(os.environ.get(var, "1") or 1) > 1 for var in ("TEST_TOTAL_SHARDS", "OOT_SHARD_TOTAL"))


if __name__ == "__main__":
    sys.exit(main())
