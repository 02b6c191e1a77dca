"""Rows as the relay keeps them (schema 4): a leg's in_progress row, the queue time of a run
attempt's first in_progress, the execution time from in_progress to completed (NULL without
one), each aggregated as crcr_l3_summary aggregates it; and the upgrade of a schema-3
warehouse in place. Every test runs on chdb and on a clickhouse-server (conftest's `wh`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from crcr.warehouse import queries
from crcr.warehouse.backends import WarehouseError, open_warehouse, upgrade_columns
from crcr.warehouse.ingest import ingest
from crcr.warehouse.schema import ADDED_COLUMNS, SCHEMA5_DEVICE_COLUMNS, SCHEMA6_CAPABILITY_COLUMNS
from crcr.warehouse.tests.history import DAY, HOUR, NOW, case, leg, spec_of

REPO = "acme/oot-ci"
T0 = NOW - DAY  # the dispatch reached the backend here


def started(run: int, job: str, at: float, attempt: int = 1):
    """The leg's in_progress row, as the handler records it right after the callback."""
    return leg(
        run,
        job=job,
        started=at,
        exec_s=0,
        queue_s=None,
        attempt=attempt,
        status="in_progress",
        conclusion="",
        exec_reported=False,
    )


def done(run: int, job: str, at: float, attempt: int = 1, conclusion: str = "success"):
    """The completed row, with the handler's own (later) start and no relay-reported times."""
    return replace(
        leg(run, [case("test_a", "passed")], job=job, started=at, exec_s=60, queue_s=None, attempt=attempt),
        conclusion=conclusion,
        execution_time=None,
    )


def legs_rows(wh, where: str = "1") -> list[tuple]:
    return wh.query(
        f"""SELECT job_name, run_attempt, status, queue_time, execution_time, toUnixTimestamp(started_at)
        FROM {wh.db}.legs WHERE {where} ORDER BY run_attempt, status DESC, job_name"""
    )


def test_queue_time_is_carried_by_each_run_attempts_first_in_progress(wh):
    dispatched = T0
    for job, at in (("test-a", T0 + 100), ("test-b", T0 + 130)):
        ingest(wh, replace(started(1, job, at), queued_at=dispatched))
    ingest(wh, done(1, "test-a", T0 + 105))  # the handler's own start comes later than its in_progress
    ingest(wh, done(1, "test-b", T0 + 140, conclusion="failure"))
    # a re-run of test-b: attempt 2's first in_progress carries its own queue, from the same dispatch
    ingest(wh, replace(started(1, "test-b", T0 + 4000, attempt=2), queued_at=dispatched))
    assert legs_rows(wh) == [
        ("test-a", 1, "in_progress", 100.0, None, T0 + 100),
        ("test-b", 1, "in_progress", None, None, T0 + 130),
        ("test-a", 1, "completed", 100.0, 65.0, T0 + 100),  # start and queue from its in_progress
        ("test-b", 1, "completed", None, 70.0, T0 + 130),
        ("test-b", 2, "in_progress", 4000.0, None, T0 + 4000),
    ]


def test_in_progress_rows_are_kept_and_never_counted(wh):
    ingest(wh, replace(started(1, "test-a", T0 + 100), queued_at=T0))
    ingest(wh, done(1, "test-a", T0 + 100))
    ingest(wh, replace(started(1, "test-b", T0 + 120), queued_at=T0))  # still running
    ingest(wh, replace(started(1, "test-b", T0 + 120), queued_at=T0))  # the same in_progress twice: one row
    assert wh.query(f"SELECT count() FROM {wh.db}.legs WHERE status = 'in_progress'")[0][0] == 2
    m = queries.l3_metrics(wh, NOW, 14)[REPO]
    assert (m.jobs, m.successes, m.avg_queue_s) == (1, 1, 100.0)  # HUD: status = 'completed'
    (dispatch,) = queries.dispatches(wh)
    assert dispatch.legs == 1


def test_a_null_execution_time_counts_in_the_overrun_denominator_only(wh):
    ingest(wh, leg(0, exec_s=3 * HOUR + 1))  # the one overrun the relay measured
    with wh.exclusive():
        for i in range(1, 100):  # long by their stamps, but the relay had no in_progress record: NULL
            ingest(wh, leg(i, started=T0 - i * 60, exec_s=4 * HOUR, exec_reported=False), settle=False)
    m = queries.l3_metrics(wh, NOW, 14)[REPO]
    assert m.overrun_rate == pytest.approx(1 / 100)
    assert m.max_exec_s == 3 * HOUR + 1


def test_a_run_without_any_execution_time_shows_no_maximum(wh):
    ingest(wh, leg(1, exec_s=600, exec_reported=False))
    m = queries.l3_metrics(wh, NOW, 14)[REPO]
    assert (m.max_exec_s, m.overrun_rate) == (None, 0.0)


