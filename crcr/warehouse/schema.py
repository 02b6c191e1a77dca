"""One schema for both backends: the SQL subset ClickHouse 18.16 (Debian's server) and
chdb (ClickHouse 26) both accept: no window functions, no LowCardinality, no JSON type.

Laid out for the page's queries over millions of results (tools/bench/warehouse_bench.py):
ingest ids are integers (the liveness filter below is a set lookup on every row), the
outcome an Enum8 of testing/results' vocabulary, and `results` is sorted by `test_key`
(a hash of the test id the server computes) so the per-test questions group on an integer
and then read the few tests they keep by primary key. Per-leg counts (passed, failed,
op_tests) are totals of the leg's own rows, written with it: pass rates and the newest
run with op tests are answered from `legs` alone.

Two tables, and two more the engine keeps. `legs`: one row per ingested leg; `results`:
one row per test result, with the few leg columns the page's queries group by copied in
(commit, backend, time, feature, simulated), so no query needs a JOIN over results
(18.16's are slow and strict; the per-test panels join only small tables to their
answers). `results` uses granules of 256 rows (ClickHouse's default is 8192): the
per-test panels read a few hundred tests' rows by primary key, scattered over the parts of
every insert. `DERIVED` tables are written by materialized views on each insert into
`results` (both engines run them as part of the insert): `rare_results`, the results with
a rare outcome (bad, or passed though configured to fail), where the per-test panels find
and name their tests instead of scanning every outcome; `op_cells`, the heat map's tally
per leg, op and dtype; `device_cells` (schema 6), the device-health panel's tally per leg
and card.

Atomic per leg without transactions: a leg's test rows are inserted first under a fresh
`ingest_id`, its `legs` row last. Readers see only ingests named by a `legs` row, and of
several ingests of one `leg_key` (a race between two writers) only the smallest id, so a
crash mid-ingest leaves nothing visible and a leg is never counted twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from testing.results.outcomes import BAD, PROMOTABLE, Outcome, tally

SCHEMA_VERSION = 6  # 1: string ingest ids, string outcomes, results ordered by test id; 2: no rare_results;
# 3: no status, queue_time, execution_time, leg_seconds on legs (completed legs only, queue derived from stamps);
# 4: no device on legs and results, no reuse_key, reused_from on legs (no leg was reused);
# 5: no capability bucket (capability_skipped on legs, capability on results), no device_cells (a derived table:
# created and filled from results when opened)
OUTCOME_CODES = {o.value: i + 1 for i, o in enumerate(Outcome)}  # toUInt8(outcome) in SQL
OUTCOME_TYPE = "Enum8(" + ", ".join(f"'{v}' = {code}" for v, code in OUTCOME_CODES.items()) + ")"

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
    # schema 4, as the relay keeps a job (crcr_workflow_job): its status, the queue time it
    # measured (dispatch -> the run attempt's first in_progress, on that job only) and the
    # execution time (the job's in_progress -> completed; NULL when there was no in_progress)
    ("status", "String"),  # in_progress | completed
    ("queue_time", "Nullable(Float64)"),
    ("execution_time", "Nullable(Float64)"),
    # the handler's own time running the leg's tests: execution_time minus it is checkout,
    # core resolution, build and set-up (the L3 panel's set-up share); NULL on in_progress rows
    ("leg_seconds", "Nullable(Float64)"),
    # schema 5 (issue 43): what a green leg may be reused for, and where a reused leg's result
    # came from (crcr/warehouse/reuse.py): the hash of its backend, resolved core, suite SHA,
    # configs, selection and run settings ("" = not reusable); the source leg's leg_key
    ("reuse_key", "String"),
    ("reused_from", "String"),
    # schema 5 (issue 41): the card the leg's results come from ("spyre:1"; "" = not pinned to one)
    ("device", "String"),
    # schema 6 (issue 42): tests skipped because the device answered a capability of upstream's
    # capability gating unsupported (their own bucket, apart from config skips)
    ("capability_skipped", "UInt32"),
)

IN_PROGRESS, COMPLETED = "in_progress", "completed"

# What a schema-3 `legs` row reads as in the columns schema 4 added (ALTER TABLE ... ADD
# COLUMN ... DEFAULT: older parts compute it on read): every such row was a completed leg
# with the handler's own start and finish; the relay's per-run queue time cannot be told
# from its stamps, so it is NULL (no queue sample) rather than a guess.
SCHEMA4_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "legs": (
        ("status", f"DEFAULT '{COMPLETED}'"),
        ("queue_time", "DEFAULT NULL"),
        ("execution_time", "DEFAULT toFloat64(toInt64(finished_at) - toInt64(started_at))"),
        ("leg_seconds", "DEFAULT toFloat64(toInt64(finished_at) - toInt64(started_at))"),
    )
}
# Schema 5 (issue #41), its own step: the device of every leg and result. Rows stored before
# it read as "" (unknown: not pinned to a card, or not said).
SCHEMA5_DEVICE_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "legs": (("device", "DEFAULT ''"),),
    "results": (("device", "DEFAULT ''"),),
}


def _steps(*steps: dict[str, tuple[tuple[str, str], ...]]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Every migration step's added columns per table, oldest step first."""
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for step in steps:
        for table, columns in step.items():
            out[table] = out.get(table, ()) + columns
    return out


