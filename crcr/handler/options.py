"""The dispatch handler's options, built once at its entry (main.py) from the command line
and the environment: every default, environment fallback and derived path is decided here,
so the modules below take this one frozen value and never read argparse or os.environ."""

from __future__ import annotations

import argparse
import json
import re
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Mapping, Optional

from crcr.callback_client.api import default_state_dir
from crcr.callback_client.body import RunContext
from crcr.callback_client.errors import ConfigError
from crcr.dispatch.gating import ENV as GATING_ENV
from crcr.dispatch.gating import Gating, parse_gating
from crcr.handler.devices import DEVICES_ENV, FAULT_ENV, DeviceSettings, device_settings
from crcr.handler.runner import DEFAULT_TARGET_TEMPLATE, LegSettings, split_template
from crcr.handler.workspace import workspace_root
from crcr.upstream.bisect import Limits
from crcr.upstream.core_index import is_url
from crcr.upstream.core_wheel import wheel_commit
from crcr.upstream.source import DEFAULT_URL, URL_ENV, default_cache
from crcr.warehouse.levels import given_histories
from testing.base.cliargs import user_path
from testing.changes.budget import BudgetError, parse_share
from testing.changes.changemap import MAP_ENV, select_dir

MODES = ("auto", "fetch", "fixture", "none")  # --upstream; "root" is what --upstream-root resolves to
# The local cycle runs one duration-balanced tenth of every leg (tools/shard),
# so dispatch -> legs -> HUD takes a few minutes on 2 cores and every leg
# runs real tests. `--full` (and CI's bazel runner) runs everything.
SMOKE_SLICES = 10
LOCAL_REPO = "local/oot-ci"  # the embedded emulator's repository when none is named

# Environment fallbacks of options (the command line wins over each).
CORE_CONFIGS_ENV = "CRCR_CORE_CONFIGS"  # space-separated --core-config, set once for plan and run-leg
SELECT_ON_ENV = "CRCR_SELECT_ON"
SELECT_BUDGET_ENV = "CRCR_SELECT_BUDGET"
BISECT_RUNS_ENV = "CRCR_BISECT_MAX_RUNS"
BISECT_SECONDS_ENV = "CRCR_BISECT_MAX_SECONDS"
GREEN_STORE_ENV = "CRCR_GREEN_STORE"
SELECT_MEMORY_ENV = "CRCR_SELECT_MEMORY"
LEVEL_ENV = "CRCR_LEVEL"  # the repo's CRCR level in a CI leg (the emulator's repo is L2)
# When the leg's job sent its in_progress (epoch seconds), written by the workflow's first step:
# the warehouse's in_progress row of a run-leg starts there, not when the handler starts.
IN_PROGRESS_AT_ENV = "CRCR_IN_PROGRESS_AT"
# JSON for the embedded emulator's POST /_emulator/faults, e.g. {"script": ["none", "hud_5xx"], "hud_backoff": 0}
EMULATOR_FAULTS_ENV = "CRCR_EMULATOR_FAULTS"
# A torch wheel built elsewhere for the dispatched SHA (the workflow's core-wheel input)
CORE_WHEEL_ENV = "CRCR_CORE_WHEEL"
# A nightly wheel index (a PEP 503 simple index URL or a find-links directory; none by default)
CORE_INDEX_ENV = "CRCR_CORE_INDEX"
# Where downloaded core wheels are kept by content (default <state dir>/core-cache)
CORE_CACHE_ENV = "CRCR_CORE_CACHE"
# What a relay you started needs besides its URL (crcr/README.md, "A relay you started").
RELAY_EXTRAS_DOC = 'crcr/README.md, "A relay you started"'

DEFAULT_SELECT_ON = ("pull_request",)
EVENTS = ("pull_request", "push", "nightly", "periodic")