def test_queue_is_averaged_over_the_jobs_that_carry_one_and_e2e_takes_the_runs_largest(wh):
    # run 1: test-a's attempt 1 carried 100 s; test-b was re-run and its attempt 2 carried its own 900 s
    ingest(wh, leg(1, job="test-a", started=T0, exec_s=600, queue_s=100))
    ingest(wh, leg(1, job="test-b", started=T0 + 10, exec_s=600, queue_s=None, conclusion="failure"))
    ingest(wh, leg(1, job="test-b", started=T0 + 3600, exec_s=600, queue_s=900, attempt=2))
    ingest(wh, leg(2, started=T0, exec_s=600, queue_s=None))  # no queue in its run: no E2E sample
    m = queries.l3_metrics(wh, NOW, 14)[REPO]
    assert m.avg_queue_s == pytest.approx(500.0)  # avg(queue_time) over the kept rows, NULLs skipped
    assert m.median_e2e_s == 900 + 4200  # max(queue_time) + first start to last finish
    assert (m.jobs, m.successes) == (3, 3)


def test_the_set_up_share_is_execution_time_outside_the_legs_own_run(wh):
    ingest(wh, leg(1, exec_s=1000, run_s=600))  # 400 s of checkout, core and build
    ingest(wh, leg(2, exec_s=3000, run_s=3000))
    ingest(wh, leg(3, exec_s=5000, run_s=None))  # the handler's time unknown: left out
    ingest(wh, leg(4, exec_s=5000, run_s=100, exec_reported=False))  # no execution time: left out
    m = queries.l3_metrics(wh, NOW, 14)[REPO]
    assert m.setup_share == pytest.approx(400 / 4000)
    (standing,) = queries.l3_standings(wh, NOW, {})
    assert (
        "build and set-up (in_progress -> the tests start): 10% of the legs' execution time"
        in standing.time_note()
    )
    assert (
        "measured queue (dispatch -> a run's first in_progress): 1.0 min on average" in standing.time_note()
    )


def _dropping(wh, added) -> None:
    """Back to an older schema: the tables without the columns `added` ({table: columns}) names,
    and without schema 6's device_cells (its view names `device`: the engine keeps it)."""
    with wh.exclusive():
        for name in ("device_cells_mv", "device_cells"):
            wh.query(f"DROP TABLE {wh.db}.{name}")
        for table, columns in added.items():
            for column, _ in columns:
                wh.query(f"ALTER TABLE {wh.db}.{table} DROP COLUMN `{column}`")
    wh.close()


def _to_schema_3(wh) -> None:
    """Back to schema 3: the tables without the columns schemas 4 and 5 added."""
    _dropping(wh, ADDED_COLUMNS)


def test_a_schema_3_warehouse_is_upgraded_in_place(wh):
    ingest(wh, leg(1, started=T0, exec_s=4 * HOUR, queue_s=300))
    _to_schema_3(wh)
    again = open_warehouse(spec_of(wh), {})
    try:
        # its legs read as completed, their execution time (all of it the leg's own) from their
        # stamps, no queue sample
        assert legs_rows(again) == [("test-ops", 1, "completed", None, 4 * HOUR, T0)]
        assert again.query(f"SELECT leg_seconds FROM {again.db}.legs")[0][0] == 4 * HOUR
        m = queries.l3_metrics(again, NOW, 14)[REPO]
        assert (m.jobs, m.overrun_rate, m.avg_queue_s) == (1, 1.0, None)
        ingest(again, replace(started(2, "test-ops", T0 + 50), queued_at=T0))
        ingest(again, done(2, "test-ops", T0 + 60))
        assert queries.l3_metrics(again, NOW, 14)[REPO].avg_queue_s == 50.0
    finally:
        again.close()


def test_a_partly_upgraded_warehouse_is_completed_on_the_next_open(wh):
    ingest(wh, leg(1, started=T0))
    with wh.exclusive():  # as if an upgrade stopped after its first column
        for column in ("queue_time", "execution_time"):
            wh.query(f"ALTER TABLE {wh.db}.legs DROP COLUMN `{column}`")
    wh.close()
    again = open_warehouse(spec_of(wh), {})
    try:
        assert legs_rows(again) == [("test-ops", 1, "completed", None, 600.0, T0)]
    finally:
        again.close()


def test_an_upgrade_the_engine_refuses_is_one_line_and_changes_nothing(wh, monkeypatch):
    _to_schema_3(wh)
    query = wh.query

    def refuse_alter(sql: str):
        if sql.startswith("ALTER"):
            raise WarehouseError(f"warehouse {wh.where}: Code: 48. DB::Exception: not supported\nstack")
        return query(sql)

    monkeypatch.setattr(wh, "query", refuse_alter)
    with pytest.raises(WarehouseError) as err:
        upgrade_columns(wh)
    assert "\n" not in str(err.value)
    assert str(err.value).startswith(
        "could not upgrade legs to schema 6 (adding status, queue_time, execution_time, leg_seconds, device, reuse_key, "
        "reused_from, capability_skipped; "
        "nothing was changed) in warehouse "
    )
    columns = query(f"SELECT name FROM system.columns WHERE database = '{wh.db}' AND table = 'legs'")
    assert "status" not in {c[0] for c in columns}


