"""Results warehouse: embedded ClickHouse (chdb) beside SQLite on the same rows and queries.

    tools/bazel run //tools/bench:warehouse_bench [-- --rows 10000000 --repeat 3]

Each engine runs in its own child process (so each peak RSS is its own): it ingests the same
generated test results (legs of 5000 tests; flaky, regressing and promotable tests seeded),
then times the HUD page's queries, median of --repeat. chdb runs the warehouse's own code
(crcr/warehouse/queries.py); SQLite the same questions in its dialect, with indexes on what
they filter and group by. The ratios are chdb / SQLite (goal: every page query <= 0.1); chdb
also renders every panel of the page (goal: <= 1 s). The answers are compared: a ratio over
different answers would mean nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

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


def leg_columns(n_dispatch: int) -> dict:
    """Every leg, in the warehouse's `legs` columns."""
    out: dict[str, list] = {
        k: []
        for k in (
            "ingest_id",
            "leg_key",
            "repo",
            "delivery_id",
            "event_type",
            "pr_number",
            "job_name",
            "feature",
            "run_id",
            "run_attempt",
            "upstream_sha",
            "backend_sha",
            "core_version",
            "core_overlay",
            "runner",
            "level",
            "queued_at",
            "started_at",
            "finished_at",
            "conclusion",
            "results",
            "results_note",
            "passed",
            "failed",
            "skipped",
            "triage_verdict",
            "bisection",
            "simulated",
            "inserted_at",
        )
    }
    for d in range(n_dispatch):
        start = NOW - 13 * 86400 + d * (13 * 86400 // max(1, n_dispatch))
        for f, feature in enumerate(FEATURES):
            values = {
                "ingest_id": f"{d * 10 + f:020d}",
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
                "conclusion": "failure" if d % 5 == 0 else "success",
                "results": "complete",
                "results_note": "",
                "passed": 4500,
                "failed": 10,
                "skipped": 490,
                "triage_verdict": None,
                "bisection": None,
                "simulated": 0,
                "inserted_at": NOW,
            }
            for k, v in values.items():
                out[k].append(v)
    return out


def result_chunks(n_dispatch: int, chunk_legs: int):
    """The results of `chunk_legs` legs at a time, as numpy columns (the same for both engines)."""
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
        feature = np.array(FEATURES, dtype=object)[f]
        name = np.char.add("test_", t.astype(str)).astype(object)
        started = NOW - 13 * 86400 + d * (13 * 86400 // max(1, n_dispatch))
        yield {
            "ingest_id": np.char.zfill((d * 10 + f).astype(str), 20).astype(object),
            "started_at": started.astype(np.int64),
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
        }


# ------------------------------------------------------------------ chdb (the warehouse's code)


def run_chdb(args) -> dict:
    from crcr.relay.panels import PageContext, render_panels
    from crcr.warehouse import queries
    from crcr.warehouse.backends import open_warehouse

    wh = open_warehouse(str(Path(args.dir) / "chdb"), {})
    n_dispatch, _ = plan(args.rows)
    with wh.exclusive():
        wh.insert_columns("legs", leg_columns(n_dispatch))
        ingest_s, rows = 0.0, 0
        for chunk in result_chunks(n_dispatch, args.chunk // TESTS_PER_LEG):  # generated outside the clock
            begun = time.perf_counter()
            wh.insert_columns("results", chunk)
            ingest_s += time.perf_counter() - begun
            rows += len(chunk["test_id"])
        page = {
            "dispatches": lambda: len(queries.dispatches(wh, 20)),
            "pass_rate": lambda: len(queries.pass_rate_over_commits(wh, 40)),
            "heatmap": lambda: len(queries.heatmap_latest(wh)[1]),
            "flaky": lambda: len(queries.flaky(wh, NOW, 14, limit=10**6)),
            "promotions": lambda: len(queries.promotion_candidates(wh, 3, limit=10**6)),
            "failing": lambda: len(queries.failing_tests(wh, 10**6)),
            "l3": lambda: round(queries.l3_metrics(wh, NOW, 14)[REPO].pass_rate, 6),
        }
        timed = {k: timeit(f, args.repeat) for k, f in page.items()}
        whole = timeit(lambda: len(render_panels(wh, PageContext(NOW))), args.repeat)
    return {"rows": rows, "ingest_s": ingest_s, "queries": timed, "page_s": whole[0]}


def timeit(fn, repeat: int) -> tuple[float, object]:
    times, answer = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        answer = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), answer


# ------------------------------------------------------------------ SQLite (the same questions)

LIVE = "ingest_id IN (SELECT min(ingest_id) FROM legs GROUP BY leg_key)"


def sqlite_schema(db: sqlite3.Connection) -> None:
    from crcr.warehouse.schema import TABLES

    for table, (columns, _) in TABLES.items():
        kinds = {c: ("TEXT" if "String" in k else "REAL" if "Float" in k else "INTEGER") for c, k in columns}
        db.execute(f"CREATE TABLE {table} (" + ", ".join(f'"{c}" {t}' for c, t in kinds.items()) + ")")
    for ddl in (
        "CREATE INDEX r_test ON results (test_id, started_at)",
        "CREATE INDEX r_ingest ON results (ingest_id)",
        "CREATE INDEX r_sha ON results (upstream_sha)",
        "CREATE INDEX l_key ON legs (leg_key)",
    ):
        db.execute(ddl)


def run_sqlite(args) -> dict:
    from crcr.warehouse import queries

    db = sqlite3.connect(Path(args.dir) / "bench.sqlite")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    sqlite_schema(db)
    n_dispatch, _ = plan(args.rows)
    legs = leg_columns(n_dispatch)
    db.executemany(f"INSERT INTO legs VALUES ({','.join('?' * len(legs))})", zip(*legs.values()))
    ingest_s, rows = 0.0, 0
    for chunk in result_chunks(n_dispatch, args.chunk // TESTS_PER_LEG):  # generated outside the clock
        begun = time.perf_counter()
        cols = [c.tolist() for c in chunk.values()]
        db.executemany(f"INSERT INTO results VALUES ({','.join('?' * len(cols))})", zip(*cols))
        db.commit()
        ingest_s += time.perf_counter() - begun
        rows += len(cols[0])
    db.execute("ANALYZE")
    good, bad, fail = (
        ",".join(f"'{o}'" for o in v) for v in (queries.PASSING, queries.BAD_VALUES, queries.FAILING)
    )
    promotable = "'xpassed','xpassed_strict'"

    def q(sql, *params):
        return db.execute(sql, params).fetchall()

    def pass_rate():
        shas = [
            r[0]
            for r in q(
                f"SELECT upstream_sha FROM results WHERE {LIVE} GROUP BY upstream_sha ORDER BY max(started_at) DESC LIMIT 40"
            )
        ]
        marks = ",".join("?" * len(shas))
        return len(
            q(
                f"SELECT feature, upstream_sha, min(started_at), sum(outcome IN ({good})), sum(outcome IN ({fail})), max(simulated) FROM results WHERE {LIVE} AND upstream_sha IN ({marks}) GROUP BY feature, upstream_sha, simulated",
                *shas,
            )
        )

    def heatmap():
        ((repo, delivery, run),) = q(
            f"SELECT repo, delivery_id, run_id FROM legs WHERE {LIVE} AND ingest_id IN (SELECT DISTINCT ingest_id FROM results WHERE op != '') GROUP BY repo, delivery_id, run_id ORDER BY max(started_at) DESC LIMIT 1"
        )
        return len(
            q(
                f"SELECT op, dtype, sum(outcome IN ({good})), sum(outcome IN ({fail})) FROM results WHERE op != '' AND ingest_id IN (SELECT min(ingest_id) FROM legs WHERE repo=? AND delivery_id=? AND run_id=? GROUP BY leg_key) GROUP BY op, dtype",
                repo,
                delivery,
                run,
            )
        )

    def split(packed, n):
        parts = [p.split("|") for p in packed.split(";")]
        return [[int(p[0]) if i == 0 else p[i] for p in parts] for i in range(n)]

    def flaky():
        rows_ = q(
            f"SELECT test_id, group_concat(started_at||'|'||upstream_sha||'|'||backend_sha||'|'||job_name||'|'||outcome, ';'), max(simulated) FROM results WHERE {LIVE} AND started_at > ? AND outcome IN ({bad},{good}) GROUP BY test_id HAVING sum(outcome IN ({bad})) > 0 AND sum(outcome IN ({good})) > 0",
            NOW - 14 * 86400,
        )
        return len(queries.flakes_from([(t, *split(p, 5), s) for t, p, s in rows_]))

    def promotions():
        rows_ = q(
            f"SELECT test_id, rule, max(started_at), group_concat(started_at||'|'||upstream_sha||'|'||outcome, ';'), max(simulated) FROM results WHERE {LIVE} AND test_id IN (SELECT DISTINCT test_id FROM results WHERE {LIVE} AND outcome IN ({promotable})) GROUP BY test_id"
        )
        return len(queries.promotions_from([(t, r, *split(p, 3), s) for t, r, _, p, s in rows_], 3))

    def failing():
        latest = f"SELECT test_id, outcome, started_at, row_number() OVER (PARTITION BY test_id ORDER BY started_at DESC) rn FROM results WHERE {LIVE}"
        return len(
            q(
                f"SELECT test_id, max(CASE WHEN rn = 1 THEN outcome END) AS latest, min(started_at), min(CASE WHEN outcome IN ({bad}) THEN started_at END), max(CASE WHEN outcome IN ({good}) THEN started_at END) FROM ({latest}) GROUP BY test_id HAVING latest IN ({bad})"
            )
        )

    def l3():
        dedup = f"SELECT * FROM (SELECT repo, run_id, job_name, conclusion c, started_at s, finished_at f, queued_at q, row_number() OVER (PARTITION BY repo, run_id, job_name ORDER BY run_attempt DESC) rn FROM legs WHERE {LIVE} AND started_at > {NOW - 14 * 86400} AND pr_number > 0 AND simulated = 0) WHERE rn = 1"
        total, ok = q(f"SELECT count(*), sum(c = 'success') FROM ({dedup})")[0]
        e2e = sorted(
            r[0] for r in q(f"SELECT min(s) - min(q) + max(f) - min(s) FROM ({dedup}) GROUP BY repo, run_id")
        )
        _ = e2e[len(e2e) // 2]
        return round(ok / total, 6)

    page = {
        "dispatches": lambda: len(
            q(
                f"SELECT repo, delivery_id, run_id, min(started_at), max(finished_at), count(*), sum(conclusion IN ('success','neutral')), sum(passed), sum(failed), sum(results = 'incomplete'), max(simulated), group_concat(job_name, char(10)) FROM legs WHERE {LIVE} GROUP BY repo, delivery_id, run_id ORDER BY min(started_at) DESC LIMIT 20"
            )
        ),
        "pass_rate": pass_rate,
        "heatmap": heatmap,
        "flaky": flaky,
        "promotions": promotions,
        "failing": failing,
        "l3": l3,
    }
    timed = {k: timeit(f, args.repeat) for k, f in page.items()}
    return {"rows": rows, "ingest_s": ingest_s, "queries": timed}


# ------------------------------------------------------------------ the side-by-side run


def child(engine: str, args) -> tuple[dict, float]:
    """Run one engine in a child process; (its answer, its peak RSS in MB)."""
    argv = [
        sys.executable,
        __file__,
        "--engine",
        engine,
        "--rows",
        str(args.rows),
        "--chunk",
        str(args.chunk),
    ]
    argv += ["--repeat", str(args.repeat), "--dir", args.dir]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    )
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"warehouse_bench: the {engine} run failed (exit {os.waitstatus_to_exitcode(status)})")
    return json.loads(out.decode().strip().splitlines()[-1]), usage.ru_maxrss / 1024


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="warehouse_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--chunk", type=int, default=1_000_000, help="rows per insert")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--engine", choices=("chdb", "sqlite"), help=argparse.SUPPRESS)
    p.add_argument("--dir", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.rows < TESTS_PER_LEG * len(FEATURES) or args.chunk < TESTS_PER_LEG or args.repeat < 1:
        p.error(f"--rows >= {TESTS_PER_LEG * len(FEATURES)}, --chunk >= {TESTS_PER_LEG}, --repeat >= 1")
    if args.engine:
        result = (run_chdb if args.engine == "chdb" else run_sqlite)(args)
        print(json.dumps(result))
        return 0
    with tempfile.TemporaryDirectory(prefix="warehouse-bench-") as tmp:
        args.dir = tmp
        print(f"{args.rows:,} test rows requested; each engine in its own process ...", flush=True)
        ch, ch_rss = child("chdb", args)
        sq, sq_rss = child("sqlite", args)
    print(f"\n{'':<14}{'chdb':>12}{'SQLite':>12}{'ratio':>9}  same answer")
    print(
        f"{'ingest rows/s':<14}{ch['rows'] / ch['ingest_s']:>12,.0f}{sq['rows'] / sq['ingest_s']:>12,.0f}{(sq['rows'] / sq['ingest_s']) / (ch['rows'] / ch['ingest_s']):>9.3f}  ({ch['rows']:,} rows; ratio = SQLite rate / chdb rate)"
    )
    total_c = total_s = 0.0
    for name, (c_s, c_answer) in ch["queries"].items():
        s_s, s_answer = sq["queries"][name]
        total_c, total_s = total_c + c_s, total_s + s_s
        print(
            f"{name:<14}{c_s * 1000:>10.1f}ms{s_s * 1000:>10.1f}ms{c_s / s_s:>9.3f}  {'yes' if c_answer == s_answer else f'NO ({c_answer} vs {s_answer})'}"
        )
    print(f"{'all queries':<14}{total_c * 1000:>10.1f}ms{total_s * 1000:>10.1f}ms{total_c / total_s:>9.3f}")
    print(f"whole HUD page (every panel rendered, chdb): {ch['page_s']:.3f} s")
    print(f"peak RSS: chdb {ch_rss:,.0f} MB, SQLite {sq_rss:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