@dataclass(frozen=True)
class Options:
    """One run of the handler, as its command line and environment say (built by `options_from`)."""

    mode: str = "cycle"  # cycle | plan | run-leg | nightly-gate
    workspace: Path = Path(".")
    event: Optional[Path] = None  # --event, else $GITHUB_EVENT_PATH; None: the fixture's or the example
    upstream: str = "none"  # resolved: root | fetch | fixture | none
    upstream_root: Optional[Path] = None
    upstream_url: Optional[str] = None  # --upstream-url, else $OOT_UPSTREAM_URL (None: not configured)
    upstream_cache: Path = Path(".")
    core_base: Optional[str] = None
    core_wheel: Optional[Path] = None  # --core-wheel, else $CRCR_CORE_WHEEL: a wheel built for this SHA
    core_wheel_commit: str = ""  # its torch.version.git_version (read at the entry)
    core_wheel_url: str = ""  # --core-wheel URL#sha256=...: downloaded into the core cache at prepare
    core_index: str = ""  # --core-index, else $CRCR_CORE_INDEX ("" = none; the fixture brings its own)
    given_core_cache: Optional[Path] = None  # --core-cache, else $CRCR_CORE_CACHE
    backends: tuple[str, ...] = ("HEAD",)
    core_configs: tuple[str, ...] = ()
    extra_configs: tuple[Path, ...] = ()
    shards: int = 0
    runner: str = "pytest"  # resolved: pytest | bazel
    test_command: Optional[str] = None
    select: Optional[str] = None
    smoke: int = 1  # --full is --smoke 1
    target_template: str = DEFAULT_TARGET_TEMPLATE
    leg_timeout: float = 900.0
    devices: Optional[DeviceSettings] = None  # --devices/--inject-fault: cards probed around each leg
    relay_url: Optional[str] = None  # --relay-url, else $CRCR_CALLBACK_URL; None: the embedded emulator
    repo: Optional[str] = None  # --repo, else $GITHUB_REPOSITORY
    serve: bool = False
    simulate_days: Optional[int] = None
    warehouse: Optional[str] = None  # the described spec; None: no default (no HOME)
    reuse: bool = True  # --no-reuse, or $CRCR_REUSE=off: every leg runs (crcr/handler/reuse.py)
    gating: Gating = Gating()  # --gating, else $CRCR_GATING (crcr/dispatch/gating.py)
    # repo -> its LevelHistory (--level-history, else $OOT_LEVEL_HISTORY): the HUD's L3 panel
    levels: Mapping = field(default_factory=dict)
    select_on: tuple[str, ...] = DEFAULT_SELECT_ON
    select_budget: Optional[float] = None
    change_map: Optional[Path] = None  # --change-map, else $OOT_CHANGE_MAP
    default_change_map: Optional[Path] = None  # beside the repository memory (testing/changes/changemap.py)
    select_memory: Optional[Path] = None  # tools/select's repository memory (its op index)
    green_store: Optional[Path] = None  # $CRCR_GREEN_STORE; None: beside the state
    bisect: Limits = Limits()
    run_url: str = ""  # the Actions run's page (the verdict's evidence links to it); "" outside Actions
    actions_ctx: Optional[RunContext] = None  # the Actions run's identity; None: a local run
    level: str = ""  # $CRCR_LEVEL
    in_progress_at: Optional[float] = None  # $CRCR_IN_PROGRESS_AT
    emulator_faults: Optional[object] = None  # parsed $CRCR_EMULATOR_FAULTS
    github_output: Optional[Path] = None  # $GITHUB_OUTPUT: where `plan` writes its step outputs
    leg: Optional[int] = None
    report: bool = False
    results_out: Optional[Path] = None
    failed_tests_out: Optional[Path] = None
    verdict_out: Optional[Path] = None
    given_state_dir: Optional[Path] = None  # --state-dir as given (the emulator's outbox differs without it)
    given_out: Optional[Path] = None
    # The process environment as the entry read it: handed on only to what is genuinely about
    # a child process (its env: runner.child_env) or a library's own settings (the callback
    # client's credentials, the upstream fixture's git, the warehouse backend). Never for options.
    env: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def state_dir(self) -> Path:
        """--state-dir, else $CRCR_STATE_DIR, $RUNNER_TEMP/crcr, the user cache (crcr.callback_client.api); derived
        on first use, since `plan` needs none and a machine without HOME may still plan."""
        return self.given_state_dir or default_state_dir(self.env)

    @cached_property
    def out(self) -> Path:
        """--out, else <state dir>/out: logs, JUnit, HUD snapshot."""
        return self.given_out or self.state_dir / "out"

    @property
    def emulator_state(self) -> Path:
        """The embedded emulator's private outbox and budget: --state-dir, else <default>/local."""
        return self.given_state_dir or self.state_dir / "local"

    @property
    def core_cache(self) -> Path:
        """Core wheels by content (downloads and their unpacked trees), shared by every leg,
        every bisection step and every later run on this machine."""
        return self.given_core_cache or self.state_dir / "core-cache"

    @property
    def green_store_path(self) -> Path:
        return self.green_store or self.state_dir / "last_green.sqlite"

    @property
    def fetch_url(self) -> str:
        """The git URL `--upstream fetch` uses (GitHub's when none is configured)."""
        return self.upstream_url or DEFAULT_URL

    def leg_settings(self, smoke: int) -> LegSettings:
        """How this run's legs run; `smoke` is the cycle's (run-leg runs whole legs)."""
        return LegSettings(
            self.workspace,
            self.out,
            self.runner,
            self.env,
            self.leg_timeout,
            self.select,
            self.test_command,
            self.target_template,
            smoke,
        )

    def state_line(self) -> str:
        """Where this run keeps what outlives it, and whether that is the user's shared default
        (every checkout's runs read and add to it: a last green recorded by another checkout
        is what an attribution compares against)."""
        line = (
            f"state: {self.state_dir} (last-green store, outbox, outputs); warehouse: "
            f"{self.warehouse or 'none'}; upstream checkouts: {self.upstream_cache}"
        )
        env = self.env
        if self.given_state_dir or env.get("CRCR_STATE_DIR") or env.get("RUNNER_TEMP"):
            return line
        return line + (
            " - the user's defaults, shared by every checkout of this repository "
            "(--state-dir, --warehouse, --upstream-cache keep a run apart)"
        )

    @property
    def reporting(self) -> bool:
        """Whether this run sends callbacks (and so needs a relay or starts the emulator)."""
        return self.mode == "cycle" or self.report