def test_a_green_leg_that_ran_is_the_reuse_source_for_its_key_and_schema_4_upgrades(wh):
    """Schema 5 (issue 43): only a completed, real, green leg that itself ran serves its key;
    a schema-4 warehouse gains the two columns in place (older legs: no key, not reused)."""
    from crcr.warehouse.reuse import find_green
    from crcr.warehouse.schema import REUSE_COLUMNS

    ingest(wh, replace(leg(1, started=T0, exec_s=900), reuse_key="k1"))
    ingest(wh, replace(leg(2, started=T0 + 10, conclusion="failure"), reuse_key="k2"))
    ingest(wh, replace(leg(3, started=T0 + 20), reuse_key="k1", reused_from="x"))  # a reused one
    ingest(wh, replace(leg(4, started=T0 + 30, simulated=True), reuse_key="k3"))
    found = find_green(wh, REPO, "k1")
    assert (found.run_id, found.seconds, found.passed) == (leg(1).run_id, 900.0, 0)
    assert [find_green(wh, REPO, k) for k in ("k2", "k3", "k4")] == [None, None, None]
    assert find_green(wh, "other/repo", "k1") is None
    with wh.exclusive():
        for column, _ in REUSE_COLUMNS["legs"]:
            wh.query(f"ALTER TABLE {wh.db}.legs DROP COLUMN `{column}`")
    wh.close()
    again = open_warehouse(spec_of(wh), {})
    try:
        assert again.query(f"SELECT count() FROM {again.db}.legs WHERE reuse_key = ''")[0][0] == 4
        assert find_green(again, REPO, "k1") is None
    finally:
        again.close()


def test_a_schema_4_warehouse_gains_the_device_of_every_leg_and_result(wh):
    """Schema 5 (#41): each result's device is its JUnit's (the shard runner's pool names the
    card per test), else its leg's card; rows stored before read as unknown ("")."""
    ingest(wh, leg(1, [case("test_a", "passed")], started=T0))
    _dropping(wh, SCHEMA5_DEVICE_COLUMNS)  # back to schema 4: schema 5's own step undone
    again = open_warehouse(spec_of(wh), {})  # the columns first, then the view that names one
    try:
        on_card = replace(case("test_b", "failed"), device="spyre:3")
        ingest(again, replace(leg(2, [case("test_a", "passed"), on_card], started=T0 + 60), device="spyre:1"))
        rows = again.query(
            f"SELECT toUnixTimestamp(started_at), name, device FROM {again.db}.results ORDER BY started_at, name"
        )
        assert rows == [(T0, "test_a", ""), (T0 + 60, "test_a", "spyre:1"), (T0 + 60, "test_b", "spyre:3")]
        legs = again.query(f"SELECT device FROM {again.db}.legs ORDER BY started_at")
        assert [r[0] for r in legs] == ["", "spyre:1"]
        health = [(d.device, d.tests, d.failed) for d in queries.device_health(again)]
        assert health == [("", 1, 0), ("spyre:1", 1, 0), ("spyre:3", 1, 1)]  # the older leg copied in
    finally:
        again.close()


def test_a_schema_5_warehouse_gains_the_capability_bucket_of_every_leg_and_result(wh):
    """Schema 6 (#42): a test the plugin skipped for a capability answered unsupported carries
    it (JUnit property `capability`), its leg counts it apart from other skips; rows stored
    before read as 0 and ""."""
    ingest(wh, leg(1, [case("test_a", "skipped")], started=T0))
    _dropping(wh, SCHEMA6_CAPABILITY_COLUMNS)  # back to schema 5: schema 6's own step undone
    again = open_warehouse(spec_of(wh), {})
    try:
        gated = replace(case("test_fp8", "skipped"), capability="dtype.fp8")
        tests = [case("test_a", "skipped"), gated, case("test_b", "passed")]
        ingest(again, leg(2, tests, started=T0 + 60))
        rows = again.query(
            f"SELECT toUnixTimestamp(started_at), name, capability FROM {again.db}.results ORDER BY started_at, name"
        )
        assert rows == [
            (T0, "test_a", ""),
            (T0 + 60, "test_a", ""),
            (T0 + 60, "test_b", ""),
            (T0 + 60, "test_fp8", "dtype.fp8"),
        ]
        legs = again.query(f"SELECT skipped, capability_skipped FROM {again.db}.legs ORDER BY started_at")
        assert legs == [(1, 0), (2, 1)]
    finally:
        again.close()
