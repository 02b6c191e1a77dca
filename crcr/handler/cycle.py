"""Glue for reporting legs: a client (real relay or embedded emulator) and the
local cycle that runs every leg with its own in_progress -> completed pair."""

from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Optional, Sequence

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from crcr.callback_client.api import client_from_env
from crcr.callback_client.body import RunContext, completed_body, in_progress_body
from crcr.callback_client.budget import RateBudget
from crcr.callback_client.client import CallbackClient, Outcome, worst_label
from crcr.callback_client.errors import ConfigError
from crcr.callback_client.junit import Counts
from crcr.callback_client.oidc import ActionsOidcToken
from crcr.callback_client.outbox import Outbox
from crcr.callback_client.transport import HttpTransport, fetch, fetch_json
from crcr.dispatch.allowlist import Entry
from crcr.dispatch.event import Dispatch
from crcr.dispatch.plan import Leg
from crcr.handler.devices import DeviceSettings, run_on_devices
from crcr.handler.options import EMULATOR_FAULTS_ENV, LOCAL_REPO, Options
from crcr.handler.runner import LegResult, LegSettings, check_runner_can_run, run_leg, runner_of
from testing.base.atomic import write_json, write_text

if TYPE_CHECKING:  # imported lazily at run time: crcr.upstream is needed only by a cycle
    from crcr.handler.upstream_setup import LegHooks

# In a log (not a terminal) rich would cut the table to 80 columns: job names and the
# "recorded, HUD unconfirmed" label must be read whole there.
LOG_WIDTH = 160
console = Console(stderr=True, width=None if sys.stderr.isatty() else LOG_WIDTH)


PAGE_TIMEOUT = 180.0  # seconds for the HUD page (warehouse queries and charts on a busy machine)
# Exit code when HUD lacks a completed row of a leg (or a callback went unconfirmed and HUD shows it stale).
EXIT_HUD_MISSING = 5


class Session:
    def __init__(self, client: CallbackClient, dispatch: Dispatch, ctx: RunContext, hud_url: Optional[str]):
        self.client, self.dispatch, self.ctx, self.hud_url = client, dispatch, ctx, hud_url
        self.callbacks: dict[str, list[Outcome]] = {}  # job_name -> [in_progress, completed] outcomes
        self.started = time.time()  # the dispatch reached us: a leg's queue time starts here

    def callback_label(self, job_name: str) -> str:
        """'delivered', or 'recorded, HUD unconfirmed' when any callback of the job lacked a 200."""
        return worst_label(self.callbacks.get(job_name, []))

    def context_for(self, leg: Leg) -> RunContext:
        # one job_name and check_run_id per leg: the same-job rule (§2.5)
        return self.ctx.for_leg(leg.job_name, f"{self.ctx.check_run_id}{leg.index:03d}")

    def run(
        self, leg: Leg, work: Callable[[], LegResult], on_start: Optional[Callable[[], None]] = None
    ) -> LegResult:
        """`on_start` runs right after the in_progress callback (the warehouse's in_progress row)."""
        cp, ctx = self.dispatch.client_payload, self.context_for(leg)
        guard = self.client.begin_job(in_progress_body(cp, ctx), completed_body(cp, ctx, "cancelled"))
        outcomes = self.callbacks[leg.job_name] = [guard.started]
        if on_start is not None:
            on_start()
        try:
            result = work()
        except BaseException:
            # the guard (cancelled) stays in the outbox; deliver it now if we can
            self.client.finish_job(guard, completed_body(cp, ctx, "cancelled"))
            raise
        outcomes.append(
            self.client.finish_job(
                guard,
                completed_body(
                    cp,
                    ctx,
                    result.conclusion,
                    test_results=result.counts.as_results(),
                    artifact_url=result.details.as_uri() if result.details else None,
                    failed_tests_detail=result.failed_tests_detail(),
                    triage_verdict=result.verdict,
                ),
            )
        )
        if any(not o.hud_confirmed for o in outcomes):
            console.print(
                f"[yellow]{leg.job_name}: callbacks recorded, HUD unconfirmed "
                f"(the relay answered 5xx or timed out first); the HUD row may be stale[/yellow]"
            )
        return result