def options_from(args: argparse.Namespace, env: Mapping[str, str]) -> Options:
    """The one Options of this run; a bad value is a one-line ConfigError naming it."""
    env = dict(env)
    core_wheel, core_wheel_url = core_wheel_arg(args.core_wheel or env.get(CORE_WHEEL_ENV) or None)
    o = Options(
        mode=args.mode,
        workspace=workspace_root(env, args.workspace),
        event=args.event or env_path(env, "GITHUB_EVENT_PATH"),
        upstream=upstream_mode(args, env),
        upstream_root=args.upstream_root,
        upstream_url=args.upstream_url or env.get(URL_ENV),
        upstream_cache=args.upstream_cache or default_cache(env),
        core_base=args.core_base,
        core_wheel=core_wheel,
        core_wheel_commit=wheel_commit(core_wheel) if core_wheel else "",
        core_wheel_url=core_wheel_url,
        core_index=index_arg(args.core_index or env.get(CORE_INDEX_ENV, "")),
        given_core_cache=args.core_cache or env_path(env, CORE_CACHE_ENV),
        backends=tuple(args.backend or ["HEAD"]),
        core_configs=tuple(args.core_config or env.get(CORE_CONFIGS_ENV, "").split()),
        extra_configs=tuple(args.extra_configs or ()),
        shards=args.shards,
        runner=choose_runner(args.runner, env),
        test_command=checked_template(args.test_command),
        select=args.select,
        smoke=1 if args.full else args.smoke,
        target_template=args.target_template,
        leg_timeout=args.leg_timeout,
        devices=device_settings(
            args.inject_fault or env.get(FAULT_ENV),
            args.devices or env.get(DEVICES_ENV),
            lambda: (args.state_dir or default_state_dir(env)) / "devices",
        ),
        relay_url=args.relay_url or env.get("CRCR_CALLBACK_URL"),
        repo=args.repo or env.get("GITHUB_REPOSITORY"),
        serve=args.serve,
        simulate_days=args.simulate_days,
        warehouse=warehouse_spec(args.warehouse, env),
        reuse=not args.no_reuse and env.get("CRCR_REUSE", "on") != "off",
        gating=gating_arg(args.gating, env),
        levels=given_histories(args.level_history, env, time.time()),
        select_on=select_on(args.select_on, env),
        select_budget=select_budget(args.select_budget, env),
        change_map=args.change_map or env_path(env, MAP_ENV),
        default_change_map=select_dir(env) / "changemap.json",
        select_memory=env_path(env, SELECT_MEMORY_ENV) or select_dir(env) / "memory.db",
        green_store=env_path(env, GREEN_STORE_ENV),
        bisect=limits_from(args.bisect_max_runs, args.bisect_max_seconds, env),
        run_url=run_url(env),
        actions_ctx=RunContext.from_env(env, "local")
        if env.get("GITHUB_RUN_ID") and env.get("GITHUB_WORKFLOW")
        else None,
        level=env.get(LEVEL_ENV, ""),
        in_progress_at=in_progress_at(env),
        emulator_faults=emulator_faults(env),
        github_output=env_path(env, "GITHUB_OUTPUT"),
        leg=args.leg,
        report=args.report,
        results_out=args.results_out,
        failed_tests_out=args.failed_tests_out,
        verdict_out=args.verdict_out,
        given_state_dir=args.state_dir,
        given_out=args.out,
        env=env,
    )
    if o.reporting:
        check_relay_extras(o)  # before the fixture and the legs: one line, nothing run
    return o


