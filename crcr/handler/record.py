"""Hook: every leg the handler runs (local cycle or a CI leg) goes into the results warehouse.

A warehouse that cannot be reached is said loudly and does not change the leg's outcome:
the callbacks are the job's contract, and the leg's JUnit and results JSON stay on disk.
"""

from __future__ import annotations

import time
from typing import Mapping, Optional

from crcr.callback_client.body import RunContext
from crcr.callback_client.errors import KNOWN
from crcr.dispatch.event import Dispatch
from crcr.dispatch.plan import Leg
from crcr.handler.runner import LegResult
from crcr.warehouse.levels import LevelHistory
from crcr.warehouse.records import LegRecord, leg_report


def core_version() -> str:
    from crcr.upstream.overlay import wheel_torch_dir, wheel_version

    try:
        return wheel_version(wheel_torch_dir())
    except (OSError, FileNotFoundError):
        return ""


class LegRecorder:
    """Opened once per cycle or run-leg; `record` after each leg."""

    def __init__(
        self,
        spec: Optional[str],
        env: Mapping[str, str],
        dispatch: Dispatch,
        ctx: RunContext,
        *,
        repo: str,
        backend: str,
        runner: str,
        level: str = "",
        queued_at: Optional[float] = None,
        levels: Optional[Mapping[str, LevelHistory]] = None,
    ):
        from crcr.warehouse.backends import open_warehouse

        self.dispatch, self.ctx, self.repo, self.backend, self.runner = dispatch, ctx, repo, backend, runner
        self.level, self.history = level, (levels or {}).get(repo)
        self.queued_at = queued_at
        self.core = core_version()
        self.error: Optional[str] = None
        try:
            # spec None: no default (no HOME), a one-line error; the env is the backend library's own
            self.wh = open_warehouse(spec, env)
        except KNOWN as err:
            self.wh, self.error = None, str(err)

    def _base(self, leg: Leg, started: float, finished: float, conclusion: str, **more) -> LegRecord:
        return LegRecord(
            repo=self.repo,
            delivery_id=self.dispatch.delivery_id,
            job_name=leg.job_name,
            run_id=self.ctx.run_id,
            run_attempt=int(self.ctx.run_attempt or 1),
            upstream_sha=self.dispatch.sha,
            backend_sha=self.backend,
            started_at=started,
            finished_at=finished,
            conclusion=conclusion,
            event_type=self.dispatch.event_type,
            pr_number=self.dispatch.pr_number or 0,
            feature=leg.feature,
            runner=self.runner,
            level=self.level_at(started),
            queued_at=self.queued_at,
            **more,
        )

    def level_at(self, when: float) -> str:
        """The level a leg started at `when` ran at: the level history's (--level-history)
        when it is this repo's and the repo was allowlisted by then, else the run's own
        ($CRCR_LEVEL; L2 on the embedded emulator)."""
        if self.history is not None:
            return self.history.level_at(when) or self.level
        return self.level

    def in_progress_record(self, leg: Leg, at: float) -> LegRecord:
        """The row of the leg's in_progress callback: the leg's start as the relay sees it (the
        warehouse gives it the run attempt's queue time if it is the attempt's first)."""
        return self._base(leg, at, at, "", status="in_progress", core_version=self.core)

    def leg_record(self, leg: Leg, result: LegResult) -> LegRecord:
        finished = time.time()
        core_note = next((n for n in result.notes if n.startswith("core:")), "")
        # the handler's own start; ingest takes the start, and the execution time, from the
        # leg's in_progress row (the relay measures from its in_progress: without one, NULL)
        return self._base(
            leg,
            finished - result.seconds,
            finished,
            result.conclusion,
            core_version=leg.candidate.bazel_config or self.core,
            core_overlay=core_note,
            leg_seconds=result.seconds,
            report=leg_report(result.report),
            triage_verdict=result.verdict,
            bisection=result.bisection.as_json() if result.bisection else None,
            reuse_key=result.reuse_key,
            reused_from=result.reused_from,
            results_note=result.notes[0] if result.reused_from else "",
            device=result.device,
        )

    def begin(self, leg: Leg, at: Optional[float] = None) -> str:
        """At the leg's in_progress (now, or `at` when the job sent it earlier): its in_progress
        row. One line for the log."""
        return self._store(
            leg, self.in_progress_record(leg, time.time() if at is None else at), "in_progress "
        )

    def record(self, leg: Leg, result: LegResult) -> str:
        """One line for the log: where the leg went, or why it did not."""
        return self._store(leg, self.leg_record(leg, result), "")

    def _store(self, leg: Leg, record: LegRecord, what: str) -> str:
        if self.wh is None:
            return f"warehouse: {what}not recorded ({self.error})"
        try:
            from crcr.warehouse.ingest import ingest

            new = ingest(self.wh, record)
        except KNOWN as err:
            return f"warehouse: {leg.job_name} {what}not recorded ({err})"
        return (
            f"warehouse: {leg.job_name} {what}{'recorded' if new else 'already recorded'} in {self.wh.where}"
        )

    def close(self) -> None:
        if self.wh is not None:
            self.wh.close()
