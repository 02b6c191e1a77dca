"""Hand-made histories: legs and tests built with exactly the values a test needs."""

from __future__ import annotations

from crcr.warehouse.records import LegRecord, LegReport, TestRecord
from testing.results.outcomes import Outcome

NOW = 1_800_000_000.0  # a fixed "now" (2027-01-15): windows are relative to it
HOUR, DAY = 3600, 86400


def spec_of(wh) -> str:
    """The --warehouse spec that opens `wh` again (its directory, or its server database)."""
    return str(wh.path) if hasattr(wh, "path") else f"clickhouse://{wh.where.split('://', 1)[1]}"


def case(
    name: str, outcome: str, op: str = "", dtype: str = "", rule: str = "", cls: str = "TestX"
) -> TestRecord:
    return TestRecord(
        f"pkg.test_x.{cls}SPYRE::{name}",
        "pkg/test_x.py",
        cls,
        name,
        Outcome(outcome),
        0.5,
        op,
        dtype,
        rule=rule,
        classname=f"pkg.test_x.{cls}SPYRE",
    )


def leg(
    run: int,
    tests=(),
    *,
    job: str = "test-ops",
    started: float = NOW - DAY,
    exec_s: float = 600.0,
    queue_s: float | None = 60.0,
    conclusion: str = "success",
    attempt: int = 1,
    upstream: str | None = None,
    backend: str = "b" * 40,
    pr: int = 7,
    repo: str = "acme/oot-ci",
    level: str = "L2",
    simulated: bool = False,
    problems=(),
    exec_reported: bool = True,
    status: str = "completed",
    run_s: float | None = None,
) -> LegRecord:
    """A leg as the relay reports it: `queue_s` its queue time (the run attempt's first job
    only carries one, so later jobs of a run pass None), `exec_s` its execution time (None in
    the row when `exec_reported` is False: the relay had no in_progress record)."""
    return LegRecord(
        repo=repo,
        delivery_id=f"delivery-{run}",
        job_name=job,
        run_id=str(run),
        run_attempt=attempt,
        upstream_sha=upstream or f"{run:040x}",
        backend_sha=backend,
        started_at=started,
        finished_at=started + exec_s,
        conclusion=conclusion,
        event_type="pull_request" if pr else "push",
        pr_number=pr,
        feature=job.removeprefix("test-"),
        level=level,
        queued_at=None if queue_s is None else started - queue_s,
        queue_time=queue_s,
        execution_time=exec_s if exec_reported else None,
        status=status,
        leg_seconds=run_s,
        simulated=simulated,
        report=LegReport(tuple(tests), tuple(problems)),
    )