def core_wheel_arg(given: Optional[str]) -> tuple[Optional[Path], str]:
    """--core-wheel PATH (read now) or URL (downloaded at prepare; it must name its sha256)."""
    if not given:
        return None, ""
    if not is_url(str(given)):
        return user_path(given), ""
    if not re.search(r"#sha256=[0-9a-f]{64}$", str(given)):
        raise ConfigError(
            f"--core-wheel {given}: a URL must end in #sha256=<64 hex> (what the download must hash to)"
        )
    return None, str(given)


def index_arg(given: str) -> str:
    """--core-index as given: a URL, or a directory made absolute against where the user stands."""
    return given if not given or is_url(given) else str(user_path(given))


def env_path(env: Mapping[str, str], name: str) -> Optional[Path]:
    """$name as a path; None when unset or empty."""
    return Path(env[name]) if env.get(name) else None


def choose_runner(requested: str, env: Mapping[str, str]) -> str:
    """--runner; `auto`: pytest inside `bazel run`/`bazel test` (the interpreter has our deps), else bazel."""
    if requested == "auto":
        return "pytest" if env.get("BUILD_WORKSPACE_DIRECTORY") or env.get("TEST_SRCDIR") else "bazel"
    if requested not in ("pytest", "bazel"):
        raise ConfigError(f"--runner must be auto, pytest or bazel, not {requested!r}")
    return requested


def checked_template(given: Optional[str]) -> Optional[str]:
    """--test-command as given, its words checked here: every mode refuses a bad one (plan too)."""
    if given is not None:
        split_template(given)
    return given


def upstream_mode(args: argparse.Namespace, env: Mapping[str, str]) -> str:
    """`auto`: a given root, else fetch when a URL is configured, else the fixture when no
    event was given, else none (handler/upstream_setup.py says what each is)."""
    if args.upstream_root:
        return "root"
    if args.upstream != "auto":
        return args.upstream
    if args.upstream_url or env.get(URL_ENV):
        return "fetch"
    if not args.event and not env.get("GITHUB_EVENT_PATH"):
        return "fixture"
    return "none"


def gating_arg(given: Optional[str], env: Mapping[str, str]) -> Gating:
    """--gating, else $CRCR_GATING, else `all`: the one value the workflow hands the plan too."""
    if given is not None:
        return parse_gating(given, "--gating")
    return parse_gating(env.get(GATING_ENV), f"${GATING_ENV}")


def select_on(given: Optional[str], env: Mapping[str, str]) -> tuple[str, ...]:
    """--select-on, else $CRCR_SELECT_ON, else pull_request: the events whose legs are narrowed."""
    raw = given if given is not None else env.get(SELECT_ON_ENV)
    if raw is None:
        return DEFAULT_SELECT_ON
    events = tuple(e for e in raw.replace(",", " ").split() if e != "none")
    bad = [e for e in events if e not in EVENTS]
    if bad:
        raise ConfigError(f"--select-on {bad[0]!r}: events are {', '.join(EVENTS)} or none")
    return events


