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
import dataclasses
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

from crcr.callback_client.errors import KNOWN, CallbackRejected, ConfigError, DeliveryPending
from crcr.dispatch.event import Decision, Dispatch, load_dispatch_text
from crcr.dispatch.gating import gate, nightly_runs
from crcr.dispatch.plan import (
    Leg,
    auto_shards,
    check_core_configs,
    config_problems,
    discover_features,
    matrix,
    plan_candidates,
    plan_legs,
)
from crcr.handler.investigate import Triage
from crcr.handler.options import LOCAL_REPO, MODES, RELAY_EXTRAS_DOC, SMOKE_SLICES, Options, options_from
from crcr.handler.runner import DEFAULT_TARGET_TEMPLATE, check_runner_can_run, runner_of
from crcr.handler.upstream_setup import LegHooks, backend_id, open_store, prepare
from crcr.upstream.gitcmd import check_sha
from testing.base import flags
from testing.base.atomic import write_json
from testing.base.cliargs import Parser, non_negative_int, positive_float, positive_int, user_path
from testing.base.command import command

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pull_request_synchronize.json"


@dataclass(frozen=True)
class Planned:
    dispatch: Dispatch
    decision: Decision
    legs: list[Leg]


def event_source(options: Options, fixture=None) -> Path:
    """--event, else $GITHUB_EVENT_PATH, else the generated fixture's dispatch, else the bundled example."""
    return options.event or (fixture.event if fixture else EXAMPLE)


def read_bazelrc(ws: Path) -> str:
    try:
        return (ws / ".bazelrc").read_text()
    except OSError as err:
        raise ConfigError(f"--core-config needs {ws / '.bazelrc'}: {err.strerror}") from None


def load_plan(options: Options, fixture=None, event: Optional[Path] = None) -> Planned:
    """The dispatch read from `event` (else the run's), its decision and its legs: once per event."""
    path = event or event_source(options, fixture)
    try:
        text = path.read_bytes()
    except OSError as err:
        raise ConfigError(f"{path}: {err.strerror}") from None
    d = load_dispatch_text(text, str(path))
    decision = gate(d, options.gating)
    legs = []
    if decision.run:
        ws = options.workspace
        extra = list(options.extra_configs) + ([fixture.configs] if fixture else [])
        features = discover_features(ws, [Path(e).resolve() for e in extra])
        if options.core_configs:
            check_core_configs(options.core_configs, read_bazelrc(ws))
        legs = plan_legs(
            plan_candidates(d, options.backends, options.core_configs),
            features,
            auto_shards(features, options.shards),
        )
    return Planned(d, decision, legs)


def check_configs(options: Options, legs: Sequence[Leg]) -> None:
    """Every leg's configs, checked once before any leg is planned out or run (plan included):
    one that does not load stops here at its file:line; unknown names are said, as each leg's
    run would say them. ${TORCH_ROOT} is only substituted here (the checkout comes later)."""
    ws = options.workspace
    roots = {"REPO_ROOT": str(ws), "TORCH_ROOT": str(options.upstream_root or ws / "upstream-checkout")}
    for problem in config_problems(ws, legs, roots, options.env):
        print(f"dispatch_handler: warning: {problem}", file=sys.stderr)


