"""dispatch_handler: from one relay dispatch to reported test legs.

    tools/bazel run //crcr:dispatch_handler                   # full local cycle (generated upstream)
    tools/bazel run //crcr:dispatch_handler -- --event e.json plan
    python -m crcr.handler.main run-leg --leg 1 --runner pytest --upstream-root ~/pytorch

Modes: `plan` prints the GitHub matrix JSON; `run-leg` runs one leg in a CI
job; `cycle` (default) runs every leg locally, each reporting in_progress ->
completed. Without --relay-url the embedded relay/HUD emulator is started;
without an event, the upstream is the generated fixture (crcr/upstream/fixture.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

from crcr.api import default_state_dir
from crcr.dispatch import Decision, Dispatch, decide, load_dispatch_text
from crcr.errors import CallbackRejected, ConfigError, CrcrError, DeliveryPending
from crcr.handler.investigate import Triage, limits_from
from crcr.handler.plan import (
    Leg,
    auto_shards,
    check_core_configs,
    discover_features,
    matrix,
    plan_candidates,
    plan_legs,
)
from crcr.handler.runner import DEFAULT_TARGET_TEMPLATE, check_runner_can_run, choose_runner
from crcr.handler.upstream import MODES, LegHooks, backend_id, open_store, prepare, resolve_mode
from crcr.handler.workspace import workspace_root
from crcr.upstream.gitcmd import check_sha
from testing.base.atomic import write_json
from testing.base.cliargs import Parser, non_negative_int, positive_float, positive_int, user_path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pull_request_synchronize.json"
# The local cycle runs one duration-balanced tenth of every leg (tools/shard),
# so dispatch -> legs -> HUD takes a few minutes on 2 cores and every leg
# runs real tests. `--full` (and CI's bazel runner) runs everything.
SMOKE_SLICES = 10


@dataclass(frozen=True)
class Planned:
    dispatch: Dispatch
    decision: Decision
    legs: list[Leg]


def event_source(args, env: Mapping[str, str], fixture=None) -> Path:
    """--event, else $GITHUB_EVENT_PATH, else the generated fixture's dispatch, else the bundled example."""
    if args.event:
        return args.event
    if env.get("GITHUB_EVENT_PATH"):
        return Path(env["GITHUB_EVENT_PATH"])
    return fixture.event if fixture else EXAMPLE


# Space-separated --core-config default, so a workflow sets it once for plan and run-leg.
CORE_CONFIGS_ENV = "CRCR_CORE_CONFIGS"


def read_bazelrc(ws: Path) -> str:
    try:
        return (ws / ".bazelrc").read_text()
    except OSError as err:
        raise ConfigError(f"--core-config needs {ws / '.bazelrc'}: {err.strerror}") from None


def load_plan(args, env: Mapping[str, str], ws: Path, fixture=None, event: Optional[Path] = None) -> Planned:
    path = event or event_source(args, env, fixture)
    try:
        text = path.read_bytes()
    except OSError as err:
        raise ConfigError(f"{path}: {err.strerror}") from None
    d = load_dispatch_text(text, str(path))
    decision = decide(d)
    legs = []
    if decision.run:
        extra = list(args.extra_configs or []) + ([fixture.configs] if fixture else [])
        features = discover_features(ws, [Path(e).resolve() for e in extra])
        cores = args.core_config or env.get(CORE_CONFIGS_ENV, "").split()
        if cores:
            check_core_configs(cores, read_bazelrc(ws))
        legs = plan_legs(
            plan_candidates(d, args.backend or ["HEAD"], cores), features, auto_shards(features, args.shards)
        )
    return Planned(d, decision, legs)