def local_ctx(options: Options) -> RunContext:
    """The Actions run's context in CI; a fresh local one (its time as the run id) otherwise."""
    if options.actions_ctx is not None:
        return options.actions_ctx
    run_id = str(int(time.time()))
    return RunContext("CRCR local", run_id, "local", run_id)


@contextlib.contextmanager
def reporting_session(
    options: Options, dispatch: Dispatch, also: Sequence[Dispatch] = ()
) -> Iterator[Session]:
    """A Session on the relay --relay-url names (its extras checked at the entry), else on the
    embedded emulator, started here with this dispatch (and `also`'s, a local stream) recorded."""
    if options.relay_url:
        # the env: the client's credentials (OIDC request variables or CRCR_TOKEN), read by crcr.callback_client.api
        client = client_from_env(options.relay_url, None, options.repo, options.state_dir, options.env)
        client.flush()
        yield Session(client, dispatch, local_ctx(options), None)
        client.close()
        return
    from crcr.relay.server import RelayEmulator

    repo = options.repo or LOCAL_REPO
    state = options.emulator_state
    with RelayEmulator(
        {repo: Entry(repo, "L2")},
        warehouse=options.warehouse,
        workspace=options.workspace,
        levels=options.levels,
    ) as emu:
        if options.emulator_faults is not None:  # reproduce a relay/HUD failure in the local cycle
            try:
                emu.configure_faults(options.emulator_faults)
            except (ValueError, TypeError, AttributeError) as err:
                raise ConfigError(f"${EMULATOR_FAULTS_ENV}: {err}") from None
        transport = HttpTransport()
        try:
            for d in (dispatch, *also):
                fetch(
                    transport,
                    "POST",
                    f"{emu.url}/_emulator/dispatch",
                    {"repo": repo, "client_payload": d.client_payload},
                )
        finally:
            transport.close()
        console.print(
            f"relay emulator: {emu.url}/github/callback  dispatch recorded ({dispatch.delivery_id})"
        )
        # The emulated Actions token endpoint: the client mints exactly as in CI.
        tokens = ActionsOidcToken(emu.token_request_url, emu.request_token_for(repo))
        # A private outbox: leftovers of another relay must not be replayed at this one.
        client = CallbackClient(
            emu.url,
            tokens,
            repo,
            outbox=Outbox(state / "outbox-emulator"),
            budget=RateBudget(path=state / "budget.json"),
        )
        for stale in client.outbox.pending():
            client.outbox.bury(stale, "left by an earlier emulator session")
        try:
            yield Session(client, dispatch, local_ctx(options), f"{emu.url}/hud")
            if options.serve:
                console.print(f"HUD: {emu.url}/hud  (Ctrl-C to stop)")
                with contextlib.suppress(KeyboardInterrupt):
                    while True:
                        time.sleep(3600)
        finally:
            client.close()


def leg_recorder(options: Options, dispatch: Dispatch, session: Session, backend: str):
    """The warehouse hook for this cycle or run-leg (crcr/handler/record.py)."""
    from crcr.handler.record import LegRecorder

    return LegRecorder(
        options.warehouse,
        options.env,
        dispatch,
        session.ctx,
        repo=options.repo or LOCAL_REPO,
        backend=backend,
        runner=options.runner,
        level="L2" if session.hud_url else options.level,  # the embedded emulator allowlists us at L2
        # the dispatch reached this process: a local cycle's queue starts here; a CI leg's job
        # starts well after the relay's dispatch, which it cannot see (no queue sample)
        queued_at=None if options.actions_ctx is not None else session.started,
        levels=options.levels,  # the level each leg ran at, when the history names the repo
    )