def _parser() -> argparse.ArgumentParser:
    # Paths the user types are read where they stand, under `bazel run` too (testing/base/cliargs.py).
    p = Parser(prog="dispatch_handler", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "mode",
        nargs="?",
        choices=("cycle", "plan", "run-leg", "nightly-gate"),
        default="cycle",
        help="nightly-gate: whether the backend's nightly runs under the gating (writes run=true|false)",
    )
    p.add_argument(
        "--event", type=user_path, help="event JSON (default $GITHUB_EVENT_PATH, else the bundled example)"
    )
    p.add_argument(
        "--workspace", type=user_path, help="repo root (default $BUILD_WORKSPACE_DIRECTORY or cwd)"
    )
    p.add_argument(
        "--gating",
        help="which dispatches run: all | label-or-landed | merged-only, then label=NAME push=on|off "
        'nightly=on|off (env CRCR_GATING; default all; crcr/README.md "Event gating")',
    )
    p.add_argument(
        "--no-reuse",
        action="store_true",
        help="run every leg, even one whose backend, core, suite, configs and selection equal a stored "
        "green leg's (env CRCR_REUSE=off)",
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
    p.add_argument(
        "--inject-fault",
        metavar="KIND[:DEVICE][@AFTER]",
        help="inject a fault into the emulated spyre card the legs run on (hang, corrupt, error, held; "
        "env CRCR_INJECT_FAULT): each leg's card is probed before and after it, a sick one drained "
        "(crcr/README.md, 'Sick devices')",
    )
    p.add_argument(
        "--devices",
        help="the emulated cards legs run on, pinned and probed around each leg, e.g. 0,1 (env CRCR_DEVICES; "
        "default none, or 0 with --inject-fault)",
    )
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
    flags.warehouse(
        p,
        help="results warehouse: a directory (embedded ClickHouse, default ~/.cache/oot-ci/warehouse) "
        "or clickhouse://host:port/db (env OOT_WAREHOUSE)",
    )
    p.add_argument(
        "--level-history",
        type=user_path,
        help="the backend's level history (crcr/warehouse/levels.py; env OOT_LEVEL_HISTORY): the HUD's "
        "L3 panel, and the level each leg is recorded at when it names the repo (else $CRCR_LEVEL)",
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
    flags.upstream_root(g, help="use this pytorch checkout (at the dispatched SHA) as is")
    g.add_argument("--upstream-url", help="git URL of pytorch (env OOT_UPSTREAM_URL; default GitHub's)")
    g.add_argument(
        "--upstream-cache",
        type=user_path,
        help="checkouts by SHA (env OOT_UPSTREAM_CACHE; default ~/.cache/oot-ci/upstream)",
    )
    g.add_argument("--core-base", help="commit the wheel was built from (default torch.version.git_version)")
    g.add_argument(
        "--core-wheel",
        help="a torch wheel built elsewhere for the dispatched SHA, a path or a URL ending in #sha256=<hex> "
        "(env CRCR_CORE_WHEEL): the core's base instead of the pinned wheel; its git_version must be the "
        "SHA or an ancestor of it",
    )
    g.add_argument(
        "--core-index",
        help="a nightly wheel index, a PEP 503 simple index URL or a find-links directory, carrying "
        "nightly-map.json (env CRCR_CORE_INDEX; none by default, the fixture brings its own): the core's "
        "base is the nightly of the nearest first-parent ancestor of the SHA",
    )
    g.add_argument(
        "--core-cache",
        type=user_path,
        help="downloaded core wheels by content (env CRCR_CORE_CACHE; default <state dir>/core-cache)",
    )
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


def cmd_plan(planned: Planned, options: Options) -> int:
    m = matrix(planned.legs)
    print(json.dumps(m))
    print(f"{'run' if planned.decision.run else 'skip'}: {planned.decision.reason}", file=sys.stderr)
    if options.github_output:
        with open(options.github_output, "a") as out:
            out.write(
                f"matrix={json.dumps(m)}\nrun={'true' if planned.decision.run else 'false'}\n"
                f"upstream_sha={check_sha(planned.dispatch.sha)}\n"
            )
    return 0


def cmd_nightly_gate(options: Options) -> int:
    """The nightly workflow's first job: the same gating value the dispatches read decides
    whether the backend's nightly runs (`nightly=off`: one line, run=false, nothing sent)."""
    decision = nightly_runs(options.gating)
    print(f"{'run' if decision.run else 'skip'}: {decision.reason}")
    if options.github_output:
        with open(options.github_output, "a") as out:
            out.write(f"run={'true' if decision.run else 'false'}\n")
    return 0


def make_hooks(
    options: Options, planned: Planned, fixture, out: Path, backend: Optional[str] = None
) -> LegHooks:
    """The checkout and core overlay for this dispatch, and the last-green store."""
    from crcr.handler.changes import prepare_changes

    setup = prepare(options, planned.dispatch.sha, fixture, planned.dispatch.change_base)
    print(setup.describe(), file=sys.stderr)
    backend = backend or backend_id(options.workspace, options.backends[0])
    changes = prepare_changes(
        planned.dispatch,
        setup.source,
        options.select_on,
        change_map(options, fixture),
        core_base=setup.core_base or "",
        budget=options.select_budget,
    )
    # the env is the re-runs' child processes' (runner.child_env), not a source of options
    triage = Triage(options.workspace, options.env, options.bisect, options.leg_timeout, options.run_url)
    hooks = LegHooks(setup, open_store(options), backend, out, options, triage, changes)
    hooks.reuse = make_reuse(options)
    return hooks


def make_reuse(options: Options):
    """Stored green legs this run may reuse (None: --no-reuse, or a fault is injected: a run
    with --inject-fault exists to run its legs on their cards, so none is answered from the store)."""
    if not options.reuse or (options.devices is not None and options.devices.fault):
        return None
    from crcr.handler.record import core_version
    from crcr.handler.reuse import Reuse

    # the env: the warehouse backend's own settings (its spec is resolved already)
    return Reuse(options.warehouse, options.env, options.repo or LOCAL_REPO, core_version())


def change_map(options: Options, fixture) -> Path:
    """--change-map, else $OOT_CHANGE_MAP, else (embedded default) the fixture's own map,
    else beside the repository memory (testing/changes/changemap.py)."""
    if options.change_map or not fixture:
        return options.change_map or options.default_change_map
    from crcr.upstream.fixture import CHANGE_MAP

    return CHANGE_MAP


def cmd_run_leg(options: Options, planned: Planned, make_hooks: Callable[[], LegHooks]) -> int:
    if options.leg is None or not 0 <= options.leg < len(planned.legs):
        raise ConfigError(f"--leg must be 0..{len(planned.legs) - 1}")
    leg = planned.legs[options.leg]
    check_runner_can_run([leg], options.runner, options.test_command)
    made: list[LegHooks] = []
    try:
        return _run_one_leg(options, planned, leg, make_hooks, made)
    finally:
        for hooks in made:
            hooks.close()


def _run_one_leg(options: Options, planned: Planned, leg, make_hooks, made: list) -> int:
    """The leg's in_progress (--report) and its warehouse row come first; the checkout and
    core resolution (`make_hooks`) only then, inside the leg's work: the relay's queue time
    ends at the in_progress, and set-up sent after it would count as queue."""
    callback = None  # how the leg's own callbacks went (--report only)
    from crcr.handler.cycle import Session, leg_recorder, local_ctx, reporting_session, run_hooked_leg

    def work():
        made.append(make_hooks())
        # --smoke is the cycle's
        return run_hooked_leg(leg, options.leg_settings(smoke=1), made[-1], options.devices)

    def begin():  # the warehouse's in_progress row of the leg (the workflow's own, when it sent one)
        print(recorder.begin(leg, options.in_progress_at), file=sys.stderr)

    backend = backend_id(options.workspace, options.backends[0])
    if options.report:
        with reporting_session(options, planned.dispatch) as session:
            recorder = leg_recorder(options, planned.dispatch, session, backend)
            result = session.run(leg, work, begin)
            callback = session.callback_label(leg.job_name)
    else:
        session = Session(None, planned.dispatch, local_ctx(options), None)
        recorder = leg_recorder(options, planned.dispatch, session, backend)
        begin()
        result = work()
    print(recorder.record(leg, result), file=sys.stderr)
    recorder.close()
    if options.results_out:
        write_json(
            options.results_out,
            {
                **result.counts.as_results(),
                "conclusion": result.conclusion,  # the workflow's callback sends this, not the job's status
                **({"exactness": result.core.as_json()} if result.core else {}),
                **({"callback": callback} if callback else {}),
            },
            sort_keys=True,
            durable=True,
        )
    if options.failed_tests_out:
        write_json(options.failed_tests_out, result.failed_tests_detail(), durable=True)
    if options.verdict_out and result.verdict:
        write_json(options.verdict_out, result.verdict, sort_keys=True, durable=True)
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


def make_fixture(options: Options):
    from crcr.upstream.fixture import generate
    from crcr.upstream.overlay import wheel_torch_dir, wheel_version

    torch_dir = wheel_torch_dir()
    # the env is the fixture's git processes' (fixed author and dates are set on top of it)
    fixture = generate(
        options.state_dir / "upstream-fixture",
        torch_dir,
        wheel_version(torch_dir),
        options.env,
        # its nightly index (two ~700 MB wheels, ~30 s once per state dir) for runs whose legs
        # take their core from a base wheel: not for a --test-command template (a stand-in leg
        # in tests and demos) nor for the bazel runner (its runfiles' wheel, whatever the base)
        nightlies=not options.test_command and options.runner == "pytest",
    )
    print(
        f"upstream fixture: {fixture.url} base {fixture.base[:12]} head {fixture.head[:12]} "
        f"(dispatch {fixture.event})",
        file=sys.stderr,
    )
    return fixture


def simulate(options: Options) -> None:
    import time

    from crcr.warehouse.backends import open_warehouse
    from crcr.warehouse.simulate import write_history

    # the env: the warehouse backend's own (its spec is resolved already; None: its one-line error)
    wh = open_warehouse(options.warehouse, options.env)
    added = write_history(wh, options.simulate_days, time.time(), 0, options.workspace)
    print(
        f"warehouse: {added} SIMULATED legs over {options.simulate_days} days in {wh.where}", file=sys.stderr
    )


def parse_options(argv: Optional[Sequence[str]], env: Mapping[str, str]) -> Options:
    """The handler's entry: its command line and environment, read once into one Options."""
    return options_from(_parser().parse_args(argv), env)


def run(argv: Optional[Sequence[str]] = None, env: Optional[Mapping[str, str]] = None) -> int:
    options = parse_options(argv, os.environ if env is None else env)
    if options.mode == "nightly-gate":
        return cmd_nightly_gate(options)
    fixture = make_fixture(options) if options.upstream == "fixture" else None
    planned = load_plan(options, fixture)
    check_configs(options, planned.legs)
    if options.mode == "plan":
        return cmd_plan(planned, options)
    if not planned.decision.run:
        print(f"skip: {planned.decision.reason}")
        return 0
    out = options.out
    if options.simulate_days and options.mode == "cycle":
        simulate(options)
    if options.mode == "run-leg":
        return cmd_run_leg(options, planned, lambda: make_hooks(options, planned, fixture, out))
    from crcr.handler.cycle import console, run_cycle

    console.print(options.state_line(), markup=False, soft_wrap=True)
    backend = backend_id(options.workspace, options.backends[0])  # once: both runs test the same tree
    if fixture:
        run_baseline(options, fixture, backend)
    hooks = make_hooks(options, planned, fixture, out, backend)
    try:
        code = run_cycle(options, planned.dispatch, planned.legs, hooks)
        hooks.store.record_run(hooks.setup.url, hooks.setup.sha)
    finally:
        hooks.close()
    if fixture and not options.event:
        run_stream_demo(options, fixture, planned, backend)
    if fixture and fixture.native_event and not options.event:
        return run_native_pr(options, fixture, backend) or code
    return code


STALE_FOR_S = 5.0  # the embedded stream: the landing arrives this long after the stale sync


def _variant(src: Path, dest: Path, action: str, sha: str, merged: bool) -> Path:
    """The fixture's PR dispatch as another event of the same PR (a new delivery)."""
    event = json.loads(src.read_text())
    cp = event.get("client_payload", event)
    cp["delivery_id"] = f"{cp['delivery_id'][:24]}-{action}-{sha[:8]}"
    cp["payload"]["action"] = action
    cp["payload"]["pull_request"].update(merged=merged)
    cp["payload"]["pull_request"]["head"]["sha"] = sha
    write_json(dest, event, sort_keys=True)
    return dest


def run_stream_demo(options: Options, fixture, pr: Planned, backend: str) -> list:
    """Embedded default, after the PR: a stale sync of the PR (at the base) starts, and the PR's
    landing (at the head just tested) supersedes it: the stale run's running leg completes
    `cancelled`, its other legs never start; the landing's legs whose PR run was green are
    reused from the warehouse, not run (handler/stream.py). Legs that were not green would run
    again on landing: left out here to keep the default's time. Returns the two runs' outcomes
    ([] when skipped)."""
    from crcr.handler.cycle import console
    from crcr.handler.reuse import leg_inputs

    if not options.reuse or not re.match(r"^[0-9a-f]{40}", backend):
        console.print(f"stream: skipped (reuse needs the backend at a commit, not {backend!r}, and reuse on)")
        return []
    out = options.out / "stream"
    stale = load_plan(
        options, fixture, _variant(fixture.event, out / "stale.json", "synchronize", fixture.base, False)
    )
    landing = load_plan(
        options, fixture, _variant(fixture.event, out / "landing.json", "closed", pr.dispatch.sha, True)
    )
    made = {p.dispatch.delivery_id: make_hooks(options, p, fixture, out, backend) for p in (stale, landing)}
    hooks, how = made[landing.dispatch.delivery_id], options.leg_settings(options.smoke)
    green = [
        leg
        for leg in fixture_legs(options, landing, fixture)
        if hooks.reuse is not None
        and hooks.reuse.find(
            leg_inputs(
                leg,
                how,
                hooks,
                hooks.selection_for(leg, how)[0],
                hooks.reuse.pinned,
                hooks.core_for(leg, runner_of(how)),
            )
        )
    ]
    landing = dataclasses.replace(landing, legs=green)
    stale = dataclasses.replace(stale, legs=fixture_legs(options, stale, fixture))
    console.print(
        f"stream: a stale sync of PR #{pr.dispatch.pr_number} at {fixture.base[:12]}, then its landing at "
        f"{pr.dispatch.sha[:12]} {STALE_FOR_S:.0f}s later ({len(green)} legs green in the PR run: reusable)"
    )
    if not green:
        for h in made.values():
            h.close()
        console.print("stream: no green PR leg to reuse (no warehouse, or every leg red): skipped")
        return []
    from crcr.handler.stream import run_stream

    return run_stream(options, [(0.0, stale), (STALE_FOR_S, landing)], lambda p: made[p.dispatch.delivery_id])


def fixture_legs(options: Options, planned: Planned, fixture) -> list:
    """The legs on the fixture's upstream files (in-tree legs do not see upstream's core)."""
    ws = options.workspace
    return [
        leg
        for leg in planned.legs
        if leg.config and (ws / leg.config).resolve().is_relative_to(fixture.configs)
    ] or planned.legs


def run_native_pr(options: Options, fixture, backend: str) -> int:
    """Embedded default, after the PR: the fixture's native-only PR. The core cannot apply its
    change (no build here), so its upstream legs come back neutral, saying which files never ran."""
    from crcr.handler.cycle import console, run_cycle

    # its own outputs (logs, JUnit, HUD snapshot): the PR's stay as they were
    options = dataclasses.replace(options, given_out=options.out / "native-pr")
    planned = load_plan(options, fixture, fixture.native_event)
    hooks = make_hooks(options, planned, fixture, options.out, backend)
    try:
        console.print(f"native-only PR at {fixture.native_pr[:12]}: its change cannot run on a wheel")
        return run_cycle(options, planned.dispatch, fixture_legs(options, planned, fixture), hooks)
    finally:
        hooks.close()


def run_baseline(options: Options, fixture, backend: str) -> None:
    """Embedded default: upstream main at the fixture's base is dispatched first (as
    the relay would have), once, so the upstream legs have a last green to attribute against."""
    from crcr.handler.cycle import console, run_cycle

    planned = load_plan(options, fixture, fixture.baseline_event)
    hooks = make_hooks(options, planned, fixture, options.out / "baseline", backend)
    try:
        if hooks.store.has_run(hooks.setup.url, fixture.base):
            console.print(f"baseline: {fixture.base[:12]} already run (last green results recorded)")
            return
        console.print(
            f"baseline: upstream main at {fixture.base[:12]} first, to record each job's last green"
        )
        # only the legs on upstream's files: in-tree legs record their last green
        # from this and later cycles (running them twice would double the wait)
        run_cycle(options, planned.dispatch, fixture_legs(options, planned, fixture), hooks)
        hooks.store.record_run(hooks.setup.url, fixture.base)
    finally:
        hooks.close()


@command(
    "dispatch_handler",
    {CallbackRejected: 3, DeliveryPending: 4, KNOWN: 2},
    prefix="dispatch_handler: ",
)
def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return run(argv)
    except CallbackRejected as err:
        if "no matching dispatch record" not in str(err):
            raise
        # the one refusal a user can act on: the relay has no record of this dispatch
        hint = f"(the relay never recorded this dispatch: see {RELAY_EXTRAS_DOC})"
        raise CallbackRejected(err.status, f"{err.detail} {hint}") from err


if __name__ == "__main__":
    sys.exit(main())