def _parser() -> argparse.ArgumentParser:
    # Paths the user types are read where they stand, under `bazel run` too (testing/base/cliargs.py).
    p = Parser(prog="dispatch_handler", description=__doc__.split("\n\n")[0])
    p.add_argument("mode", nargs="?", choices=("cycle", "plan", "run-leg"), default="cycle")
    p.add_argument(
        "--event", type=user_path, help="event JSON (default $GITHUB_EVENT_PATH, else the bundled example)"
    )
    p.add_argument(
        "--workspace", type=user_path, help="repo root (default $BUILD_WORKSPACE_DIRECTORY or cwd)"
    )
    p.add_argument("--backend", action="append", help="backend refs, newest first (default HEAD)")
    p.add_argument(
        "--core-config",
        action="append",
        help="also test the newest backend on the core this Bazel --config selects "
        "(e.g. torch-2.14.1); separate non-primary legs, bazel runner only "
        "(default: $CRCR_CORE_CONFIGS, space-separated)",
    )
    p.add_argument(
        "--shards", type=non_negative_int, default=0, help="legs per feature, tools/shard balanced (0 = auto)"
    )
    p.add_argument("--runner", default="auto", help="auto|pytest|bazel (auto: pytest inside bazel run)")
    p.add_argument(
        "--test-command", help="leg command template, e.g. '{python} -m pytest --junitxml={junit} ...'"
    )
    p.add_argument("--select", help="pytest -m expression for the pytest runner")
    p.add_argument(
        "--smoke",
        type=positive_int,
        default=SMOKE_SLICES,
        help="local cycle: run 1/N of each leg (duration-balanced); 1 = all",
    )
    p.add_argument("--full", action="store_true", help="local cycle: run whole legs (same as --smoke 1)")
    p.add_argument(
        "--target-template",
        default=DEFAULT_TARGET_TEMPLATE,
        help="Bazel target per leg: {key} = spyre_op_consistency for configs/spyre/op_consistency.yaml; "
        "also {stem}, {feature}",
    )
    p.add_argument("--leg-timeout", type=positive_float, default=900.0, help="seconds per leg")
    p.add_argument("--out", type=user_path, help="logs, JUnit, HUD snapshot (default <state dir>/out)")
    p.add_argument("--relay-url", help="relay base URL (env CRCR_CALLBACK_URL); none = embedded emulator")
    p.add_argument("--repo", help="downstream owner/repo (env GITHUB_REPOSITORY)")
    p.add_argument("--state-dir", type=user_path, help="outbox dir (env CRCR_STATE_DIR)")
    p.add_argument("--serve", action="store_true", help="keep the embedded HUD up after the cycle")
    p.add_argument(
        "--simulate-days",
        type=positive_int,
        help="first add this many days of SIMULATED history to the warehouse (labelled on the page, "
        "never counted in real L3 numbers) so every HUD panel has data",
    )
    p.add_argument(
        "--warehouse",
        help="results warehouse: a directory (embedded ClickHouse, default ~/.cache/oot-ci/warehouse) "
        "or clickhouse://host:port/db (env OOT_WAREHOUSE)",
    )
    g = p.add_argument_group("upstream at the dispatched SHA (suite and core)")
    g.add_argument(
        "--upstream",
        choices=MODES,
        default="auto",
        help="fixture: generated local repo; fetch: git from --upstream-url; none: in-tree suites on "
        "the pinned wheel; auto: --upstream-root, else fetch if a URL is set, else fixture "
        "without an event, else none",
    )
    g.add_argument(
        "--upstream-root", type=user_path, help="use this pytorch checkout (at the dispatched SHA) as is"
    )
    g.add_argument("--upstream-url", help="git URL of pytorch (env OOT_UPSTREAM_URL; default GitHub's)")
    g.add_argument(
        "--upstream-cache",
        type=user_path,
        help="checkouts by SHA (env OOT_UPSTREAM_CACHE; default ~/.cache/oot-ci/upstream)",
    )
    g.add_argument("--core-base", help="commit the wheel was built from (default torch.version.git_version)")
    g.add_argument(
        "--extra-configs",
        action="append",
        type=user_path,
        help="another config directory whose configs are features (repeatable)",
    )
    g = p.add_argument_group("change-aware selection (tools/select's change map, read only)")
    g.add_argument(
        "--select-on",
        help="events whose legs run only the tests their diff needs, space/comma separated "
        "(pull_request push nightly periodic, or none; default $CRCR_SELECT_ON, else pull_request)",
    )
    g.add_argument(
        "--select-budget",
        metavar="SHARE",
        help="cap on the tests a change reaches, as a share of the leg's recorded time, ranked "
        "(25%%, 0.1, or off: every reached test; default $CRCR_SELECT_BUDGET, else 25%%)",
    )
    g.add_argument(
        "--change-map",
        type=user_path,
        help="change map JSON (default $OOT_CHANGE_MAP, else beside the memory)",
    )
    p.add_argument("--leg", type=non_negative_int, help="run-leg: index into the plan")
    p.add_argument(
        "--report", action="store_true", help="run-leg: send the in_progress/completed pair itself"
    )
    p.add_argument("--results-out", type=user_path, help="run-leg: write test_results JSON here")
    p.add_argument(
        "--failed-tests-out", type=user_path, help="run-leg: write failed-tests-detail (JSON array) here"
    )
    p.add_argument(
        "--verdict-out", type=user_path, help="run-leg: write the triage verdict (JSON object) here"
    )
    t = p.add_argument_group("triage of red legs (re-runs of the failing tests, bisection)")
    t.add_argument(
        "--bisect-max-runs",
        type=non_negative_int,
        help="bisection runs at most (env CRCR_BISECT_MAX_RUNS; default 8; 0 = do not bisect)",
    )
    t.add_argument(
        "--bisect-max-seconds",
        type=positive_float,
        help="bisection wall time at most (env CRCR_BISECT_MAX_SECONDS; default 900)",
    )
    return p