def _summary(
    legs: Sequence[Leg], results: dict[int, LegResult], session: Session, title: str = "CRCR legs"
) -> Table:
    t = Table(title=title)
    cols = ("job_name", "conclusion", "passed", "failed", "skipped", "seconds", "core", "triage", "callbacks")
    for col in cols:
        t.add_column(col, no_wrap=col in ("job_name", "callbacks", "triage", "core"))
    for leg in legs:
        r = results.get(leg.index)
        t.add_row(
            leg.job_name,
            *(
                ["not run", "", "", "", "", "", ""]
                if r is None
                else [
                    r.conclusion,
                    str(r.counts.passed),
                    str(r.counts.failed),
                    str(r.counts.skipped),
                    f"{r.seconds:.1f}",
                    r.core.cell() if r.core else "",
                    verdict_cell(r),
                ]
            ),
            session.callback_label(leg.job_name),
        )
    return t


def verdict_cell(r: LegResult) -> str:
    """`category/confidence`, plus the first bad commit when bisection found one."""
    if not r.verdict:
        return ""
    first = r.bisection.culprit if r.bisection and r.bisection.status == "found" else None
    return f"{r.verdict['category']}/{r.verdict['confidence']}" + (f" {first.sha[:12]}" if first else "")


def _notes(legs: Sequence[Leg], results: dict[int, LegResult]) -> list[str]:
    """Leg notes below the table: the core line once, then each leg's own (attribution, skips)."""
    notes = [n for r in results.values() for n in r.notes[:1] if n.startswith("core:")]
    lines = sorted(set(notes))
    for leg in legs:
        r = results.get(leg.index)
        for note in r.notes if r else ():
            if not note.startswith("core:"):
                lines.append(f"{leg.job_name}: {note}")
    return lines


def _say(line: str) -> None:
    console.print(line, markup=False, soft_wrap=True)


def run_hooked_leg(
    leg: Leg,
    how: LegSettings,
    hooks: "LegHooks",
    devices: Optional[DeviceSettings] = None,
    stop_at: Optional[float] = None,
    why: str = "",
) -> LegResult:
    """One leg as the run's settings say, on its upstream, finished by the hooks (attribution);
    `how.smoke`: run 1/N of it (the local cycle), 1 = the whole leg (run-leg on a real runner).
    A leg the change-aware selection narrows runs only its selection, whole. A leg whose inputs
    equal a stored green leg's is reused, not run (handler/reuse.py). `devices`: the cards it
    runs on, probed around it (None: unpinned, unprobed). `stop_at`: when a newer dispatch
    supersedes the run (handler/stream.py): the leg's process is stopped then and the leg is
    `cancelled` (`why`), claiming no test and not triaged."""
    from crcr.handler.reuse import run_or_reuse

    selection, selection_file = hooks.selection_for(leg, how)
    core = hooks.core_for(leg, runner_of(how))  # its test files' imports, checked before its tests
    return run_or_reuse(
        leg,
        how,
        hooks,
        selection,
        core,  # the reuse key carries the leg's own exactness, as its run would
        lambda: _run_hooked(leg, how, hooks, selection, selection_file, core, devices, stop_at, why),
    )


def _run_hooked(leg, how, hooks, selection, selection_file, core, devices, stop_at, why) -> LegResult:
    cut = stop_at is not None and stop_at - time.time() < how.timeout
    if cut:
        how = replace(how, timeout=max(0.01, stop_at - time.time()))
    upstream = hooks.upstream_for(leg, core)
    run = lambda h: run_leg(leg, h, upstream, selection_file)  # noqa: E731
    result = run_on_devices(devices, how, run, _say, leg.configs, [upstream.core_note])
    result = replace(result, core=core)
    if cut and result.timed_out:
        return LegResult(
            "cancelled", result.exit_code, Counts(), result.seconds, (), (why,), core=result.core
        )
    if selection is not None:
        notes = list(result.notes)
        notes.insert(1 if notes and notes[0].startswith("core:") else 0, selection.line())
        result = replace(result, notes=tuple(notes), selection=selection.as_json())
    return hooks.finish(leg, result)


