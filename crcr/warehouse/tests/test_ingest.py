"""Ingestion: idempotent, atomic per leg (a crash mid-ingest leaves nothing visible),
safe with concurrent writers, and a truncated JUnit marks the leg `results incomplete`."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from crcr.callback_client.junit import Counts
from crcr.callback_client.junit import read_report as read_junit
from crcr.handler.outcome import leg_conclusion
from crcr.warehouse import queries
from crcr.warehouse.ingest import ingest
from crcr.warehouse.records import leg_report
from crcr.warehouse.schema import live
from crcr.warehouse.tests.history import case, leg, spec_of


def read_one(paths):
    """The handler's one reading of a leg's JUnit, as the warehouse stores it."""
    return leg_report(read_junit(paths))


def visible_results(wh) -> int:
    return wh.query(f"SELECT count() FROM {wh.db}.results WHERE {live(wh.db)}")[0][0]


def run_python(code: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], env=env)


def test_the_same_leg_twice_is_one_copy(wh):
    one = leg(1, [case("test_a", "passed"), case("test_b", "failed")])
    assert ingest(wh, one) is True
    assert ingest(wh, one) is False
    assert [d.legs for d in queries.dispatches(wh)] == [1]
    assert visible_results(wh) == 2
    # another attempt of the same job is another leg
    assert ingest(wh, leg(1, [case("test_a", "passed")], attempt=2)) is True
    assert visible_results(wh) == 3


CRASH = """
import os, sys
from crcr.warehouse import ingest as mod
from crcr.warehouse.backends import open_warehouse
from crcr.warehouse.tests.history import case, leg
mod.BATCH = 2
tests = [case(f"test_{i}", "passed") for i in range(6)]
wh = open_warehouse(sys.argv[1], {})
mod.ingest(wh, leg(5, tests), between_batches=lambda n: os._exit(9) if n >= 4 else None)
"""


def test_a_crash_mid_ingest_leaves_no_half_leg(wh):
    proc = run_python(CRASH, spec_of(wh))
    assert proc.wait(timeout=120) == 9
    raw = wh.query(f"SELECT count() FROM {wh.db}.results")[0][0]
    assert raw == 4  # two batches reached the table ...
    assert visible_results(wh) == 0  # ... and none is visible: the leg row never came
    assert queries.dispatches(wh) == [] and queries.history(wh, test="test_0") == []
    # the leg run again after the crash is stored whole, once
    assert ingest(wh, leg(5, [case(f"test_{i}", "passed") for i in range(6)])) is True
    assert visible_results(wh) == 6
    assert [p.outcomes for p in queries.history(wh, test="test_0")] == [{"passed": 1}]


CONCURRENT = """
import sys
from crcr.warehouse.backends import open_warehouse
from crcr.warehouse.ingest import ingest
from crcr.warehouse.tests.history import case, leg
wh = open_warehouse(sys.argv[1], {})
me = int(sys.argv[2])
for _ in range(3):  # the shared leg, raced by every writer, and this writer's own
    ingest(wh, leg(100, [case(f"test_{i}", "passed") for i in range(20)], job="test-shared"))
    ingest(wh, leg(me, [case(f"test_{i}", "failed") for i in range(10)], job=f"test-w{me}"))