# Schema 5 (issue #43), its own step: an older leg has no reuse key (never reused from) and was run.
REUSE_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "legs": (("reuse_key", "DEFAULT ''"), ("reused_from", "DEFAULT ''")),
}
# Schema 6 (issue #42), its own step: the capability bucket. Rows stored before it had no
# capability gating to skip for: 0 and "".
SCHEMA6_CAPABILITY_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "legs": (("capability_skipped", "DEFAULT 0"),),
    "results": (("capability", "DEFAULT ''"),),
}
# Every step's added columns per table, oldest first (open_warehouse adds whatever a table lacks).
ADDED_COLUMNS = _steps(SCHEMA4_COLUMNS, SCHEMA5_DEVICE_COLUMNS, REUSE_COLUMNS, SCHEMA6_CAPABILITY_COLUMNS)


def _added(table: str) -> tuple[tuple[str, str], ...]:
    return ADDED_COLUMNS.get(table, ())


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
    ("device", "String"),  # schema 5: the card that produced it (its JUnit's, else the leg's; "" unknown)
    ("capability", "String"),  # schema 6: the capability answered unsupported that skipped it ("" none)
)

# Computed by the server from the inserted columns (never inserted).
MATERIALIZED = {"results": (("test_key", "UInt64", "cityHash64(test_id)"),)}

TABLES = {
    "legs": (LEG_COLUMNS, "(started_at, leg_key)"),
    "results": (RESULT_COLUMNS, "(test_key, started_at)"),
}
SETTINGS = {"results": "index_granularity = 256"}

# The outcomes a per-test panel starts from: bad ones (flaky, failing) and passes of tests
# configured to fail (promotions). Rare by nature: a healthy suite mostly passes.
RARE_OUTCOMES = tuple(sorted(o.value for o in BAD | PROMOTABLE))
PASSING = tuple(o.value for o in Outcome if tally(o) == "passed")  # passed and both XPASSes
FAILING = tuple(o.value for o in Outcome if tally(o) == "failed")  # the bad ones


def _in(values) -> str:
    return "(" + ", ".join(f"'{v}'" for v in values) + ")"


@dataclass(frozen=True)
class Derived:
    """A table the engine keeps from each insert into `results` (a materialized view into
    it, part of the insert on both engines) and the SELECT that view runs."""

    name: str
    columns: tuple[tuple[str, str], ...]
    order: str
    select: str  # over {db}.results; the view's query and an upgrade's backfill


DERIVED = (
    # The per-test panels find their tests here, and name them, not among every result.
    Derived(
        "rare_results",
        (
            ("test_key", "UInt64"),
            ("test_id", "String"),
            ("ingest_id", "UInt64"),
            ("started_at", "DateTime"),
            ("outcome", OUTCOME_TYPE),
        ),
        "(test_key, started_at)",
        f"SELECT test_key, test_id, ingest_id, started_at, outcome FROM {{db}}.results WHERE outcome IN {_in(RARE_OUTCOMES)}",
    ),
    # The heat map's tally per leg, op and dtype (a leg may come in several inserts: sum()).
    Derived(
        "op_cells",
        (
            ("ingest_id", "UInt64"),
            ("op", "String"),
            ("dtype", "String"),
            ("passed", "UInt64"),
            ("failed", "UInt64"),
        ),
        "(ingest_id, op, dtype)",
        f"""SELECT ingest_id, op, dtype, countIf(outcome IN {_in(PASSING)}) AS passed,
        countIf(outcome IN {_in(FAILING)}) AS failed FROM {{db}}.results WHERE op != '' GROUP BY ingest_id, op, dtype""",
    ),
    # Schema 6 (issue 41): the device-health panel's tally per leg and card (a few rows a leg,
    # where the failures by device would otherwise scan every result's outcome and device).
    Derived(
        "device_cells",
        (
            ("ingest_id", "UInt64"),
            ("device", "String"),
            ("tests", "UInt64"),
            ("failed", "UInt64"),
        ),
        "(ingest_id, device)",
        f"""SELECT ingest_id, device, count() AS tests, countIf(outcome IN {_in(FAILING)}) AS failed
        FROM {{db}}.results GROUP BY ingest_id, device""",
    ),
)


