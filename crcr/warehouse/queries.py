"""What the warehouse answers, for the CLI and the HUD page: one SQL text per question (the
subset both backends accept), folded into typed rows. Decisions that need an order over
time (flip rates, the last K runs) are made in SQL too, on each test's runs sorted as an
array: only the answers leave the engine (shipping every run of the flaky tests to Python
cost more than the engine's whole work at 10 M results).

Every query reads committed ingests only (schema.live). `now` is an argument, not the
server's clock, so windows are reproducible (tests, simulated history).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping, Optional

from crcr.warehouse import l3, schema
from crcr.warehouse.backends import Backend
from crcr.warehouse.l3 import THREE_HOURS
from crcr.warehouse.levels import LevelHistory
from crcr.warehouse.schema import COMPLETED, OUTCOME_CODES, live
from crcr.warehouse.sql import quote, quote_list, ts
from testing.results.outcomes import BAD, PROMOTABLE

PASSING = list(schema.PASSING)  # passed and both XPASSes
FAILING = list(schema.FAILING)  # the bad ones
BAD_VALUES = sorted(o.value for o in BAD)
DAY = 86400


def started_after(since: Optional[float]) -> str:
    """The condition on started_at of a question bounded to legs started after `since` (the
    HUD page's horizon: it never reads every leg ever stored); '' for an unbounded one."""
    return f"started_at > {ts(since)}" if since is not None else ""


def _and(cond: str) -> str:
    return f" AND {cond}" if cond else ""


# ------------------------------------------------------------------ dispatches


@dataclass(frozen=True)
class Dispatch:
    repo: str
    delivery_id: str
    run_id: str
    event_type: str
    pr_number: int
    upstream_sha: str
    backend_sha: str
    started_at: int
    finished_at: int
    legs: int
    legs_green: int
    passed: int
    failed: int
    incomplete: int
    simulated: bool
    verdicts: tuple[dict, ...]  # (job, verdict) of legs that carry one
    bisections: tuple[dict, ...]


def dispatches(
    wh: Backend,
    limit: int = 20,
    only: Optional[tuple[str, str, str]] = None,
    since: Optional[float] = None,
) -> list[Dispatch]:
    """Newest first: one row per (repo, delivery, run), i.e. one dispatch run of the handler;
    `only`: that one (repo, delivery, run); `since`: of the legs started after it."""
    where = _and(started_after(since))
    if only:
        repo, delivery, run = only
        where += f" AND repo = {quote(repo)} AND delivery_id = {quote(delivery)} AND run_id = {quote(run)}"
    rows = wh.query(
        f"""SELECT repo, delivery_id, run_id, any(event_type), max(pr_number), any(upstream_sha),
        any(backend_sha), toUnixTimestamp(min(started_at)), toUnixTimestamp(max(finished_at)), count(),
        countIf(conclusion IN ('success', 'neutral')), sum(passed), sum(failed),
        countIf(results = 'incomplete'), max(simulated),
        groupArray(concat(job_name, '\\t', ifNull(triage_verdict, ''), '\\t', ifNull(bisection, '')))
        FROM {wh.db}.legs WHERE {live(wh.db, started_after(since))}{where}
        GROUP BY repo, delivery_id, run_id ORDER BY min(started_at) DESC LIMIT {int(limit)}"""
    )
    out = []
    for r in rows:
        verdicts, bisections = [], []
        for packed in r[15]:
            job, verdict, bisection = packed.split("\t")
            if verdict:
                verdicts.append({"job": job, **json.loads(verdict)})
            if bisection:
                bisections.append({"job": job, **json.loads(bisection)})
        out.append(Dispatch(*r[:14], bool(r[14]), tuple(verdicts), tuple(bisections)))
    return out


@dataclass(frozen=True)
class LegRow:
    """One leg of a recent dispatch, as the HUD's grid shows it (the newest attempt)."""

    repo: str
    delivery_id: str
    run_id: str
    job_name: str
    run_attempt: int
    event_type: str
    pr_number: int
    upstream_sha: str
    backend_sha: str
    started_at: int
    conclusion: str
    status: str
    passed: int
    failed: int
    skipped: int
    results: str  # complete | incomplete
    queue_time: Optional[float]
    execution_time: Optional[float]  # the relay's: in_progress -> completed (triage included)
    leg_seconds: Optional[float]  # the handler's own run of the leg's tests
    verdict: Optional[dict]
    bisection: Optional[dict]
    simulated: bool
    capability_skipped: int = 0  # schema 6: skipped for a capability answered unsupported


def recent_legs(wh: Backend, limit: int = 20, since: Optional[float] = None) -> list[LegRow]:
    """Every job of the newest `limit` dispatches (as `dispatches` counts them), its newest
    attempt, in progress or completed; newest dispatch first. `since`: started after it."""
    cond = started_after(since)
    newest = f"""SELECT repo, delivery_id, run_id FROM {wh.db}.legs WHERE {live(wh.db, cond)}{_and(cond)}
        GROUP BY repo, delivery_id, run_id ORDER BY min(started_at) DESC LIMIT {int(limit)}"""
    either = f"({live(wh.db, cond)} OR {live(wh.db, cond, schema.IN_PROGRESS)}){_and(cond)}"
    rows = wh.query(
        f"""SELECT repo, delivery_id, run_id, job_name, run_attempt, event_type, pr_number, upstream_sha,
        backend_sha, toUnixTimestamp(started_at), conclusion, status, passed, failed, skipped, results,
        queue_time, execution_time, leg_seconds, ifNull(triage_verdict, ''), ifNull(bisection, ''), simulated,
        capability_skipped
        FROM {wh.db}.legs WHERE {either} AND (repo, delivery_id, run_id) IN ({newest})
        ORDER BY run_attempt, status = '{COMPLETED}', ingest_id"""
    )
    newest_attempt: dict[tuple, LegRow] = {}
    for r in rows:  # a later attempt, or the completed row of the same attempt, wins
        verdict, bisection = (json.loads(x) if x else None for x in r[19:21])
        newest_attempt[r[:4]] = LegRow(*r[:19], verdict, bisection, bool(r[21]), r[22])
    return sorted(newest_attempt.values(), key=lambda leg: (-leg.started_at, leg.job_name))


# ------------------------------------------------------------------ pass rates


@dataclass(frozen=True)
class RatePoint:
    series: str  # feature
    x: str  # upstream commit (short) or day
    at: int  # first time seen, for ordering
    passed: int
    failed: int
    simulated: bool

    @property
    def rate(self) -> Optional[float]:
        n = self.passed + self.failed
        return self.passed / n if n else None


def _rate_query(wh: Backend, key: str, where: str, since: str = "") -> list[tuple]:
    """From `legs` alone: a leg's passed/failed are the tally of its own rows (ingest.leg_row).
    `since`: the window on started_at that `where` holds, if any (schema.live)."""
    return wh.query(
        f"""SELECT feature, {key} AS x, toUnixTimestamp(min(started_at)) AS at, sum(passed), sum(failed), simulated
        FROM {wh.db}.legs WHERE {live(wh.db, since)} AND passed + failed > 0 AND NOT {INFRA_VERDICT} AND {where}
        GROUP BY feature, x, simulated ORDER BY at"""
    )


def pass_rate_over_commits(wh: Backend, commits: int = 30, since: Optional[float] = None) -> list[RatePoint]:
    """Test pass rate per feature at each of the last `commits` upstream commits (of the legs
    started after `since`)."""
    cond = started_after(since)
    recent = f"""SELECT upstream_sha FROM {wh.db}.legs WHERE {live(wh.db, cond)}{_and(cond)} AND passed + failed > 0
        GROUP BY upstream_sha ORDER BY max(started_at) DESC LIMIT {int(commits)}"""
    rows = _rate_query(wh, "upstream_sha", f"upstream_sha IN ({recent}){_and(cond)}", cond)
    return [RatePoint(f, x[:10], at, p, n, bool(s)) for f, x, at, p, n, s in rows]


def pass_rate_by_day(wh: Backend, now: float, days: int = 30) -> list[RatePoint]:
    """Test pass rate per feature per UTC day over the last `days` days."""
    since = f"started_at > {ts(now - days * DAY)}"
    rows = _rate_query(wh, "toString(toDate(started_at))", since, since)
    return [RatePoint(f, x, at, p, n, bool(s)) for f, x, at, p, n, s in rows]


# ------------------------------------------------------------------ heat map


@dataclass(frozen=True)
class HeatCell:
    op: str
    dtype: str
    passed: int
    failed: int

    @property
    def rate(self) -> Optional[float]:
        n = self.passed + self.failed
        return self.passed / n if n else None


def heatmap_latest(wh: Backend, since: Optional[float] = None) -> tuple[Optional[Dispatch], list[HeatCell]]:
    """op x dtype pass rate of the newest dispatch that ran op tests (legs.op_tests says which),
    of those started after `since`."""
    cond = started_after(since)
    latest = wh.query(
        f"""SELECT repo, delivery_id, run_id FROM {wh.db}.legs WHERE {live(wh.db, cond)}{_and(cond)} AND op_tests > 0
        GROUP BY repo, delivery_id, run_id ORDER BY max(started_at) DESC LIMIT 1"""
    )
    if not latest:
        return None, []
    repo, delivery, run = latest[0]
    cells = wh.query(  # op_cells: the legs' tallies the schema's view keeps at ingest
        f"""SELECT op, dt, sum(passed), sum(failed)
        FROM {wh.db}.op_cells ARRAY JOIN splitByChar(',', if(dtype = '', '-', dtype)) AS dt
        WHERE ingest_id IN (SELECT min(ingest_id) FROM {wh.db}.legs
          WHERE status = '{COMPLETED}'{_and(cond)} AND repo = {quote(repo)} AND delivery_id = {quote(delivery)} AND run_id = {quote(run)} GROUP BY leg_key)
        GROUP BY op, dt ORDER BY op, dt"""
    )
    (head,) = dispatches(wh, 1, only=(repo, delivery, run), since=since)
    return head, [HeatCell(*c) for c in cells]


# ------------------------------------------------------------------ device health


@dataclass(frozen=True)
class DeviceDay:
    """One card's day (issue 41): its tests and failures, and how many of the legs that ran
    on it got an infra verdict (a hang, a device fault, a lost card)."""

    device: str  # "" = not recorded (a leg not pinned to a card, a JUnit without the property)
    day: str  # UTC date
    tests: int
    failed: int
    legs: int
    infra_legs: int
    simulated: bool

    @property
    def failed_share(self) -> Optional[float]:
        return self.failed / self.tests if self.tests else None


# a stored verdict is json.dumps's: `"category": "infra"` (no JSON functions in 18.16's subset)
INFRA_VERDICT = """match(ifNull(triage_verdict, ''), '"category": ?"infra"')"""


def device_health(wh: Backend, since: Optional[float] = None) -> list[DeviceDay]:
    """Per card and UTC day, of the legs started after `since`: tests and failures (the
    schema's `device_cells`, kept at ingest), legs and legs with an infra verdict."""
    cond = started_after(since)
    rows = wh.query(
        f"""SELECT device, toString(toDate(started_at)) AS day, sum(tests), sum(failed), count(),
        countIf(infra), max(simulated)
        FROM (SELECT ingest_id, device, sum(tests) AS tests, sum(failed) AS failed FROM {wh.db}.device_cells
              WHERE {live(wh.db, cond)} GROUP BY ingest_id, device) AS c
        ALL INNER JOIN (SELECT ingest_id, started_at, simulated, {INFRA_VERDICT} AS infra FROM {wh.db}.legs
              WHERE {live(wh.db, cond)}{_and(cond)}) AS l USING ingest_id
        GROUP BY device, day ORDER BY device, day"""
    )
    return [DeviceDay(d, day, t, f, n, i, bool(sim)) for d, day, t, f, n, i, sim in rows]


# ------------------------------------------------------------------ flaky tests


@dataclass(frozen=True)
class Flake:
    test_id: str
    reason: str  # "same SHAs" or "flip rate"
    flip_rate: float
    runs: int
    evidence: tuple[tuple, ...]  # (time, upstream, backend, job, outcome), oldest first
    simulated: bool


EVIDENCE_RUNS = 20  # a flip-rate flake shows its latest runs; same-SHA evidence is shown whole


def _of_tests(wh: Backend, where: str, rare: str, since: str = "") -> str:
    """`where` on committed rows of the tests that ever had a `rare` result (bad, or passed
    though configured to fail). Those tests are found in `rare_results` (schema: a view
    keeps it at ingest), not among every result; then the rest of those few tests is read
    by primary key (results ORDER BY test_key) and decided on committed rows only.
    `rare` may name rare_results' columns; no liveness filter there: a superset of keys is
    harmless. `since`: the window on started_at that `where` holds, if any (schema.live)."""
    keys = f"SELECT test_key FROM {wh.db}.rare_results WHERE {rare} GROUP BY test_key"
    return f"test_key IN ({keys}) AND {live(wh.db, since)} AND {where} AND {_not_infra(wh, since)}"


def _not_infra(wh: Backend, since: str = "") -> str:
    """Rows of legs whose verdict is not `infra`: a leg that lost its card (a hang, a device
    fault) ran its tests on a sick device, so its failures are the card's, not the tests'
    (the device-health panel shows them; the per-test questions leave them out). `since`:
    the window the caller's rows are in (a leg's rows carry its start): only its legs are read."""
    return f"ingest_id NOT IN (SELECT ingest_id FROM {wh.db}.legs WHERE {INFRA_VERDICT}{_and(since)})"


def _per_test(wh: Backend, columns: str, select: str) -> str:
    """`columns` of `select` (grouped by test_key), then each test's id. The per-test
    panels read only numeric columns of `results`: reading a few hundred tests scattered
    over every part costs a compressed block per column per part and test, so a string
    column (ids, SHAs) cost more than all the numbers together. Ids come from
    `rare_results` (every test these panels name has a rare row), SHAs from `legs`."""
    names = f"SELECT test_key, any(test_id) AS test_id FROM {wh.db}.rare_results GROUP BY test_key"
    return f"SELECT {columns}, test_id FROM ({select}) AS t ANY LEFT JOIN ({names}) AS n USING test_key"


def _codes(values) -> str:
    return "[" + ", ".join(str(OUTCOME_CODES[v]) for v in values) + "]"


def flaky(
    wh: Backend, now: float, days: int = 14, min_flip_rate: float = 0.2, limit: int = 50
) -> list[Flake]:
    """Tests whose outcome differs at the same upstream + backend SHAs, or flips between good
    and bad at least twice with a flip rate (flips per transition between consecutive runs)
    >= `min_flip_rate` in the window. One change of state (a regression, a fix) is not a
    flake. Decided in SQL per test, on integers, so only the flakes leave the engine: runs
    as (time, ingest id, outcome code, SHA pair) sorted (consecutive = by time, then ingest),
    the flips between neighbours, the pairs seen both good and bad."""
    since = f"started_at > {ts(now - days * DAY)}"
    window = f"{since} AND outcome IN {quote_list(BAD_VALUES + PASSING)}"
    pairs = f"SELECT ingest_id, cityHash64(upstream_sha, backend_sha) AS pair FROM {wh.db}.legs WHERE {since}"
    rows = wh.query(
        _per_test(
            wh,
            "runs, sim, flips, same, evidence",
            f"""SELECT test_key, count() AS runs, max(simulated) AS sim,
            arraySort(groupArray((toUnixTimestamp(started_at), ingest_id, toUInt8(outcome), pair))) AS seq,
            arrayMap(x -> has({_codes(BAD_VALUES)}, x.3), seq) AS states,
            arraySum(arrayMap((a, b) -> a != b, arrayPopBack(states), arrayPopFront(states))) AS flips,
            arrayIntersect(groupUniqArrayIf(pair, outcome IN {quote_list(BAD_VALUES)}),
                           groupUniqArrayIf(pair, outcome IN {quote_list(PASSING)})) AS same,
            if(empty(same), arraySlice(seq, -{EVIDENCE_RUNS}), arrayFilter(x -> has(same, x.4), seq)) AS evidence
            FROM (SELECT test_key, started_at, ingest_id, outcome, simulated FROM {wh.db}.results
                  WHERE {_of_tests(wh, window, f"{since} AND outcome IN {quote_list(BAD_VALUES)}", since)}) AS r
            ANY LEFT JOIN ({pairs}) AS p USING ingest_id
            GROUP BY test_key
            HAVING notEmpty(same) OR (flips >= 2 AND flips / (runs - 1) >= {float(min_flip_rate)})""",
        )
    )
    legs = _legs_of(wh, {run[1] for r in rows for run in r[4]}, since)
    found = [
        Flake(
            test_id,
            "same SHAs" if same else "flip rate",
            flips / (runs - 1) if runs > 1 else 0.0,
            runs,
            tuple((t, *legs[ingest], _NAMES[code]) for t, ingest, code, _ in evidence),
            bool(sim),
        )
        for runs, sim, flips, same, evidence, test_id in rows
    ]
    found.sort(key=lambda f: (-f.flip_rate, f.test_id))
    return found[:limit]


_NAMES = {code: value for value, code in OUTCOME_CODES.items()}


def _legs_of(wh: Backend, ingest_ids: set[int], cond: str = "") -> dict[int, tuple[str, str, str]]:
    """ingest id -> (upstream, backend, job) of those legs (a leg's rows share them). `cond`:
    the window they started in (legs are ordered by start, not by ingest id)."""
    if not ingest_ids:
        return {}
    ids = ", ".join(str(int(i)) for i in sorted(ingest_ids))
    return {
        r[0]: tuple(r[1:])
        for r in wh.query(
            f"SELECT ingest_id, upstream_sha, backend_sha, job_name FROM {wh.db}.legs WHERE ingest_id IN ({ids}){_and(cond)}"
        )
    }


# ------------------------------------------------------------------ promotions


@dataclass(frozen=True)
class Promotion:
    test_id: str
    rule: str  # config file:line that makes it xfail
    last: tuple[tuple, ...]  # the last K (time, upstream, outcome), oldest first
    simulated: bool


def promotion_candidates(
    wh: Backend, k: int = 3, limit: int = 100, since: Optional[float] = None
) -> list[Promotion]:
    """Tests configured to fail (xfail, xfail_strict) that passed in each of their last `k`
    runs (runs in time order, then ingest order).

    Two small reads instead of every run of every candidate: `rare_results` holds each
    test's promotable runs, so its last `k` of them are the candidates' answer unless a
    run that is not promotable came later; those later runs are read from `results` by
    primary key from the oldest candidate's k-th run on (recent by nature), with the
    rule that set each test's mode. `since`: runs started after it only."""
    cond = started_after(since)
    codes = sorted(OUTCOME_CODES[o.value] for o in PROMOTABLE)
    promotable = quote_list(sorted(o.value for o in PROMOTABLE))
    cands = wh.query(
        f"""SELECT test_key, any(test_id),
        arraySlice(arraySort(groupArray((toUnixTimestamp(started_at), ingest_id, toUInt8(outcome)))), -{int(k)}) AS last
        FROM {wh.db}.rare_results WHERE outcome IN {promotable} AND {live(wh.db, cond)}{_and(cond)}
        GROUP BY test_key HAVING length(last) = {int(k)}"""
    )
    if not cands:
        return []
    since = {key: tuple(last[0][:2]) for key, _, last in cands}
    after = f"started_at >= {ts(min(t for t, _ in since.values()))}"
    later = wh.query(
        f"""SELECT test_key, argMax(rule, started_at), max(simulated),
        groupArray((toUnixTimestamp(started_at), ingest_id, toUInt8(outcome)))
        FROM {wh.db}.results WHERE test_key IN ({", ".join(str(int(key)) for key in since)})
        AND {after} AND {live(wh.db, after)} GROUP BY test_key"""
    )
    recent = {key: (rule, sim, runs) for key, rule, sim, runs in later}
    kept = [
        (test_id, last, recent[key])
        for key, test_id, last in cands
        if key in recent and all(code in codes or (t, i) < since[key] for t, i, code in recent[key][2])
    ]
    legs = _legs_of(wh, {run[1] for _, last, _ in kept for run in last}, cond)
    found = [
        Promotion(test_id, rule, tuple((t, legs[i][0], _NAMES[code]) for t, i, code in last), bool(sim))
        for test_id, last, (rule, sim, _) in kept
    ]
    return sorted(found, key=lambda p: p.test_id)[:limit]


# ------------------------------------------------------------------ failing tests


@dataclass(frozen=True)
class Failing:
    test_id: str
    outcome: str
    first_seen: int
    first_failed: int
    last_passed: Optional[int]
    last_passed_sha: str
    latest_sha: str
    message: str
    simulated: bool
    # the latest failure's leg concluded success: the handler turns a leg green whose only
    # failures are tests new in scope (crcr/handler/upstream_setup.py), so this one is new
    # in scope, not a regression
    new_in_scope: bool = False


def failing_tests(wh: Backend, limit: int = 200, since: Optional[float] = None) -> list[Failing]:
    """Every test whose latest result is bad: when it was first seen, first failed, last passed
    (and at which upstream commit: the start of the range to bisect); `since`: of the runs
    started after it (first seen and last passed then mean: within that horizon)."""
    good, bad = quote_list(PASSING), quote_list(BAD_VALUES)
    cond = started_after(since)
    rows = wh.query(
        _per_test(
            wh,
            "latest, first_seen, first_failed, last_passed, passed_in, latest_in, message, sim",
            f"""SELECT test_key, toString(argMax(outcome, started_at)) AS latest,
            toUnixTimestamp(min(started_at)) AS first_seen,
            toUnixTimestamp(minIf(started_at, outcome IN {bad})) AS first_failed,
            toUnixTimestamp(maxIf(started_at, outcome IN {good})) AS last_passed,
            argMaxIf(ingest_id, started_at, outcome IN {good}) AS passed_in, argMax(ingest_id, started_at) AS latest_in,
            argMax(message, started_at) AS message, max(simulated) AS sim
            FROM {wh.db}.results WHERE {_of_tests(wh, cond or "1", f"outcome IN {bad}{_and(cond)}", cond)}
            GROUP BY test_key HAVING argMax(outcome, started_at) IN {bad}""",
        )
    )
    rows = sorted(rows, key=lambda r: r[-1])[: int(limit)]
    legs = _legs_of(wh, {i for r in rows for i in (r[4], r[5]) if i}, cond)
    green = _green_legs(wh, {r[5] for r in rows}, cond)
    return [
        Failing(
            t, o, first, ff, lp or None, legs[lpi][0] if lpi else "", legs[li][0], msg, bool(sim), li in green
        )
        for o, first, ff, lp, lpi, li, msg, sim, t in rows
    ]


def _green_legs(wh: Backend, ingest_ids: set[int], cond: str = "") -> set[int]:
    """Those of the ingests whose leg concluded success (`cond`: as _legs_of)."""
    if not ingest_ids:
        return set()
    ids = ", ".join(str(int(i)) for i in sorted(ingest_ids))
    return {
        r[0]
        for r in wh.query(
            f"SELECT ingest_id FROM {wh.db}.legs WHERE ingest_id IN ({ids}) AND conclusion = 'success'{_and(cond)}"
        )
    }


# ------------------------------------------------------------------ history


@dataclass(frozen=True)
class HistoryPoint:
    upstream_sha: str
    backend_sha: str
    at: int
    outcomes: dict


def history(
    wh: Backend, test: Optional[str] = None, op: Optional[str] = None, limit: int = 100
) -> list[HistoryPoint]:
    """Outcomes of one test (its id, or a substring of it) or of one op's tests per upstream commit, oldest first."""
    where = f"op = {quote(op)}" if op else f"position(test_id, {quote(test or '')}) > 0"
    rows = wh.query(
        f"""SELECT upstream_sha, backend_sha, toUnixTimestamp(min(started_at)) AS at,
        groupArray(toString(outcome)) FROM {wh.db}.results WHERE {live(wh.db)} AND {where}
        GROUP BY upstream_sha, backend_sha ORDER BY at DESC LIMIT {int(limit)}"""
    )
    out = []
    for sha, backend, at, outcomes in reversed(rows):
        counts: dict[str, int] = {}
        for o in outcomes:
            counts[o] = counts.get(o, 0) + 1
        out.append(HistoryPoint(sha, backend, at, dict(sorted(counts.items()))))
    return out


# ------------------------------------------------------------------ L3 metrics


@dataclass(frozen=True)
class L3Metrics:
    repo: str
    jobs: int
    successes: int
    timed_out: int
    pass_rate: float
    timeout_rate: float
    avg_queue_s: Optional[float]
    max_exec_s: Optional[float]
    overrun_rate: float
    median_e2e_s: Optional[float]
    runs: int
    # share of the jobs' execution time (in_progress -> completed) outside the handler's own
    # run of the tests: checkout, core resolution, build, set-up (not a HUD metric: ours)
    setup_share: Optional[float] = None

    def as_gates(self) -> dict:
        """The five measured gates (tenure comes from the level history: l3.standing)."""
        return {
            "e2eTimeS": self.median_e2e_s,
            "overrunRate": self.overrun_rate,
            "avgQueueTimeS": self.avg_queue_s,
            "timeoutRate": self.timeout_rate,
            "passRate": self.pass_rate,
        }


def _deduped(wh: Backend, now: float, days: int, simulated: bool) -> str:
    """crcr_l3_summary's `deduped`: completed PR jobs started in the window (schema.live reads
    completed rows only), the highest attempt per (repo, run_id, job_name) among them. A NULL
    queue or execution time reads as -1 here (argMax would skip a NULL and take an older
    attempt's value)."""
    since = f"started_at > {ts(now - days * DAY)}"
    return f"""SELECT repo, run_id, job_name,
        argMax(conclusion, run_attempt) AS c, argMax(started_at, run_attempt) AS s,
        argMax(finished_at, run_attempt) AS f, argMax(ifNull(queue_time, -1.0), run_attempt) AS q,
        argMax(ifNull(execution_time, -1.0), run_attempt) AS e,
        argMax(ifNull(leg_seconds, -1.0), run_attempt) AS r
        FROM {wh.db}.legs WHERE {live(wh.db, since)} AND {since}
          AND pr_number > 0 AND simulated = {int(simulated)}
        GROUP BY repo, run_id, job_name"""


def l3_metrics(wh: Backend, now: float, days: int, simulated: bool = False) -> dict[str, L3Metrics]:
    """Per repo, as crcr_l3_summary computes them (no row for a repo without jobs in the window),
    from the times the relay reports (schema 4): avg queue = avg(queue_time) over the kept jobs
    that carry one (NULLs skipped); max execution and the overrun rate over the non-timed-out
    jobs, a NULL execution time in the rate's denominator only; E2E per run = max(queue_time) +
    first start to last finish, a run without a queue time gives no sample; median = quantileExact."""
    rows = wh.query(  # one read of legs: per run first (its jobs' tallies, queue, span), then per repo
        f"""SELECT repo, sum(jobs), sum(ok), sum(timed_out), max(max_exec), sum(over), sum(not_timed),
        count(), sum(q_sum), sum(q_n), quantileExactIf(0.5)(run_q + span, run_q >= 0), sum(has_exec),
        sum(e_sum), sum(setup_sum)
        FROM (SELECT repo, run_id, count() AS jobs, countIf(c = 'success') AS ok, countIf(c = 'timed_out') AS timed_out,
                maxIf(e, e >= 0 AND c != 'timed_out') AS max_exec, countIf(e >= 0 AND c != 'timed_out') AS has_exec,
                countIf(e > {THREE_HOURS} AND c != 'timed_out') AS over,
                countIf(c != 'timed_out') AS not_timed,
                sumIf(q, q >= 0) AS q_sum, countIf(q >= 0) AS q_n, max(q) AS run_q,
                toInt64(max(f)) - toInt64(min(s)) AS span,
                sumIf(e, e >= 0 AND r >= 0) AS e_sum, sumIf(greatest(e - r, 0), e >= 0 AND r >= 0) AS setup_sum
              FROM ({_deduped(wh, now, days, simulated)}) GROUP BY repo, run_id)
        GROUP BY repo"""
    )
    out = {}
    for (
        repo,
        total,
        ok,
        timed_out,
        max_exec,
        over,
        not_timed,
        n_runs,
        q_sum,
        q_n,
        e2e,
        has_exec,
        e_sum,
        setup,
    ) in rows:
        out[repo] = L3Metrics(
            repo,
            total,
            ok,
            timed_out,
            ok / total if total else 0.0,
            timed_out / total if total else 0.0,
            float(q_sum) / q_n if q_n else None,
            float(max_exec) if has_exec else None,
            over / not_timed if not_timed else 0.0,
            float(e2e) if q_n and _finite(e2e) else None,
            n_runs,
            float(setup) / e_sum if e_sum else None,
        )
    return out


def _finite(x) -> bool:
    try:
        return x is not None and float(x) == float(x) and abs(float(x)) != float("inf")
    except (TypeError, ValueError):
        return False


def l3_standings(
    wh: Backend,
    now: float,
    levels: Mapping[str, LevelHistory],
    simulated: bool = False,
    since: Optional[float] = None,
) -> list[l3.Standing]:
    """Every repo's L3 standing (l3.standing) for the command line, its JSON and the HUD's
    panel: the repos with legs, and the repos a level history names (a silent week is a
    standing too). Simulated legs are judged apart and never with a real history. `since`:
    the repos with legs started after it (the gates' windows are shorter)."""
    names = set(repos(wh, simulated, since)) | (set() if simulated else set(levels))
    if not names:
        return []
    windows = {
        days: l3_metrics(wh, now, days, simulated)
        for days in (l3.PROMOTION_WINDOW_DAYS, l3.DEMOTION_WINDOW_DAYS)
    }
    out = []
    for repo in sorted(names):
        m14, m7 = (windows[d].get(repo) for d in (l3.PROMOTION_WINDOW_DAYS, l3.DEMOTION_WINDOW_DAYS))
        out.append(
            l3.standing(
                repo,
                m14.as_gates() if m14 else {},
                m14.jobs if m14 else 0,
                m7.as_gates() if m7 else {},
                m7.jobs if m7 else 0,
                None if simulated else levels.get(repo),
                now,
                m14.runs if m14 else 0,
                m14.max_exec_s if m14 else None,
                m14.setup_share if m14 else None,
            )
        )
    return out


def repos(wh: Backend, simulated: bool = False, since: Optional[float] = None) -> list[str]:
    cond = started_after(since)
    return [
        r[0]
        for r in wh.query(
            f"SELECT repo FROM {wh.db}.legs WHERE {live(wh.db, cond)}{_and(cond)} AND simulated = {int(simulated)} GROUP BY repo ORDER BY repo"
        )
    ]
