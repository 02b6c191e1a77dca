"""Ingest one leg: idempotent (the same leg twice is one copy), atomic (its test rows are
visible only once its `legs` row is in: schema.live), safe with concurrent writers (the
embedded warehouse serialises them with a lock; on a server a race leaves two ingests of
which readers pick one).

A leg has up to two rows, as the relay keeps a job: the `in_progress` row its job's first
callback makes (no results) and the `completed` row. Queue and execution time follow the
relay (callback_handler.py): the queue is measured from the dispatch to the first in_progress
of a run attempt and carried by that job alone (a re-run attempt's first job has its own, from
the same dispatch); the execution time runs from the job's in_progress to its completed, and
is NULL when there was no in_progress row to measure from (the relay's missing record)."""

from __future__ import annotations

import secrets
import time
from dataclasses import replace
from typing import Callable, Optional, Sequence

from crcr.warehouse.backends import Backend
from crcr.warehouse.records import LegRecord
from crcr.warehouse.schema import COMPLETED, IN_PROGRESS, LEG_COLUMNS, RESULT_COLUMNS
from crcr.warehouse.sql import quote

# Large legs go in several statements; none is visible before the leg row.
BATCH = 50_000


def new_ingest_id() -> int:
    """Milliseconds since the epoch and 20 random bits: unique between concurrent writers,
    roughly in ingest order, and below 2**63 (an UInt64 in both backends and in Arrow)."""
    return (time.time_ns() // 1_000_000) << 20 | secrets.randbits(20)


def leg_row(leg: LegRecord, ingest_id: int, now: float) -> tuple:
    passed, failed, skipped = leg.report.tally()
    values = {
        "ingest_id": ingest_id,
        "leg_key": leg.key,
        "repo": leg.repo,
        "delivery_id": leg.delivery_id,
        "event_type": leg.event_type,
        "pr_number": int(leg.pr_number),
        "job_name": leg.job_name,
        "feature": leg.feature,
        "run_id": leg.run_id,
        "run_attempt": int(leg.run_attempt),
        "upstream_sha": leg.upstream_sha,
        "backend_sha": leg.backend_sha,
        "core_version": leg.core_version,
        "core_overlay": leg.core_overlay,
        "runner": leg.runner,
        "level": leg.level,
        "queued_at": leg.queued_at,
        "started_at": leg.started_at,
        "finished_at": leg.finished_at,
        "conclusion": leg.conclusion,
        "results": leg.report.status,
        "results_note": "; ".join(leg.report.problems) or leg.results_note,
        "passed": passed,
        "failed": failed,
        "skipped": skipped,
        "op_tests": sum(1 for t in leg.report.tests if t.op),
        "triage_verdict": leg.json_or_none(leg.triage_verdict),
        "bisection": leg.json_or_none(leg.bisection),
        "simulated": int(leg.simulated),
        "inserted_at": now,
        "status": leg.status,
        "queue_time": leg.queue_time,
        "execution_time": leg.execution_time,
        "leg_seconds": leg.leg_seconds,
        "reuse_key": leg.reuse_key,
        "reused_from": leg.reused_from,
        "device": leg.device,
        "capability_skipped": sum(1 for t in leg.report.tests if t.capability),
    }
    return tuple(values[name] for name, _ in LEG_COLUMNS)


def result_rows(leg: LegRecord, ingest_id: int) -> list[tuple]:
    shared = (
        ingest_id,
        leg.started_at,
        leg.upstream_sha,
        leg.backend_sha,
        leg.job_name,
        leg.feature,
        int(leg.simulated),
    )
    return [
        shared
        + (t.test_id, t.file, t.cls, t.name, t.op, t.dtype, t.module, t.outcome.value)
        + (float(t.duration), t.message, t.rule, t.device or leg.device, t.capability)
        for t in leg.report.tests
    ]


def has_leg(wh: Backend, key: str, status: str = COMPLETED) -> bool:
    return (
        wh.query(
            f"SELECT count() FROM {wh.db}.legs WHERE leg_key = {quote(key)} AND status = {quote(status)}"
        )[0][0]
        > 0
    )


def _first_of_attempt(wh: Backend, leg: LegRecord) -> bool:
    """No job of this run attempt has sent in_progress yet (the relay's per-run queue rule)."""
    rows = wh.query(
        f"""SELECT count() FROM {wh.db}.legs WHERE status = '{IN_PROGRESS}' AND repo = {quote(leg.repo)}
        AND run_id = {quote(leg.run_id)} AND run_attempt = {int(leg.run_attempt)}"""
    )
    return rows[0][0] == 0


def as_relay_keeps(wh: Backend, leg: LegRecord) -> LegRecord:
    """`leg` with the queue and execution time the relay would report for it (see above)."""
    if leg.status == IN_PROGRESS:
        if leg.queue_time is None and leg.queued_at is not None and _first_of_attempt(wh, leg):
            return replace(leg, queue_time=max(0.0, leg.started_at - leg.queued_at))
        return leg
    rows = wh.query(
        f"""SELECT toUnixTimestamp(started_at), queue_time FROM {wh.db}.legs
        WHERE leg_key = {quote(leg.key)} AND status = '{IN_PROGRESS}' ORDER BY ingest_id LIMIT 1"""
    )
    if not rows:  # no in_progress to measure from: the leg's own values (None: NULL, as the relay)
        return leg
    started, queue = rows[0]
    return replace(
        leg, started_at=float(started), queue_time=queue, execution_time=max(0.0, leg.finished_at - started)
    )


def ingest(
    wh: Backend,
    leg: LegRecord,
    *,
    between_batches: Optional[Callable[[int], None]] = None,
    settle: bool = True,
) -> bool:
    """Store `leg` and its results; False when it was already there (nothing written).
    `between_batches(n)` runs after each batch of test rows (tests use it to crash mid-ingest);
    `settle=False`: the caller writes more legs in this session and settles once at the end."""
    ingest_id = new_ingest_id()
    with wh.exclusive():
        if has_leg(wh, leg.key, leg.status):
            return False
        leg = as_relay_keeps(wh, leg)
        rows = result_rows(leg, ingest_id)
        names = [n for n, _ in RESULT_COLUMNS]
        for start in range(0, len(rows), BATCH):
            wh.insert("results", names, rows[start : start + BATCH])
            if between_batches:
                between_batches(start + BATCH)
        # the commit point: from here on readers see the leg and its results
        wh.insert("legs", [n for n, _ in LEG_COLUMNS], [leg_row(leg, ingest_id, time.time())])
        if settle:
            wh.settle()
    return True


def ingest_bulk(wh: Backend, legs: Sequence[LegRecord]) -> int:
    """Many legs without test rows (the capacity simulator's, crcr/warehouse/capacity.py) into a
    scratch warehouse: one session, a few statements, each leg its own ingest id; their queue and
    execution times as given (no in_progress rows to derive them from), no de-duplication."""
    base = new_ingest_id() & ~0xFFFFF  # consecutive ids from this millisecond's first
    now = time.time()
    names = [n for n, _ in LEG_COLUMNS]
    rows = [leg_row(leg, base + i, now) for i, leg in enumerate(legs)]
    with wh.exclusive():
        for start in range(0, len(rows), BATCH):
            wh.insert("legs", names, rows[start : start + BATCH])
        wh.settle()
    return len(rows)
