"""One schema for both backends: the SQL subset ClickHouse 18.16 (Debian's server) and
chdb (ClickHouse 26) both accept: no window functions, no LowCardinality, no JSON type.

Laid out for the page's queries over millions of results (tools/bench/warehouse_bench.py):
ingest ids are integers (the liveness filter below is a set lookup on every row), the
outcome an Enum8 of testing/results' vocabulary, and `results` is sorted by `test_key`
(a hash of the test id the server computes) so the per-test questions group on an integer
and then read the few tests they keep by primary key. Per-leg counts (passed, failed,
op_tests) are totals of the leg's own rows, written with it: pass rates and the newest
run with op tests are answered from `legs` alone.

Two tables. `legs`: one row per ingested leg; `results`: one row per test result, with the
few leg columns the page's queries group by copied in (commit, backend, time, feature,
simulated), so no query needs a JOIN (18.16's are slow and strict).

Atomic per leg without transactions: a leg's test rows are inserted first under a fresh
`ingest_id`, its `legs` row last. Readers see only ingests named by a `legs` row, and of
several ingests of one `leg_key` (a race between two writers) only the smallest id, so a
crash mid-ingest leaves nothing visible and a leg is never counted twice.
"""

from __future__ import annotations

from testing.results.outcomes import Outcome

SCHEMA_VERSION = 2  # 1: string ingest ids, string outcomes, results ordered by test id
OUTCOME_TYPE = "Enum8(" + ", ".join(f"'{o.value}' = {i + 1}" for i, o in enumerate(Outcome)) + ")"

LEG_COLUMNS: tuple[tuple[str, str], ...] = (
    ("ingest_id", "UInt64"),
    ("leg_key", "String"),  # repo/delivery/run_id/attempt/job: "the same leg"
    ("repo", "String"),
    ("delivery_id", "String"),
    ("event_type", "String"),
    ("pr_number", "Int64"),
    ("job_name", "String"),
    ("feature", "String"),
    ("run_id", "String"),
    ("run_attempt", "UInt32"),
    ("upstream_sha", "String"),
    ("backend_sha", "String"),
    ("core_version", "String"),
    ("core_overlay", "String"),
    ("runner", "String"),
    ("level", "String"),
    ("queued_at", "Nullable(DateTime)"),  # dispatch time; unknown in a bare CI leg
    ("started_at", "DateTime"),
    ("finished_at", "DateTime"),
    ("conclusion", "String"),
    ("results", "String"),  # complete | incomplete (truncated or invalid JUnit)
    ("results_note", "String"),
    ("passed", "UInt32"),
    ("failed", "UInt32"),
    ("skipped", "UInt32"),
    ("op_tests", "UInt32"),  # tests with an op property (the heat map's runs)
    ("triage_verdict", "Nullable(String)"),  # JSON, as the relay validated it (issue 21)
    ("bisection", "Nullable(String)"),  # JSON: first bad upstream commit (issue 21)
    ("simulated", "UInt8"),
    ("inserted_at", "DateTime"),
)

RESULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("ingest_id", "UInt64"),
    ("started_at", "DateTime"),
    ("upstream_sha", "String"),
    ("backend_sha", "String"),
    ("job_name", "String"),
    ("feature", "String"),
    ("simulated", "UInt8"),
    ("test_id", "String"),  # classname::name, as testing.results.junit keys a case
    ("file", "String"),
    ("class", "String"),
    ("name", "String"),
    ("op", "String"),
    ("dtype", "String"),  # comma-joined, as the plugin's property says
    ("module", "String"),
    ("outcome", OUTCOME_TYPE),  # testing.results.outcomes.Outcome
    ("duration", "Float64"),
    ("message", "String"),  # first line of the deciding message
    ("rule", "String"),  # config file:line that set the test's mode (promotion diffs)
)

# Computed by the server from the inserted columns (never inserted).
MATERIALIZED = {"results": (("test_key", "UInt64", "cityHash64(test_id)"),)}

TABLES = {
    "legs": (LEG_COLUMNS, "(started_at, leg_key)"),
    "results": (RESULT_COLUMNS, "(test_key, started_at)"),
}


def create_statements(db: str) -> list[str]:
    out = [f"CREATE DATABASE IF NOT EXISTS {db}"]
    for table, (columns, order) in TABLES.items():
        cols = [f"`{name}` {kind}" for name, kind in columns]
        cols += [f"`{name}` {kind} MATERIALIZED {expr}" for name, kind, expr in MATERIALIZED.get(table, ())]
        out.append(
            f"CREATE TABLE IF NOT EXISTS {db}.{table} ({', '.join(cols)}) ENGINE = MergeTree() ORDER BY {order}"
        )
    return out


def stale_tables(db: str) -> str:
    """SQL counting tables of an older schema (a `results` without `test_key`): CREATE ... IF
    NOT EXISTS would keep them, and this schema's inserts and queries would fail on them."""
    return f"""SELECT count() FROM system.tables WHERE database = '{db}' AND name = 'results'
        AND name NOT IN (SELECT table FROM system.columns WHERE database = '{db}' AND name = 'test_key')"""


def live(db: str) -> str:
    """WHERE condition: rows of committed ingests, one ingest per leg."""
    return f"ingest_id IN (SELECT min(ingest_id) FROM {db}.legs GROUP BY leg_key)"