def create_statements(db: str) -> list[str]:
    """The database and every table; the views come after an older table gained its columns
    (`view_statements`): a view naming a column its table lacks is refused."""
    out = [f"CREATE DATABASE IF NOT EXISTS {db}"]
    tables = {**TABLES, **{d.name: (d.columns, d.order) for d in DERIVED}}
    for table, (columns, order) in tables.items():
        cols = [f"`{name}` {kind}" for name, kind in columns]
        cols += [f"`{name}` {kind} MATERIALIZED {expr}" for name, kind, expr in MATERIALIZED.get(table, ())]
        settings = f" SETTINGS {SETTINGS[table]}" if table in SETTINGS else ""
        out.append(
            f"CREATE TABLE IF NOT EXISTS {db}.{table} ({', '.join(cols)}) ENGINE = MergeTree() ORDER BY {order}{settings}"
        )
    return out


def view_statements(db: str) -> list[str]:
    return [
        f"CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.{d.name}_mv TO {db}.{d.name} AS {d.select.format(db=db)}"
        for d in DERIVED
    ]


def missing_derived(db: str) -> str:
    """SQL: the derived tables whose view is absent beside an existing `results` (a schema-2
    or -5 warehouse, which open_warehouse upgrades: it creates the views, then copies what
    results holds). By the view: its table only ever gets rows through it, so a table left
    without its view (an upgrade cut short) is empty and filled the same way."""
    names = ", ".join(f"'{d.name}'" for d in DERIVED)
    return f"""SELECT name FROM (SELECT arrayJoin([{names}]) AS name)
        WHERE concat(name, '_mv') NOT IN (SELECT name FROM system.tables WHERE database = '{db}')
        AND (SELECT count() FROM system.tables WHERE database = '{db}' AND name = 'results') > 0"""


def backfill(db: str, name: str) -> str:
    (d,) = [d for d in DERIVED if d.name == name]
    return f"INSERT INTO {db}.{name} ({', '.join(n for n, _ in d.columns)}) {d.select.format(db=db)}"


def stale_tables(db: str) -> str:
    """SQL counting tables of an older schema (a `results` without `test_key`): CREATE ... IF
    NOT EXISTS would keep them, and this schema's inserts and queries would fail on them."""
    return f"""SELECT count() FROM system.tables WHERE database = '{db}' AND name = 'results'
        AND name NOT IN (SELECT table FROM system.columns WHERE database = '{db}' AND name = 'test_key')"""


def missing_columns(db: str) -> str:
    """SQL: (table, column) of ADDED_COLUMNS that an existing table lacks (an older schema)."""
    tables = ADDED_COLUMNS
    pairs = ", ".join(f"('{t}', '{c}')" for t in tables for c, _ in _added(t))
    return f"""SELECT tupleElement(p, 1) AS t, tupleElement(p, 2) AS c FROM (SELECT arrayJoin([{pairs}]) AS p)
        WHERE t IN (SELECT name FROM system.tables WHERE database = '{db}')
        AND (t, c) NOT IN (SELECT table, name FROM system.columns WHERE database = '{db}')"""


def add_columns(db: str, table: str, names: list[str]) -> str:
    """One ALTER for every missing column of `table`: one metadata change (and a repeat of
    open_warehouse adds whatever is still missing, so no reader sees a table half-upgraded)."""
    kinds, defaults = dict(TABLES[table][0]), dict(_added(table))
    adds = [f"ADD COLUMN `{n}` {kinds[n]} {defaults[n]}" for n, _ in _added(table) if n in names]
    return f"ALTER TABLE {db}.{table} {', '.join(adds)}"


def live(db: str, since: str = "", status: str = COMPLETED) -> str:
    """WHERE condition: rows of committed ingests, one ingest per leg and status (a leg's
    in_progress row is its own ingest; every question but the in-progress ones reads the
    completed rows, as HUD's queries filter `status = 'completed'`). `since`: a condition on
    `started_at` that the caller's rows meet too: every copy of a leg (and each of its result
    rows) carries the leg's start, so only the legs it selects need reading (a windowed
    question then reads its window's legs, not every leg ever ingested)."""
    where = f" AND {since}" if since else ""
    return f"ingest_id IN (SELECT min(ingest_id) FROM {db}.legs WHERE status = '{status}'{where} GROUP BY leg_key)"
