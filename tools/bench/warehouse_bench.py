"""Results warehouse: embedded ClickHouse (chdb) beside SQLite on the same rows and queries.

    tools/bazel run //tools/bench:warehouse_bench [-- --rows 10000000 --repeat 3]

Each engine runs in its own child process (so each peak RSS is its own): it ingests the same
generated test results and their legs (legs of 5000 tests; flaky, regressing and promotable
tests seeded; each leg's counts the tally of its rows, as ingest.py writes them), one engine
after the other (each child times its own ingest), then stays alive and answers over a pipe
(turns.py). The HUD page's queries are timed in --repeat interleaved rounds: each round times
each question once on each engine, back to back, the first engine alternating by round and
question, so a load spike on this shared machine hits both sides (each timing follows one
untimed run of the same question: a warm question, as back-to-back repeats measured). The
figures are medians over the rounds; each question's lowest-highest round ratio says how
steady the ratio was. `SELECT 1` (each engine's cost of any question) is timed the same way.
chdb runs the warehouse's own code (crcr/warehouse/queries.py); SQLite the same questions,
shaped the same way (legs where legs suffice, per-test decisions before per-test details), in
its dialect, with the indexes a sensible user would add (printed). The ratios are chdb /
SQLite (goal: every page query <= 0.1); chdb also renders every panel of the page in its own
session, as the HUD does (goal: <= 1 s). The answers are compared whole: a ratio over
different answers would mean nothing.

Over 500 lines: the two engines' forms of each question sit in one file, to be read side by
side (the pipe and the rounds live in turns.py).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from testing.base.atomic import write_text
from testing.base.cliargs import Parser
from testing.base.command import command
from tools.bench.turns import TIMING, Child, ChildError, channel, rounds, serve, spreads

TESTS_PER_LEG = 5000
FEATURES = ("ops", "modules", "basics", "noncontig")
OPS = np.array(["add", "mul", "sub", "div", "exp", "log", "sin", "matmul", "sum", "mean"], dtype=object)
DTYPES = np.array(["float32", "float16", "bfloat16", "int32"], dtype=object)
OUTCOMES = np.array(["passed", "failed", "skipped", "xfailed", "xpassed_strict"], dtype=object)
NOW = 1_800_000_000
REPO = "acme/oot-ci"


def plan(rows: int) -> tuple[int, int]:
    """(dispatches, legs): one leg per feature per dispatch."""
    legs = max(len(FEATURES), rows // TESTS_PER_LEG)
    return legs // len(FEATURES), legs


def leg_columns(part: list[tuple[int, int]], n_dispatch: int, counts: np.ndarray, days: int) -> dict:
    """The legs `part` ((dispatch, feature) pairs), in the warehouse's `legs` columns; their
    passed/failed/skipped/op_tests are `counts` (one row per leg), the tally of their own rows."""
    from crcr.warehouse.schema import LEG_COLUMNS

    out: dict[str, list] = {name: [] for name, _ in LEG_COLUMNS}
    for (d, f), (passed, failed, skipped, op_tests) in zip(part, counts.tolist()):
        start = started(d, n_dispatch, days)
        feature = FEATURES[f]
        values = {
            "ingest_id": ingest_id(d, f),
            "leg_key": f"{REPO}/d{d}/{d}/1/test-{feature}",
            "repo": REPO,
            "delivery_id": f"d{d}",
            "event_type": "pull_request",
            "pr_number": 1000 + d,
            "job_name": f"test-{feature}",
            "feature": feature,
            "run_id": str(d),
            "run_attempt": 1,
            "upstream_sha": f"{d:040x}",
            "backend_sha": "b" * 40,
            "core_version": "2.13.0",
            "core_overlay": "",
            "runner": "bench",
            "level": "L2",
            "queued_at": start - 300,
            "started_at": start,
            "finished_at": start + 1800,
            "conclusion": "failure" if failed else "success",
            "results": "complete",
            "results_note": "",
            "passed": passed,
            "failed": failed,
            "skipped": skipped,
            "op_tests": op_tests,
            "triage_verdict": None,
            "bisection": None,
            "simulated": 0,
            "inserted_at": NOW,
            "status": "completed",
            "queue_time": 300.0 if f == 0 else None,  # the relay's: on the run's first job only
            "execution_time": 1800.0,
            "leg_seconds": 1500.0,
            "device": "",
            "reuse_key": "",  # schema 5 (issue 43): never reusable, never reused
            "reused_from": "",
            "capability_skipped": 0,  # schema 6 (issue 42): no capability-gated skips
        }
        for k, v in values.items():
            out[k].append(v)
    return out


def started(d, n_dispatch: int, days: int):
    """Dispatch `d`'s start: the dispatches spread evenly over the last `days` days."""
    return NOW - days * 86400 + d * (days * 86400 // max(1, n_dispatch))


def ingest_id(d, f):
    return (d * 10 + f) + (1 << 40)


def chunks(n_dispatch: int, chunk_legs: int, days: int):
    """(legs, results) of `chunk_legs` legs at a time, as columns (the same for both engines)."""
    legs = [(d, f) for d in range(n_dispatch) for f in range(len(FEATURES))]
    test_idx = np.arange(TESTS_PER_LEG)
    for start in range(0, len(legs), chunk_legs):
        part = legs[start : start + chunk_legs]
        rng = np.random.default_rng(start)
        d = np.repeat([x[0] for x in part], TESTS_PER_LEG)
        f = np.repeat([x[1] for x in part], TESTS_PER_LEG)
        t = np.tile(test_idx, len(part))
        outcome = np.where(rng.random(len(t)) < 0.05, 2, 0)
        outcome = np.where((t < 50) & (rng.random(len(t)) < 0.3), 1, outcome)  # flaky
        outcome = np.where((t >= 50) & (t < 60) & (d >= n_dispatch // 2), 1, outcome)  # a regression
        outcome = np.where((t >= 60) & (t < 70), np.where(d >= n_dispatch - 5, 4, 3), outcome)  # promotable
        # the leg rows' tallies: passed (passed, xpassed_strict), failed, skipped (skipped, xfailed)
        leg_of = np.repeat(np.arange(len(part)), TESTS_PER_LEG)
        kinds = np.array([0, 1, 2, 2, 0])[outcome]
        counts = np.stack(
            [np.bincount(leg_of[kinds == k], minlength=len(part)) for k in range(3)]
            + [np.full(len(part), TESTS_PER_LEG)],  # every bench test has an op
            axis=1,
        )
        feature = np.array(FEATURES, dtype=object)[f]
        name = np.char.add("test_", t.astype(str)).astype(object)
        yield (
            leg_columns(part, n_dispatch, counts, days),
            {
                "ingest_id": ingest_id(d, f).astype(np.int64),
                "started_at": started(d, n_dispatch, days).astype(np.int64),
                "upstream_sha": np.char.zfill(np.char.mod("%x", d), 40).astype(object),
                "backend_sha": np.full(len(t), "b" * 40, dtype=object),
                "job_name": np.char.add("test-", feature.astype(str)).astype(object),
                "feature": feature,
                "simulated": np.zeros(len(t), dtype=np.int64),
                "test_id": np.char.add(
                    np.char.add("suite.", feature.astype(str)), np.char.add(".TestX::", name.astype(str))
                ).astype(object),
                "file": np.char.add("suite/", feature.astype(str)).astype(object),
                "class": np.full(len(t), "TestX", dtype=object),
                "name": name,
                "op": OPS[t % len(OPS)],
                "dtype": DTYPES[(t // len(OPS)) % len(DTYPES)],
                "module": np.full(len(t), "", dtype=object),
                "outcome": OUTCOMES[outcome],
                "duration": rng.random(len(t)),
                "message": np.where(outcome == 1, "AssertionError: mismatch", "").astype(object),
                "rule": np.where((t >= 60) & (t < 70), "configs/x.yaml:5", "").astype(object),
                "device": np.full(len(t), "", dtype=object),
                "capability": np.full(len(t), "", dtype=object),
            },
        )


# ------------------------------------------------------------------ chdb (the warehouse's code)

PAGE = ("dispatches", "pass_rate", "heatmap", "flaky", "promotions", "failing", "l3")
# An engine's cost of any question at all: `SELECT 1` through the same connection, median of
# this many. A question SQLite answers in under 10x chdb's floor cannot reach the 0.1 goal.
FLOOR_REPEAT = 51
# The least any page question reads in this schema: the committed ingests (schema.live), which
# every question filters on (atomic, idempotent legs). Timed like a question; not on the page.
COMMITTED = "committed"


def run_chdb(args) -> tuple[dict, dict]:
    """Ingest; (the ready line, the command handlers)."""
    from crcr.relay.panels import PageContext, warehouse_page
    from crcr.warehouse import queries
    from crcr.warehouse.backends import open_warehouse
    from crcr.warehouse.schema import live

    wh = open_warehouse(str(Path(args.dir) / "chdb"), {})
    n_dispatch, _ = plan(args.rows)
    session = Held(wh)
    session(True)
    ingest_s, rows = 0.0, 0
    kept = Path(args.dir) / KEPT
    # generated outside the clock; a kept warehouse of the same plan is not ingested again
    made = kept.exists() and kept.read_text() == plan_line(args)
    if not made and wh.query(f"SELECT count() FROM {wh.db}.results")[0][0]:
        raise ValueError(f"{args.dir} holds a warehouse of another plan (or a cut-short ingest): remove it")
    for legs, results in () if made else chunks(n_dispatch, args.chunk // TESTS_PER_LEG, args.days):
        begun = time.perf_counter()
        wh.insert_columns("results", results)
        wh.insert_columns("legs", legs)  # the commit point, as ingest.py writes a leg
        ingest_s += time.perf_counter() - begun
        rows += len(results["test_id"])
    begun = time.perf_counter()
    wh.settle()  # as ingest.py ends each leg: the merges the inserts started
    ingest_s += time.perf_counter() - begun
    if made:
        rows = wh.query(f"SELECT count() FROM {wh.db}.results")[0][0]
    else:
        write_text(kept, plan_line(args))
    parts = wh.parts()
    page = {
        "dispatches": lambda: [
            (d.delivery_id, d.legs, d.legs_green, d.passed, d.failed) for d in queries.dispatches(wh, 30)
        ],
        "pass_rate": lambda: sorted(
            (p.series, p.x, p.passed, p.failed) for p in queries.pass_rate_over_commits(wh, 40)
        ),
        "heatmap": lambda: [(c.op, c.dtype, c.passed, c.failed) for c in queries.heatmap_latest(wh)[1]],
        "flaky": lambda: sorted(
            (f.test_id, f.reason, f.runs) for f in queries.flaky(wh, NOW, 14, limit=10**6)
        ),
        "promotions": lambda: [p.test_id for p in queries.promotion_candidates(wh, 3, limit=10**6)],
        "failing": lambda: [
            (f.test_id, f.outcome, f.first_seen, f.first_failed, f.last_passed, f.last_passed_sha)
            for f in queries.failing_tests(wh, 10**6)
        ],
        "l3": lambda: l3_answer(queries.l3_metrics(wh, NOW, 14)[REPO]),
        COMMITTED: lambda: wh.query(f"SELECT count() FROM {wh.db}.legs WHERE {live(wh.db)}")[0][0],
    }

    def in_session(fn):  # the questions in the one session they were always timed in
        session(True)
        return warm(fn)

    def whole(_):  # the page as the warehouse tool writes it: first screen and every panel, its own session
        session(False)
        return once(lambda: len(warehouse_page(wh, PageContext(NOW))))

    return {"rows": rows, "ingest_s": ingest_s, "parts": parts, "kept": made}, {
        "time": lambda q: in_session(page[q]),
        "floor": lambda _: in_session(lambda: wh.query("SELECT 1")),
        "page": whole,
    }


KEPT = "bench-plan"  # --keep: the rows and days a kept warehouse was generated with


def plan_line(args) -> str:
    return f"rows {args.rows} days {args.days} chunk {args.chunk}\n"


def kept_problem(keep: Path, args) -> str | None:
    """Why DIR cannot be kept for this run: it holds something other than a warehouse of the
    same plan (checked before any child starts, so the error is one line)."""
    if not keep.exists() or not any(keep.iterdir()):
        return None
    mark = keep / KEPT
    if not mark.exists():
        return (
            "holds something other than a kept warehouse (or a cut-short ingest): remove it or name another"
        )
    if mark.read_text() != plan_line(args):
        return f"holds a warehouse of another plan ({mark.read_text().strip()}): remove it or name another"
    return None


class Held:
    """`wh.exclusive()` held across commands: on for the questions, off for the page."""

    def __init__(self, wh):
        self.wh, self.stack = wh, None

    def __call__(self, on: bool) -> None:
        if on and self.stack is None:
            self.stack = contextlib.ExitStack()
            self.stack.enter_context(self.wh.exclusive())
        elif not on and self.stack is not None:
            self.stack.close()
            self.stack = None


def l3_answer(m) -> tuple:
    return (m.jobs, m.successes, round(m.pass_rate, 6), m.median_e2e_s)


def once(fn) -> dict:
    """One timing: wall seconds, CPU seconds of this process (every thread: chdb works in its
    own threads; on a shared machine CPU time is the work, wall time the work plus the wait
    for a core), and the answer."""
    t, c = time.perf_counter(), time.process_time()
    answer = fn()
    return {"wall": time.perf_counter() - t, "cpu": time.process_time() - c, "answer": answer}


def warm(fn) -> dict:
    """One timing of `fn` right after an untimed run of it: the figure is of a warm question,
    as the back-to-back repeats always measured, not of the caches the other engine's turn
    (or the wait on the pipe) left cold."""
    fn()
    return once(fn)


# ------------------------------------------------------------------ SQLite (the same questions)

LIVE = "ingest_id IN (SELECT min(ingest_id) FROM legs GROUP BY leg_key)"
# what a sensible SQLite user indexes for these questions: tests by id and time, rare
# outcomes, the rows of a leg, legs by key
SQLITE_INDEXES = (
    "CREATE INDEX r_test ON results (test_id, started_at)",
    "CREATE INDEX r_outcome ON results (outcome, started_at, test_id)",
    "CREATE INDEX r_ingest ON results (ingest_id)",
    "CREATE INDEX l_key ON legs (leg_key)",
    "CREATE INDEX c_ingest ON op_cells (ingest_id)",
)


OP_CELLS_INSERT = (  # schema.DERIVED's op_cells in SQLite: filled per insert, as the view does
    "INSERT INTO op_cells SELECT ingest_id, op, dtype, sum(outcome IN ({good})), sum(outcome IN ({fail}))"
    " FROM results WHERE ingest_id IN ({ids}) AND op != '' GROUP BY ingest_id, op, dtype"
)
SQLITE_CACHE = -1_048_576  # KiB: a 1 GiB page cache, as one would give a 10 M-row bulk load


def sqlite_schema(db: sqlite3.Connection) -> None:
    from crcr.warehouse.schema import TABLES

    for table, (columns, _) in TABLES.items():
        kinds = {
            c: ("TEXT" if "String" in k or "Enum" in k else "REAL" if "Float" in k else "INTEGER")
            for c, k in columns
        }
        db.execute(f"CREATE TABLE {table} (" + ", ".join(f'"{c}" {t}' for c, t in kinds.items()) + ")")
    db.execute(
        "CREATE TABLE op_cells (ingest_id INTEGER, op TEXT, dtype TEXT, passed INTEGER, failed INTEGER)"
    )
    for ddl in SQLITE_INDEXES:
        db.execute(ddl)


def run_sqlite(args) -> tuple[dict, dict]:
    """Ingest; (the ready line, the command handlers)."""
    from crcr.warehouse import queries

    db = sqlite3.connect(Path(args.dir) / "bench.sqlite")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(f"PRAGMA cache_size={SQLITE_CACHE}")
    sqlite_schema(db)
    n_dispatch, _ = plan(args.rows)
    good, bad, fail = (
        ",".join(f"'{o}'" for o in v) for v in (queries.PASSING, queries.BAD_VALUES, queries.FAILING)
    )
    ingest_s, rows = 0.0, 0
    # generated outside the clock
    for legs, results in chunks(n_dispatch, args.chunk // TESTS_PER_LEG, args.days):
        begun = time.perf_counter()
        for table, data in (("results", results), ("legs", legs)):
            cols = [c.tolist() if hasattr(c, "tolist") else c for c in data.values()]
            db.executemany(f"INSERT INTO {table} VALUES ({','.join('?' * len(cols))})", zip(*cols))
            if table == "results":
                ids = ",".join(str(i) for i in set(legs["ingest_id"]))
                db.execute(OP_CELLS_INSERT.format(good=good, fail=fail, ids=ids))
        db.commit()
        ingest_s += time.perf_counter() - begun
        rows += len(results["test_id"])
    db.execute("ANALYZE")
    promotable = "'xpassed','xpassed_strict'"

    def q(sql, *params):
        return db.execute(sql, params).fetchall()

    def dispatches():
        return [
            tuple(r)
            for r in q(
                f"SELECT delivery_id, count(*), sum(conclusion IN ('success','neutral')), sum(passed), sum(failed) FROM legs WHERE {LIVE} GROUP BY repo, delivery_id, run_id ORDER BY min(started_at) DESC LIMIT 30"
            )
        ]

    def pass_rate():
        recent = f"SELECT upstream_sha FROM legs WHERE {LIVE} AND passed + failed > 0 GROUP BY upstream_sha ORDER BY max(started_at) DESC LIMIT 40"
        return sorted(
            (f, x[:10], p, n)
            for f, x, p, n in q(
                f"SELECT feature, upstream_sha, sum(passed), sum(failed) FROM legs WHERE {LIVE} AND passed + failed > 0 AND upstream_sha IN ({recent}) GROUP BY feature, upstream_sha, simulated"
            )
        )

    def heatmap():
        # the bench's dtypes are single names: no comma list to split (the warehouse splits them)
        ((repo, delivery, run),) = q(
            f"SELECT repo, delivery_id, run_id FROM legs WHERE {LIVE} AND op_tests > 0 GROUP BY repo, delivery_id, run_id ORDER BY max(started_at) DESC LIMIT 1"
        )
        return [
            tuple(r)
            for r in q(
                "SELECT op, dtype, sum(passed), sum(failed) FROM op_cells WHERE ingest_id IN (SELECT min(ingest_id) FROM legs WHERE repo=? AND delivery_id=? AND run_id=? GROUP BY leg_key) GROUP BY op, dtype ORDER BY op, dtype",
                repo,
                delivery,
                run,
            )
        ]

    def of_tests(where, rare):  # queries._of_tests: a rare outcome first, then the tests' committed rows
        return (
            # no GROUP BY inside IN (the set dedups): with one, SQLite walks r_test, not r_outcome
            f"test_id IN (SELECT test_id FROM results WHERE {rare}) AND {LIVE} AND {where}"
        )

    def flaky():
        # queries.flaky's decision in SQLite's SQL: neighbours by lag(), pairs seen good and bad
        since = f"started_at > {NOW - 14 * 86400}"
        window = of_tests(f"{since} AND outcome IN ({bad},{good})", f"{since} AND outcome IN ({bad})")
        return [
            tuple(r)
            for r in q(
                f"""WITH w AS (SELECT test_id, started_at, ingest_id, upstream_sha, backend_sha, outcome,
                    outcome IN ({bad}) AS b FROM results WHERE {window}),
                seq AS (SELECT test_id, b, lag(b) OVER (PARTITION BY test_id
                    ORDER BY started_at, ingest_id) AS prev FROM w),
                per AS (SELECT test_id, count(*) AS runs, sum(b != prev) AS flips FROM seq GROUP BY test_id),
                same AS (SELECT test_id FROM w GROUP BY test_id, upstream_sha, backend_sha HAVING min(b) != max(b))
                SELECT test_id, CASE WHEN test_id IN same THEN 'same SHAs' ELSE 'flip rate' END, runs FROM per
                WHERE test_id IN same OR (flips >= 2 AND flips * 1.0 / (runs - 1) >= 0.2) ORDER BY test_id"""
            )
        ]

    def promotions():
        # queries.promotion_candidates' decision: the last 3 runs (in time, then ingest order)
        return [
            r[0]
            for r in q(
                f"""WITH r AS (SELECT test_id, outcome, row_number() OVER (PARTITION BY test_id
                    ORDER BY started_at DESC, ingest_id DESC) AS n
                    FROM results WHERE {of_tests("1", f"outcome IN ({promotable})")})
                SELECT test_id FROM r WHERE n <= 3 GROUP BY test_id
                HAVING count(*) = 3 AND sum(outcome IN ({promotable})) = 3 ORDER BY test_id"""
            )
        ]

    def failing():
        tests = of_tests("1", f"outcome IN ({bad})")

        def newest(where=""):  # SQLite's bare columns beside a lone max(): the newest row's
            return {
                t: v
                for t, v, _ in q(
                    f"SELECT test_id, {where or 'outcome'}, max(started_at) FROM results WHERE {tests}{' AND outcome IN (' + good + ')' if where else ''} GROUP BY test_id"
                )
            }

        latest, passed_at = newest(), newest("upstream_sha")
        rows_ = q(
            f"SELECT test_id, min(started_at), min(CASE WHEN outcome IN ({bad}) THEN started_at END), max(CASE WHEN outcome IN ({good}) THEN started_at END) FROM results WHERE {tests} GROUP BY test_id ORDER BY test_id"
        )
        return [
            (t, latest[t], first, ff, lp, passed_at.get(t, ""))
            for t, first, ff, lp in rows_
            if latest[t] in queries.BAD_VALUES
        ]

    def l3():
        dedup = f"SELECT * FROM (SELECT repo, run_id, job_name, conclusion c, started_at s, finished_at f, queued_at q, row_number() OVER (PARTITION BY repo, run_id, job_name ORDER BY run_attempt DESC) rn FROM legs WHERE {LIVE} AND started_at > {NOW - 14 * 86400} AND pr_number > 0 AND simulated = 0) WHERE rn = 1"
        total, ok = q(f"SELECT count(*), sum(c = 'success') FROM ({dedup})")[0]
        e2e = sorted(
            r[0] for r in q(f"SELECT min(s) - min(q) + max(f) - min(s) FROM ({dedup}) GROUP BY repo, run_id")
        )
        return (total, ok, round(ok / total, 6), float(e2e[len(e2e) // 2]))

    page = {
        "dispatches": dispatches,
        "pass_rate": pass_rate,
        "heatmap": heatmap,
        "flaky": flaky,
        "promotions": promotions,
        "failing": failing,
        "l3": l3,
        COMMITTED: lambda: q(f"SELECT count(*) FROM legs WHERE {LIVE}")[0][0],
    }
    return {"rows": rows, "ingest_s": ingest_s}, {
        "time": lambda name: warm(page[name]),
        "floor": lambda _: warm(lambda: q("SELECT 1")),
    }


# ------------------------------------------------------------------ the side-by-side run


# Deadlines that only catch a stuck child, never a working one at load 15: 10 minutes of
# start-up plus the rows at 5,000 rows/s (SQLite's slowest ingest seen: 18,000), and
# 10 minutes for one question (SQLite's slowest seen: 3.7 s).
INGEST_TIMEOUT_S, INGEST_ROWS_PER_S = 600, 5000
ASK_TIMEOUT = 600


def spawn(engine: str, args) -> Child:
    """One engine in its own process, so each peak RSS is its own."""
    argv = [
        sys.executable,
        __file__,
        "--engine",
        engine,
        "--rows",
        str(args.rows),
        "--chunk",
        str(args.chunk),
        "--days",
        str(args.days),
    ]
    argv += ["--dir", args.dir]
    return Child(engine, argv, dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))


def ingested(child: Child, rows: int) -> dict:
    """The child's ready line: the rows it ingested and the seconds that took."""
    return child.answer("ingest", INGEST_TIMEOUT_S + rows / INGEST_ROWS_PER_S, ("rows", "ingest_s"))


def medians(ready: dict, runs: dict[str, list[dict]]) -> dict:
    """One engine's figures for report(): medians over the rounds, the last round's answer."""

    def median(q, key):
        return statistics.median(t[key] for t in runs[q])

    return {
        **ready,
        "queries": {q: (median(q, "wall"), runs[q][-1]["answer"], median(q, "cpu")) for q in PAGE},
        "floor_s": median("floor", "wall"),
        "committed_s": median(COMMITTED, "wall"),
    }


def side_by_side(args) -> tuple[dict, dict, dict, list]:
    """(chdb's figures, SQLite's, the rounds' ratio spreads, the load average before and after
    the rounds). Ingest runs one engine after the other (each its own rate); both children
    then stay alive for the rounds. A child that fails raises ChildError; both are killed."""
    with spawn("chdb", args) as ch:
        ch_ready = ingested(ch, args.rows)
        with spawn("sqlite", args) as sq:
            sq_ready = ingested(sq, args.rows)
            load = [os.getloadavg()]
            runs = rounds((ch, sq), (*PAGE, COMMITTED), args.repeat, FLOOR_REPEAT, ASK_TIMEOUT)
            load.append(os.getloadavg())
            sq_rss = sq.finish()
        # the whole page is chdb's alone (no ratio); timed after the rounds, since it opens
        # its own session and the questions are timed in one session that stays open
        whole = [ch.ask("page", ASK_TIMEOUT, TIMING) for _ in range(args.repeat)]
        ch_rss = ch.finish()
    chdb = medians(ch_ready, runs["chdb"]) | {
        "page_s": statistics.median(t["wall"] for t in whole),
        "page_cpu_s": statistics.median(t["cpu"] for t in whole),
        "rss": ch_rss,
    }
    return (
        chdb,
        medians(sq_ready, runs["sqlite"]) | {"rss": sq_rss},
        spreads(runs["chdb"], runs["sqlite"]),
        load,
    )


def same(a, b) -> str:
    """Answers compared whole (after JSON both are lists); a ratio over different answers means nothing."""
    if a == b:
        return f"yes ({len(a)} rows)" if isinstance(a, list) else "yes"
    return f"NO: chdb {str(a)[:120]} vs SQLite {str(b)[:120]}"


@command("warehouse_bench", {ChildError: 1}, prefix="warehouse_bench: ")
def main(argv=None) -> int:
    p = Parser(prog="warehouse_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--chunk", type=int, default=1_000_000, help="rows per insert")
    p.add_argument("--repeat", type=int, default=3, help="interleaved timing rounds")
    p.add_argument("--days", type=int, default=13, help="the days the generated dispatches spread over")
    p.add_argument(
        "--page-only",
        action="store_true",
        help="chdb alone: ingest, then time the whole HUD page --repeat times (no SQLite, no rounds)",
    )
    p.add_argument(
        "--keep",
        metavar="DIR",
        help="--page-only: keep the generated warehouse in DIR and reuse it when DIR holds one of the same "
        "--rows, --days and --chunk (100 M rows take over half an hour to generate)",
    )
    p.add_argument("--engine", choices=("chdb", "sqlite"), help=argparse.SUPPRESS)
    p.add_argument("--dir", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if (
        args.rows < TESTS_PER_LEG * len(FEATURES)
        or args.chunk < TESTS_PER_LEG
        or args.repeat < 1
        or args.days < 1
    ):
        p.error(
            f"--rows >= {TESTS_PER_LEG * len(FEATURES)}, --chunk >= {TESTS_PER_LEG}, --repeat >= 1, --days >= 1"
        )
    if args.keep and (problem := kept_problem(Path(args.keep), args)):
        p.error(f"--keep {args.keep}: {problem}")
    if args.engine:
        out = channel()
        serve(out, *(run_chdb if args.engine == "chdb" else run_sqlite)(args))
        return 0
    load = os.getloadavg()
    if args.page_only:
        return page_only(args, load)
    with tempfile.TemporaryDirectory(prefix="warehouse-bench-") as tmp:
        args.dir = tmp
        print(f"{args.rows:,} test rows requested; each engine in its own process ...", flush=True)
        ch, sq, spread, rounds_load = side_by_side(args)
    print(
        f"SQLite: WAL, synchronous=NORMAL, cache_size={SQLITE_CACHE}, ANALYZE, indexes: "
        + "; ".join(SQLITE_INDEXES)
    )
    report(ch, sq, spread)
    print(
        f"{args.repeat} rounds, load average (1, 5, 15 min) at the first: "
        "{:.2f} {:.2f} {:.2f}, after the last: {:.2f} {:.2f} {:.2f}".format(*rounds_load[0], *rounds_load[1])
    )
    print(
        f"whole HUD page (every panel rendered, chdb): {ch['page_s']:.3f} s, CPU {ch['page_cpu_s']:.3f} s (goal: <= 1 s)"
    )
    print(f"peak RSS: chdb {ch['rss']:,.0f} MB, SQLite {sq['rss']:,.0f} MB")
    print("chdb parts after its ingest settled: " + ", ".join(f"{t} {n}" for t, n in ch["parts"].items()))
    print(
        "load average (1, 5, 15 min) at the start: {:.2f} {:.2f} {:.2f}, at the end: {:.2f} {:.2f} {:.2f}".format(
            *load, *os.getloadavg()
        )
    )
    return 0


def page_only(args, load: tuple) -> int:
    """--page-only: the HUD page's render time on chdb alone (a year's rows: --days 365),
    where SQLite's ingest would take hours."""
    with contextlib.ExitStack() as stack:
        args.dir = args.keep or stack.enter_context(tempfile.TemporaryDirectory(prefix="warehouse-bench-"))
        print(f"{args.rows:,} test rows over {args.days} days, chdb alone ...", flush=True)
        with spawn("chdb", args) as ch:
            ready = ingested(ch, args.rows)
            whole = [ch.ask("page", ASK_TIMEOUT, TIMING) for _ in range(args.repeat)]
            rss = ch.finish()
    n_dispatch, legs = plan(args.rows)
    done = (
        "kept from an earlier run (--keep): not ingested again"
        if ready["kept"]
        else f"in {ready['ingest_s']:.1f} s ({ready['rows'] / ready['ingest_s']:,.0f} rows/s)"
    )
    print(f"ingest: {ready['rows']:,} result rows, {legs:,} legs, {n_dispatch:,} dispatches {done}")
    walls = ", ".join(f"{t['wall']:.3f}" for t in whole)
    print(
        f"whole HUD page (first screen and every panel, chdb): median {statistics.median(t['wall'] for t in whole):.3f} s, "
        f"CPU {statistics.median(t['cpu'] for t in whole):.3f} s over {args.repeat} renders ({walls}) (goal: <= 1 s)"
    )
    print(f"peak RSS: chdb {rss:,.0f} MB")
    print(
        "load average (1, 5, 15 min) at the start: {:.2f} {:.2f} {:.2f}, at the end: {:.2f} {:.2f} {:.2f}".format(
            *load, *os.getloadavg()
        )
    )
    return 0


def report(ch: dict, sq: dict, spread: dict[str, tuple[float, float]]) -> None:
    """The side-by-side table: wall-clock and CPU medians over the rounds (chdb / SQLite), and
    the lowest-highest of the rounds' own ratios (how steady the ratio was). `best` = chdb's
    floor / SQLite's time: the ratio chdb would reach answering in its floor time; above 0.1
    the goal is out of reach for that question. `best live`: the same with chdb's time to read
    the committed ingests, which every question of this schema reads."""
    c_floor, s_floor = ch["floor_s"], sq["floor_s"]
    print(
        f"\n{'':<14}{'chdb':>12}{'SQLite':>12}{'ratio':>9}{'rounds':>16}{'cpu ratio':>11}{'best':>8}{'best live':>11}"
        "  same answer (goal: ratio <= 0.1)"
    )
    c_rate, s_rate = ch["rows"] / ch["ingest_s"], sq["rows"] / sq["ingest_s"]
    print(
        f"{'ingest rows/s':<14}{c_rate:>12,.0f}{s_rate:>12,.0f}{s_rate / c_rate:>9.3f}{'':>35}"
        f"  ({ch['rows']:,} rows; ratio = SQLite rate / chdb rate)"
    )
    c_live, s_live = ch["committed_s"], sq["committed_s"]
    for label, c, s, key, note in (
        (
            "floor SELECT 1",
            c_floor,
            s_floor,
            "floor",
            f"median of {FLOOR_REPEAT}; best = chdb floor / SQLite time",
        ),
        (
            "floor live",
            c_live,
            s_live,
            COMMITTED,
            "the committed ingests alone; best live = this / SQLite time",
        ),
    ):
        lo, hi = spread[key]
        print(
            f"{label:<14}{c * 1000:>10.3f}ms{s * 1000:>10.3f}ms{c / s:>9.1f}{f'{lo:.1f}-{hi:.1f}':>16}{'':>30}  ({note})"
        )
    totals = [0.0, 0.0, 0.0, 0.0]  # chdb wall, SQLite wall, chdb CPU, SQLite CPU
    for name, (c_s, c_answer, c_cpu) in ch["queries"].items():
        s_s, s_answer, s_cpu = sq["queries"][name]
        totals = [a + b for a, b in zip(totals, (c_s, s_s, c_cpu, s_cpu))]
        best, best_live = c_floor / s_s, c_live / s_s
        lo, hi = spread[name]
        print(
            f"{name:<14}{c_s * 1000:>10.1f}ms{s_s * 1000:>10.1f}ms{c_s / s_s:>9.3f}{f'{lo:.3f}-{hi:.3f}':>16}"
            f"{c_cpu / max(s_cpu, 1e-9):>11.3f}{best:>8.3f}{'*' if best > 0.1 else ' '}"
            f"{best_live:>10.3f}{'*' if best_live > 0.1 else ' '} {same(c_answer, s_answer)}"
        )
    c_all, s_all, c_cpu_all, s_cpu_all = totals
    print(
        f"{'all queries':<14}{c_all * 1000:>10.1f}ms{s_all * 1000:>10.1f}ms{c_all / s_all:>9.3f}{'':>16}"
        f"{c_cpu_all / s_cpu_all:>11.3f}"
    )
    print(
        "rounds: the lowest-highest of the rounds' own ratios (each round times every question once on"
        " each engine, back to back, the first alternating)"
    )
    print(
        "* > 0.1: SQLite answers in under 10 x chdb's floor (best: any query; best live: the committed"
        " ingests every question reads); no chdb plan in this schema reaches the 0.1 goal there"
    )


if __name__ == "__main__":
    sys.exit(main())