def select_budget(given: Optional[str], env: Mapping[str, str]) -> Optional[float]:
    """--select-budget, else $CRCR_SELECT_BUDGET, else the default share (None: no cap)."""
    raw = given if given is not None else env.get(SELECT_BUDGET_ENV)
    try:
        return parse_share(raw)
    except BudgetError as err:
        raise ConfigError(f"--select-budget: {err}") from None


def limits_from(max_runs: Optional[int], max_seconds: Optional[float], env: Mapping[str, str]) -> Limits:
    """--bisect-max-runs/--bisect-max-seconds, else $CRCR_BISECT_MAX_RUNS/_SECONDS, else Limits()."""
    try:
        runs = max_runs if max_runs is not None else int(env.get(BISECT_RUNS_ENV) or Limits.max_steps)
        secs = (
            max_seconds
            if max_seconds is not None
            else float(env.get(BISECT_SECONDS_ENV) or Limits.max_seconds)
        )
    except ValueError as err:
        raise ConfigError(f"bisection limit: {err}") from None
    if runs < 0 or secs < 0:
        raise ConfigError("bisection limits must be >= 0")
    return Limits(runs, secs)


def warehouse_spec(given: Optional[str], env: Mapping[str, str]) -> Optional[str]:
    """--warehouse, else $OOT_WAREHOUSE, else the default directory; None when there is no
    HOME to put the default under (the legs then say "not recorded")."""
    from crcr.warehouse.backends import describe

    try:
        return describe(given, env)
    except ConfigError:
        return None


def run_url(env: Mapping[str, str]) -> str:
    """The Actions run's page (the verdict's evidence links to it); "" outside Actions."""
    if not (env.get("GITHUB_REPOSITORY") and env.get("GITHUB_RUN_ID")):
        return ""
    server = env.get("GITHUB_SERVER_URL") or "https://github.com"
    return f"{server}/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}"


def in_progress_at(env: Mapping[str, str]) -> Optional[float]:
    """$CRCR_IN_PROGRESS_AT: epoch seconds (the workflow's `date +%s`); unset: None."""
    raw = env.get(IN_PROGRESS_AT_ENV, "").strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise ConfigError(f"${IN_PROGRESS_AT_ENV}: {raw[:40]!r} is not epoch seconds")
    return float(raw)


def emulator_faults(env: Mapping[str, str]) -> Optional[object]:
    """$CRCR_EMULATOR_FAULTS: reproduce a relay/HUD failure in the local cycle (None: no faults)."""
    if not env.get(EMULATOR_FAULTS_ENV):
        return None
    from crcr.relay import faults  # light: the emulator's fault table, no server

    try:  # checked whole here, so a bad value stops the command before configs load torch
        return faults.checked(json.loads(env[EMULATOR_FAULTS_ENV]))
    except ValueError as err:
        raise ConfigError(f"${EMULATOR_FAULTS_ENV}: {err}") from None


def check_relay_extras(o: Options) -> None:
    """--relay-url alone cannot report: say every missing extra at once, before any leg runs.
    The token variables are the callback client's credentials (crcr.callback_client.api reads them itself);
    here they are only checked for presence, so the error comes before the legs."""
    if not o.relay_url:
        return
    missing = []
    if not o.repo:
        missing.append("--repo OWNER/NAME (or GITHUB_REPOSITORY)")
    env = o.env
    actions = env.get("ACTIONS_ID_TOKEN_REQUEST_URL") and env.get("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
    if not (actions or env.get("CRCR_TOKEN")):
        missing.append(
            "ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN "
            "(the emulator prints both for each --repo it is given)"
        )
    if missing:
        raise ConfigError(
            f"--relay-url {o.relay_url} needs {'; '.join(missing)}; and the relay must have recorded "
            f"the dispatch (--event) before its callbacks: see {RELAY_EXTRAS_DOC}"
        )