def run_cycle(
    options: Options, dispatch: Dispatch, legs: Sequence[Leg], hooks: Optional["LegHooks"] = None
) -> int:
    from crcr.handler.upstream_setup import LegHooks, UpstreamSetup

    hooks = hooks or LegHooks(UpstreamSetup("none", "", dispatch.sha), None, "HEAD", Path("."))
    check_runner_can_run(legs, options.runner, options.test_command)
    how = options.leg_settings(options.smoke)
    results: dict[int, LegResult] = {}
    console.print(f"{len(legs)} legs, runner={how.runner}, outputs in {how.out}")
    with reporting_session(options, dispatch) as session:
        recorder = leg_recorder(options, dispatch, session, hooks.backend)
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TimeElapsedColumn(),
            console=console,
        ) as progress:
            task = progress.add_task("legs", total=len(legs))
            for leg in legs:
                progress.update(task, description=f"leg {leg.job_name}")
                results[leg.index] = session.run(
                    leg,
                    lambda: run_hooked_leg(leg, how, hooks, options.devices),
                    lambda: progress.console.print(recorder.begin(leg), markup=False),
                )
                progress.console.print(recorder.record(leg, results[leg.index]), markup=False)
                progress.advance(task)
        recorder.close()
        console.print(
            _summary(legs, results, session, f"CRCR legs: {dispatch.event_type} at {dispatch.sha[:12]}")
        )
        for line in _notes(legs, results):
            console.print(line, markup=False, soft_wrap=True)
        if hooks.store is not None:
            console.print(f"attribution: {hooks.write_report()}")
        if getattr(hooks, "reuse", None) is not None:
            for line in [*hooks.reuse.notes, hooks.reuse.line()]:
                console.print(line, markup=False)
        missing = []
        if session.hud_url:
            _annotate_hud(session, legs, results)
            missing = _check_hud(session, legs, how.out)
    if missing:
        return EXIT_HUD_MISSING
    ok = all(r.conclusion in ("success", "neutral") for r in results.values())
    return 0 if ok else 1


def _annotate_hud(session: Session, legs: Sequence[Leg], results: dict[int, LegResult]) -> None:
    """Emulator only: leg notes (core, attribution) onto their HUD rows; the real HUD
    shows them through artifact_url, the leg's results JSON."""
    base = session.hud_url.rsplit("/hud", 1)[0]
    transport = HttpTransport()
    try:
        for leg in legs:
            r = results.get(leg.index)
            if r is not None and r.notes:
                fetch(
                    transport,
                    "POST",
                    f"{base}/_emulator/notes",
                    {
                        "delivery_id": session.dispatch.delivery_id,
                        "job_name": leg.job_name,
                        "note": "; ".join(r.notes),
                    },
                )
    finally:
        transport.close()


def _check_hud(session: Session, legs: Sequence[Leg], out: Path) -> list[str]:
    """Read the HUD back (what a reviewer would open), keep a snapshot; the legs without a completed row."""
    base = session.hud_url.rsplit("/hud", 1)[0]
    transport = HttpTransport()
    try:
        rows = fetch_json(transport, "GET", f"{base}/api/crcr/results")["rows"]
        # the page renders the warehouse's panels and charts: slower than a JSON answer
        page = fetch(transport, "GET", session.hud_url, timeout=PAGE_TIMEOUT).text()
    finally:
        transport.close()
    delivery = session.dispatch.delivery_id
    done = {
        r["job_name"] for r in rows if r.get("status") == "completed" and r.get("delivery_id") == delivery
    }
    missing = [leg.job_name for leg in legs if leg.job_name not in done]
    snapshot = out / "hud.html"
    write_text(snapshot, page)
    write_json(out / "hud.json", rows)
    console.print(
        f"HUD snapshot: {snapshot}  ({len(done)} completed jobs; live at {session.hud_url} with --serve)"
    )
    if missing:
        console.print(f"[red]HUD is missing completed rows for: {', '.join(missing)}[/red]")
    return missing