def cmd_plan(planned: Planned, env: Mapping[str, str]) -> int:
    m = matrix(planned.legs)
    print(json.dumps(m))
    print(f"{'run' if planned.decision.run else 'skip'}: {planned.decision.reason}", file=sys.stderr)
    if env.get("GITHUB_OUTPUT"):
        with open(env["GITHUB_OUTPUT"], "a") as out:
            out.write(
                f"matrix={json.dumps(m)}\nrun={'true' if planned.decision.run else 'false'}\n"
                f"upstream_sha={check_sha(planned.dispatch.sha)}\n"
            )
    return 0


def make_hooks(
    args,
    planned: Planned,
    env: Mapping[str, str],
    ws: Path,
    mode: str,
    fixture,
    out: Path,
    backend: Optional[str] = None,
) -> LegHooks:
    """The checkout and core overlay for this dispatch, and the last-green store."""
    from crcr.handler.changes import prepare_changes, select_budget, select_on

    setup = prepare(mode, args, planned.dispatch.sha, env, fixture)
    print(setup.describe(), file=sys.stderr)
    state = args.state_dir or default_state_dir(env)
    backend = backend or backend_id(ws, (args.backend or ["HEAD"])[0])
    changes = prepare_changes(
        planned.dispatch,
        setup.source,
        select_on(args.select_on, env),
        env,
        change_map(args, env, fixture),
        core_base=setup.core_base or "",
        budget=select_budget(args.select_budget, env),
    )

    triage = Triage(
        ws,
        env,
        limits_from(args.bisect_max_runs, args.bisect_max_seconds, env),
        args.leg_timeout,
        run_url(env),
    )
    return LegHooks(setup, open_store(args, env, state), backend, out, env, triage, changes)


def run_url(env: Mapping[str, str]) -> str:
    """The Actions run's page (the verdict's evidence links to it); "" outside Actions."""
    if not (env.get("GITHUB_REPOSITORY") and env.get("GITHUB_RUN_ID")):
        return ""
    server = env.get("GITHUB_SERVER_URL") or "https://github.com"
    return f"{server}/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}"


def change_map(args, env: Mapping[str, str], fixture) -> Optional[Path]:
    """--change-map, else $OOT_CHANGE_MAP, else (embedded default) the fixture's own map,
    else None: beside the repository memory (testing/changes/changemap.py)."""
    from testing.changes.changemap import MAP_ENV

    if args.change_map or env.get(MAP_ENV) or not fixture:
        return args.change_map
    from crcr.upstream.fixture import CHANGE_MAP

    return CHANGE_MAP


def cmd_run_leg(args, planned: Planned, env: Mapping[str, str], ws: Path, hooks: LegHooks) -> int:
    if args.leg is None or not 0 <= args.leg < len(planned.legs):
        raise ConfigError(f"--leg must be 0..{len(planned.legs) - 1}")
    leg = planned.legs[args.leg]
    out = hooks.out
    runner = choose_runner(args.runner, env)
    check_runner_can_run([leg], runner, args.test_command)
    callback = None  # how the leg's own callbacks went (--report only)

    from crcr.handler.cycle import run_hooked_leg

    def work():
        return run_hooked_leg(args, leg, ws, out, runner, env, hooks, smoke=1)  # --smoke is the cycle's

    from crcr.handler.cycle import Session, leg_recorder, local_ctx, reporting_session

    if args.report:
        with reporting_session(args, planned.dispatch, env) as session:
            result = session.run(leg, work)
            callback = session.callback_label(leg.job_name)
    else:
        session = Session(None, planned.dispatch, local_ctx(env), None)
        result = work()
    recorder = leg_recorder(args, planned.dispatch, env, session, hooks, runner)
    print(recorder.record(leg, result), file=sys.stderr)
    recorder.close()
    if args.results_out:
        write_json(
            args.results_out,
            {**result.counts.as_results(), **({"callback": callback} if callback else {})},
            sort_keys=True,
            durable=True,
        )
    if args.failed_tests_out:
        write_json(args.failed_tests_out, result.failed_tests_detail(), durable=True)
    if args.verdict_out and result.verdict:
        write_json(args.verdict_out, result.verdict, sort_keys=True, durable=True)
    print(
        f"{leg.job_name}: {result.conclusion} ({result.counts.passed} passed, {result.counts.failed} failed, "
        f"{result.counts.skipped} skipped) in {result.seconds:.1f}s"
        + (f"; callbacks: {callback}" if callback else "")
    )
    for note in result.notes:
        print(f"  {note}")
    if result.details:
        print(f"  details: {result.details}")
    return 0 if result.conclusion in ("success", "neutral") else 1


