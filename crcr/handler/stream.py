"""The local stream: several dispatches, in arrival order, on one device and one relay session.

What the workflow's concurrency group does in CI (one run per upstream PR, cancel-in-progress),
done here end to end on the relay (the embedded emulator by default): when a newer dispatch of
the same PR arrives (crcr/dispatch/supersede.py), the older run's leg that is running is stopped
and still sends its `completed` with conclusion `cancelled` from its own session (no HUD row
stays in_progress); its legs that never started send nothing, as jobs GitHub cancels before they
start. Each dispatch is gated first (crcr/dispatch/gating.py) and may reuse stored green legs
(crcr/handler/reuse.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Protocol, Sequence

from crcr.callback_client.transport import HttpTransport, fetch_json
from crcr.dispatch.event import Decision, Dispatch
from crcr.dispatch.plan import Leg
from crcr.dispatch.supersede import by_whom, superseded_at
from crcr.handler.cycle import Session, console, leg_recorder, reporting_session, run_hooked_leg
from crcr.handler.options import Options
from crcr.handler.runner import LegResult, check_runner_can_run
from testing.base.atomic import write_json


class PlannedLike(Protocol):
    dispatch: Dispatch
    decision: Decision
    legs: list[Leg]


@dataclass
class RunOutcome:
    """One dispatch of the stream: what its legs did."""

    dispatch: Dispatch
    line: str  # how the run went, one line
    results: dict[str, LegResult] = field(default_factory=dict)  # job_name -> result
    never_started: list[str] = field(default_factory=list)  # cancelled before they began


def run_stream(
    options: Options,
    arrivals: Sequence[tuple[float, PlannedLike]],
    hooks_for: Callable[[PlannedLike], object],
) -> list[RunOutcome]:
    """Every arrival (seconds after the stream starts, planned dispatch), in order. `hooks_for`
    makes a run's LegHooks (its upstream and core); each is closed after its run."""
    cut = superseded_at([(at, p.dispatch) for at, p in arrivals])
    plain = [(at, p.dispatch) for at, p in arrivals]
    how = options.leg_settings(options.smoke)
    check_runner_can_run([leg for _, p in arrivals for leg in p.legs], options.runner, options.test_command)
    first, *rest = [p.dispatch for _, p in arrivals]
    outcomes = []
    with reporting_session(options, first, rest) as session:
        start = time.time()
        for i, (at, planned) in enumerate(arrivals):
            time.sleep(max(0.0, start + at - time.time()))  # the dispatch has not arrived yet
            newer = by_whom(plain, i)
            why = (
                f"superseded by {newer.delivery_id} ({newer.action or 'push'} at {newer.sha[:12]})"
                if newer
                else ""
            )
            stop = None if cut[i] is None else start + cut[i]
            outcomes.append(_one_run(options, session, i, start + at, planned, how, hooks_for, stop, why))
            console.print(outcomes[-1].line, markup=False, soft_wrap=True)
        if session.hud_url:
            _check_hud(session, outcomes, options)
    return outcomes


def _one_run(options, session, i, arrived, planned, how, hooks_for, stop, why) -> RunOutcome:
    d = planned.dispatch
    run = RunOutcome(d, "")
    head = f"dispatch {i + 1} {d.delivery_id} ({d.event_type} #{d.pr_number or '-'} at {d.sha[:12]})"
    if not planned.decision.run:
        run.line = f"{head}: skip: {planned.decision.reason}"
        return run
    if stop is not None and time.time() >= stop:
        run.never_started = [leg.job_name for leg in planned.legs]
        run.line = f"{head}: {why} before it started: no leg ran, nothing sent"
        return run
    ctx = replace(session.ctx, run_id=f"{session.ctx.run_id}{i:03d}")
    run_session = Session(session.client, d, ctx, session.hud_url)
    run_session.started = arrived  # the run's queue starts at its dispatch
    hooks = hooks_for(planned)
    recorder = leg_recorder(options, d, run_session, hooks.backend)
    try:
        for leg in planned.legs:
            if any(r.conclusion == "cancelled" for r in run.results.values()) or (
                stop is not None and time.time() >= stop
            ):
                run.never_started.append(leg.job_name)  # GitHub cancels a job before it starts
                continue
            result = run_session.run(
                leg,
                lambda: run_hooked_leg(leg, how, hooks, options.devices, stop_at=stop, why=why),
                lambda: console.print(recorder.begin(leg), markup=False),
            )
            console.print(recorder.record(leg, result), markup=False)
            run.results[leg.job_name] = result
    finally:
        recorder.close()
        hooks.close()
    cancelled = [n for n, r in run.results.items() if r.conclusion == "cancelled"]
    run.line = f"{head}: " + ", ".join(f"{n} {r.conclusion}" for n, r in run.results.items())
    if cancelled:
        run.line += f"; {why}"
    if run.never_started:
        run.line += f"; never started (nothing sent): {', '.join(run.never_started)}"
    if hooks.reuse is not None:
        run.line += "; " + "; ".join([*hooks.reuse.notes, hooks.reuse.line()])
    return run


def _check_hud(session: Session, outcomes: list[RunOutcome], options: Options) -> None:
    """Read the relay's rows back: every leg that began has its completed row, none is left
    in_progress (the rows are kept beside the outputs as hud-stream.json)."""
    base = session.hud_url.rsplit("/hud", 1)[0]
    transport = HttpTransport()
    try:
        rows = fetch_json(transport, "GET", f"{base}/api/crcr/results")["rows"]
    finally:
        transport.close()
    write_json(options.out / "hud-stream.json", rows)
    began = {(o.dispatch.delivery_id, n) for o in outcomes for n in o.results}
    done = {(r.get("delivery_id"), r.get("job_name")) for r in rows if r.get("status") == "completed"}
    left = sorted(began - done)
    console.print(
        f"HUD: {len(began & done)} of {len(began)} started legs completed"
        + (f"; missing: {left}" if left else "; none left in_progress")
    )


def stream_exit(outcomes: list[RunOutcome]) -> int:
    """0 when every leg that ran (not cancelled) is green or neutral."""
    ok = all(
        r.conclusion in ("success", "neutral", "cancelled") for o in outcomes for r in o.results.values()
    )
    return 0 if ok else 1


def superseded(outcomes: list[RunOutcome]) -> Optional[RunOutcome]:
    """The first run a newer dispatch cancelled (for summaries and tests)."""
    return next((o for o in outcomes if any(r.conclusion == "cancelled" for r in o.results.values())), None)