"""


def test_concurrent_writers_store_each_leg_once(wh):
    procs = [run_python(CONCURRENT, spec_of(wh), str(n)) for n in range(4)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0, 0]
    dispatches = queries.dispatches(wh, 50)
    assert sorted(d.delivery_id for d in dispatches) == [
        "delivery-0",
        "delivery-1",
        "delivery-100",
        "delivery-2",
        "delivery-3",
    ]
    assert all(d.legs == 1 for d in dispatches)
    assert visible_results(wh) == 20 + 4 * 10


def test_truncated_junit_marks_the_leg_results_incomplete(wh, tmp_path):
    xml = tmp_path / "leg.xml"
    xml.write_text(
        "<testsuites><testsuite>"
        "<testcase classname='pkg.TestX' name='test_a' time='0.1'/>"
        "<testcase classname='pkg.TestX' name='test_b' time='0.1'><failure message='boom'/></testcase>"
        "<testcase classname='pkg.TestX' name='test_c' time='0.1'/>"
        "</testsuite></testsuites>"
    )
    whole = read_one([xml])
    assert whole.complete and [t.outcome.value for t in whole.tests] == ["passed", "failed", "passed"]
    xml.write_text(xml.read_text()[:150])  # cut inside the second testcase
    report = read_one([xml])
    assert not report.complete and report.status == "incomplete"
    assert "not readable JUnit XML" in report.problems[0] and str(xml) in report.problems[0]
    # pytest said 0, but the report is unreadable: never a pass
    assert leg_conclusion(0, False, Counts(*report.tally()), report.complete) == "failure"
    assert leg_conclusion(0, False, Counts(1, 0, 0), True) == "success"
    missing = read_one([tmp_path / "never-written.xml"])
    assert not missing.complete and missing.tests == ()

    ingest(wh, leg(9, report.tests, conclusion="failure", problems=report.problems))
    (d,) = queries.dispatches(wh)
    assert (d.incomplete, d.legs_green) == (1, 0)
    note = wh.query(f"SELECT results, results_note FROM {wh.db}.legs")[0]
    assert note[0] == "incomplete" and "not readable JUnit XML" in note[1]


def test_a_leg_per_session_keeps_every_table_at_few_parts(tmp_path, monkeypatch):
    """Each ingest opens and closes its own chdb session, as a CI leg does: merges the session
    started must not be dropped with it, or each leg leaves one more part per table."""
    from crcr.warehouse import backends

    monkeypatch.setattr(backends, "MAX_PARTS", 2)
    wh = backends.open_warehouse(str(tmp_path / "warehouse"), {})
    for run in range(8):
        tests = [case(f"test_{i}", "failed" if i % 7 == run % 7 else "passed", op="add") for i in range(40)]
        assert ingest(wh, leg(run, tests)) is True
        counts = wh.parts()
        assert set(counts) == {"device_cells", "legs", "op_cells", "rare_results", "results"}
        assert max(counts.values()) <= 2, counts
    assert visible_results(wh) == 8 * 40
    assert [f.test_id.rsplit("::", 1)[1] for f in queries.failing_tests(wh)] == [
        "test_0",
        "test_14",
        "test_21",
        "test_28",
        "test_35",
        "test_7",
    ]


def test_a_failed_settle_leaves_the_leg_stored(tmp_path, monkeypatch):
    """Embedded only: a server's settle does nothing."""
    from crcr.warehouse.backends import WarehouseError, open_warehouse

    wh = open_warehouse(str(tmp_path / "warehouse"), {})
    query = wh.query

    def refuse_merges(sql):
        if "system.merges" in sql:
            raise WarehouseError("merges unavailable")
        return query(sql)

    monkeypatch.setattr(wh, "query", refuse_merges)
    assert ingest(wh, leg(1, [case("test_a", "passed")])) is True
    assert visible_results(wh) == 1


def test_a_warehouse_of_the_older_schema_is_refused_in_one_line(wh):
    import pytest

    from crcr.callback_client.errors import ConfigError
    from crcr.warehouse.backends import open_warehouse

    with wh.exclusive():  # schema 1's results: string ingest ids, no test_key
        wh.query(f"DROP TABLE {wh.db}.results")
        wh.query(
            f"CREATE TABLE {wh.db}.results (ingest_id String, test_id String) ENGINE = MergeTree() ORDER BY test_id"
        )
    wh.close()
    with pytest.raises(ConfigError, match="holds an older schema .*move it aside"):
        open_warehouse(spec_of(wh), {})


def test_a_schema_2_warehouse_is_upgraded_in_place(wh):
    """Schema 2 had no derived tables: opening it creates the views and copies what results
    holds, so the per-test panels and the heat map still see every older leg."""
    from crcr.warehouse.backends import open_warehouse
    from crcr.warehouse.schema import DERIVED

    tests = [
        case("test_a", "passed", op="add", dtype="float32"),
        case("test_b", "failed", op="add", dtype="float32"),
    ]
    ingest(wh, leg(1, tests + [case("test_c", "xpassed_strict")]))
    with wh.exclusive():  # back to schema 2: no views, no derived rows
        for d in DERIVED:
            wh.query(f"DROP TABLE {wh.db}.{d.name}_mv")
            wh.query(f"DROP TABLE {wh.db}.{d.name}")
    wh.close()
    again = open_warehouse(spec_of(wh), {})
    try:
        stored = again.query(f"SELECT toString(outcome) FROM {again.db}.rare_results ORDER BY outcome")
        assert [r[0] for r in stored] == ["xpassed_strict", "failed"]  # the enum's order
        assert [f.test_id for f in queries.failing_tests(again)] == ["pkg.test_x.TestXSPYRE::test_b"]
        assert [(c.op, c.dtype, c.passed, c.failed) for c in queries.heatmap_latest(again)[1]] == [
            ("add", "float32", 1, 1)
        ]
        ingest(again, leg(2, [case("test_b", "failed")]))  # new rows reach the view again
        assert again.query(f"SELECT count() FROM {again.db}.rare_results")[0][0] == 3
    finally:
        again.close()