def make_fixture(args, env: Mapping[str, str]):
    from crcr.upstream.fixture import generate
    from crcr.upstream.overlay import wheel_torch_dir, wheel_version

    torch_dir = wheel_torch_dir()
    dest = (args.state_dir or default_state_dir(env)) / "upstream-fixture"
    fixture = generate(dest, torch_dir, wheel_version(torch_dir), env)
    print(
        f"upstream fixture: {fixture.url} base {fixture.base[:12]} head {fixture.head[:12]} "
        f"(dispatch {fixture.event})",
        file=sys.stderr,
    )
    return fixture


def simulate(args, env: Mapping[str, str], ws: Path) -> None:
    import time

    from crcr.handler.cycle import warehouse_spec
    from crcr.warehouse.backends import open_warehouse
    from crcr.warehouse.simulate import write_history

    wh = open_warehouse(warehouse_spec(args, env), env)
    added = write_history(wh, args.simulate_days, time.time(), 0, ws)
    print(f"warehouse: {added} SIMULATED legs over {args.simulate_days} days in {wh.where}", file=sys.stderr)


def run(argv: Optional[Sequence[str]] = None, env: Optional[Mapping[str, str]] = None) -> int:
    env = dict(os.environ if env is None else env)
    args = _parser().parse_args(argv)
    if args.mode == "cycle" or args.report:
        from crcr.handler.cycle import check_relay_extras

        check_relay_extras(args, env)  # before the fixture and the legs: one line, nothing run
    ws = workspace_root(env, args.workspace)
    mode = resolve_mode(args, env)
    fixture = make_fixture(args, env) if mode == "fixture" else None
    planned = load_plan(args, env, ws, fixture)
    if args.mode == "plan":
        return cmd_plan(planned, env)
    if not planned.decision.run:
        print(f"skip: {planned.decision.reason}")
        return 0
    out = args.out or (args.state_dir or default_state_dir(env)) / "out"
    if args.simulate_days and args.mode == "cycle":
        simulate(args, env, ws)
    if args.mode == "run-leg":
        hooks = make_hooks(args, planned, env, ws, mode, fixture, out)
        try:
            return cmd_run_leg(args, planned, env, ws, hooks)
        finally:
            hooks.close()
    from crcr.handler.cycle import run_cycle

    if args.full:
        args.smoke = 1
    if args.smoke < 1:
        raise ConfigError("--smoke must be >= 1")
    backend = backend_id(ws, (args.backend or ["HEAD"])[0])  # once: both runs test the same tree
    if fixture:
        run_baseline(args, env, ws, mode, fixture, out, backend)
    hooks = make_hooks(args, planned, env, ws, mode, fixture, out, backend)
    try:
        code = run_cycle(args, planned.dispatch, planned.legs, env, ws, hooks)
        hooks.store.record_run(hooks.setup.url, hooks.setup.sha)
        return code
    finally:
        hooks.close()


def run_baseline(args, env: Mapping[str, str], ws: Path, mode: str, fixture, out: Path, backend: str) -> None:
    """Embedded default: upstream main at the fixture's base is dispatched first (as
    the relay would have), once, so the upstream legs have a last green to attribute against."""
    from crcr.handler.cycle import console, run_cycle

    hooks = make_hooks(
        args,
        load_plan(args, env, ws, fixture, fixture.baseline_event),
        env,
        ws,
        mode,
        fixture,
        out / "baseline",
        backend,
    )
    try:
        if hooks.store.has_run(hooks.setup.url, fixture.base):
            console.print(f"baseline: {fixture.base[:12]} already run (last green results recorded)")
            return
        console.print(
            f"baseline: upstream main at {fixture.base[:12]} first, to record each job's last green"
        )
        planned = load_plan(args, env, ws, fixture, fixture.baseline_event)
        # only the legs on upstream's files: in-tree legs record their last green
        # from this and later cycles (running them twice would double the wait)
        legs = [
            leg
            for leg in planned.legs
            if leg.config and (ws / leg.config).resolve().is_relative_to(fixture.configs)
        ] or planned.legs
        run_cycle(args, planned.dispatch, legs, env, ws, hooks)
        hooks.store.record_run(hooks.setup.url, fixture.base)
    finally:
        hooks.close()


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return run(argv)
    except CallbackRejected as err:
        hint = ""
        if "no matching dispatch record" in str(err):
            from crcr.handler.cycle import RELAY_EXTRAS_DOC

            hint = f" (the relay never recorded this dispatch: see {RELAY_EXTRAS_DOC})"
        print(f"dispatch_handler: {err}{hint}", file=sys.stderr)
        return 3
    except DeliveryPending as err:
        print(f"dispatch_handler: {err}", file=sys.stderr)
        return 4
    except (CrcrError, ConfigError) as err:
        print(f"dispatch_handler: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
