"""How many devices for L3? A dispatch stream replayed onto D devices in simulated time.

Each dispatch goes through the real gating (crcr/dispatch/gating.py), planner (plan.py),
supersession (supersede.py) and reuse key (reuse_key.py); no test runs. Legs queue first in,
first out for the earliest free device; a leg takes a duration drawn from the recorded legs
of its feature (`Recorded`), cut to the change-aware selection's budget on the events the
selection narrows (synthetic and webhook events carry no diff, so the budget's share stands
in for the selection), and ends as the recorded pass rate says, decided by its reuse key so
equal inputs give equal results. The key's core and suite are the commit's content where the
stream names it (the synthetic stream does), else the commit itself. A newer dispatch of the same group cancels the older run's
running legs (recorded `cancelled`) and drops its queued ones; a leg whose key a green leg
that already finished holds is reused (one look-up's `REUSE_OVERHEAD_S` on a device).
The legs are written, marked simulated, into a scratch warehouse and judged by the
warehouse's own L3 code (queries.l3_metrics, l3.readiness).
"""

from __future__ import annotations

import hashlib
import heapq
import random
from dataclasses import dataclass, field, replace
from typing import Optional, Sequence

from crcr.callback_client.errors import ConfigError
from crcr.dispatch.event import Dispatch
from crcr.dispatch.gating import Gating, gate
from crcr.dispatch.plan import Feature, auto_shards, plan_candidates, plan_legs
from crcr.dispatch.reuse_key import LegInputs
from crcr.dispatch.supersede import superseded_at
from crcr.warehouse import l3, queries
from crcr.warehouse.records import LegRecord

# the gates a device pool decides (pass rate is the backend's own, shown but not searched on)
CAPACITY_GATES = ("avgQueueTimeS", "e2eTimeS", "overrunRate", "timeoutRate")
REUSE_OVERHEAD_S = 60.0  # assumption: a reused leg's job still starts and reads the warehouse
LEG_TIMEOUT_S = 120 * 60.0  # the workflow's test job `timeout-minutes: 120`
SIM_BACKEND = "5" * 40  # one backend commit for the whole stream (a release moves it: not modelled)


@dataclass(frozen=True)
class Recorded:
    """Per feature: the recorded legs' execution times and their pass rate."""

    durations: dict[str, tuple[float, ...]]
    pass_rate: dict[str, float]

    def pooled(self) -> tuple[float, ...]:
        return tuple(d for ds in self.durations.values() for d in ds)

    def duration(self, feature: str, rng: random.Random) -> float:
        return rng.choice(self.durations.get(feature) or self.pooled())

    def green(self, feature: str, key: str) -> bool:
        rates = self.pass_rate
        rate = rates.get(feature, sum(rates.values()) / len(rates))
        draw = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        return draw < rate


def recorded_timings(wh) -> Recorded:
    """The warehouse's completed legs that ran (real ones, else its simulated history)."""
    for simulated in (0, 1):
        rows = wh.query(
            f"""SELECT feature, groupArray(execution_time), avg(conclusion = 'success') FROM {wh.db}.legs
            WHERE {queries.live(wh.db)} AND simulated = {simulated} AND execution_time > 0
              AND reused_from = '' AND conclusion IN ('success', 'failure') GROUP BY feature"""
        )
        if rows:
            return Recorded(
                # sorted: groupArray's order follows the engine's reads, and the draws must not
                {f: tuple(sorted(float(x) for x in ds)) for f, ds, _ in sorted(rows)},
                {f: float(r) for f, _, r in rows},
            )
    raise ConfigError(
        f"no recorded leg timings in {wh.where}: run the handler against it, or add --simulate-days N"
    )


@dataclass(frozen=True)
class Settings:
    devices: int
    gating: Gating = Gating()
    supersede: bool = True
    reuse: bool = True
    select_on: tuple[str, ...] = ("pull_request",)
    select_share: Optional[float] = 0.25  # the selection budget's share (None: whole legs)
    seed: int = 0


@dataclass
class Outcome:
    """One replay: its legs (as the warehouse stores them) and its tallies."""

    settings: Settings
    legs: list[LegRecord] = field(default_factory=list)
    gated_out: int = 0
    ran: int = 0
    reused: int = 0
    cancelled: int = 0
    dropped: int = 0  # queued legs of a superseded run: never started
    device_s: float = 0.0
    saved_s: float = 0.0

    def last_finish(self) -> float:
        return max((leg.finished_at for leg in self.legs), default=0.0)


@dataclass(frozen=True)
class _Leg:
    run: int
    ready: float
    job: str
    feature: str
    seconds: float
    key: str
    cut: Optional[float]


def _plan(i, at, d: Dispatch, s: Settings, features, rec: Recorded, rng, cut, configs, content) -> list[_Leg]:
    legs = plan_legs(plan_candidates(d), features, auto_shards(features, 0))
    narrowed = s.select_share is not None and d.event_type in s.select_on
    # the key's core and suite: their content when the stream names it, else the commit
    core, suite = (f"content:{content[0]}", content[1]) if content else (f"overlay:{d.sha}", d.sha)
    out = []
    for leg in legs:
        seconds = rec.duration(leg.feature, rng) / leg.shard_total * (s.select_share if narrowed else 1.0)
        inputs = LegInputs(
            SIM_BACKEND,
            core,
            suite,
            configs[leg.feature],
            f"budget {s.select_share}" if narrowed else "",
            f"{leg.feature} {leg.shard_index}/{leg.shard_total}",
        )
        out.append(_Leg(i, at, leg.job_name, leg.feature, seconds, inputs.key() or "", cut))
    return out


def replay(
    arrivals: Sequence[tuple[float, Dispatch]],
    features: Sequence[Feature],
    rec: Recorded,
    s: Settings,
    repo: str,
    contents: Optional[Sequence[Optional[tuple[str, str]]]] = None,
) -> Outcome:
    """Every arrival through gating, planner, supersession and reuse, onto `s.devices` devices;
    `contents`: each arrival's (core, suite) content ids (crcr/dispatch/stream.py), else
    legs are keyed by commit."""
    if s.devices < 1:
        raise ConfigError("devices: D must be at least 1")
    rng = random.Random(s.seed)
    cuts = superseded_at(arrivals) if s.supersede else [None] * len(arrivals)
    configs = {f.name: tuple((c, "") for c in f.configs) for f in features}
    out, queue = Outcome(s), []
    for i, (at, d) in enumerate(arrivals):
        if not gate(d, s.gating).run:
            out.gated_out += 1
            continue
        queue += _plan(i, at, d, s, features, rec, rng, cuts[i], configs, contents[i] if contents else None)
    free = [0.0] * s.devices  # when each device is next free (a heap)
    greens: dict[str, tuple[float, str]] = {}  # key -> (finished, source leg key)
    first_start: dict[int, float] = {}
    for leg in sorted(queue, key=lambda x: (x.ready, x.run)):  # stable: FIFO by dispatch
        start = max(leg.ready, free[0])
        if leg.cut is not None and start >= leg.cut:
            out.dropped += 1  # GitHub cancels a queued job: nothing sent, no row
            continue
        record = _record(leg, arrivals[leg.run][1], start, repo)
        source = greens.get(leg.key) if s.reuse else None
        if source is not None and source[0] <= start:
            end, conclusion = start + REUSE_OVERHEAD_S, "success"
            record = replace(record, reused_from=source[1])
            out.reused += 1
            out.saved_s += leg.seconds
        else:
            end = start + min(leg.seconds, LEG_TIMEOUT_S)
            conclusion = "success" if rec.green(leg.feature, leg.key) else "failure"
            if leg.seconds > LEG_TIMEOUT_S:
                conclusion = "timed_out"
            if leg.cut is not None and leg.cut < end:
                end, conclusion = leg.cut, "cancelled"
                out.cancelled += 1
            out.ran += 1
            if conclusion == "success":
                greens.setdefault(leg.key, (end, record.key))
        heapq.heapreplace(free, end)
        out.device_s += end - start
        queued = leg.run not in first_start  # the relay's per-run queue: on the run's first start
        first_start.setdefault(leg.run, start)
        out.legs.append(
            replace(
                record,
                started_at=start,
                finished_at=end,
                conclusion=conclusion,
                queue_time=start - leg.ready if queued else None,
                execution_time=end - start,
                leg_seconds=end - start,
            )
        )
    return out


def _record(leg: _Leg, d: Dispatch, start: float, repo: str) -> LegRecord:
    return LegRecord(
        repo=repo,
        delivery_id=d.delivery_id,
        job_name=leg.job,
        run_id=f"sim-{leg.run}",
        run_attempt=1,
        upstream_sha=d.sha,
        backend_sha=SIM_BACKEND,
        started_at=start,
        finished_at=start,
        conclusion="",
        event_type=d.event_type,
        pr_number=d.pr_number or 0,
        feature=leg.feature,
        runner="capacity-simulation",
        queued_at=leg.ready,
        simulated=True,
        reuse_key=leg.key,
    )


@dataclass(frozen=True)
class Judged:
    repo: str
    outcome: Outcome
    metrics: Optional[queries.L3Metrics]
    readiness: l3.Readiness

    def met(self) -> bool:
        """Every capacity gate met (no data is not met)."""
        return all(v.met is True for v in self.readiness.verdicts if v.gate.key in CAPACITY_GATES)

    def cells(self) -> dict[str, str]:
        return {
            v.gate.key: f"{l3.format_value(v.gate, v.value)} {'met' if v.met else 'NOT MET' if v.met is False else 'no data'}"
            for v in self.readiness.verdicts
            if v.gate.key in CAPACITY_GATES + ("passRate",)
        }


def judge(wh, outcomes: Sequence[tuple[str, Outcome]], now: Optional[float] = None) -> list[Judged]:
    """Write every replay's legs (its own repo name) and judge them with the warehouse's L3 code,
    each as of its own last finish (or `now`): a small pool's backlog can end weeks after a large
    pool's replay, and one shared "now" would leave the large pools' legs outside the L3 window."""
    from crcr.warehouse.ingest import ingest_bulk

    ingest_bulk(wh, [leg for _, o in outcomes for leg in o.legs])
    metrics: dict[float, dict] = {}
    out = []
    for repo, o in outcomes:
        at = now if now is not None else o.last_finish() + 1
        if at not in metrics:
            metrics[at] = queries.l3_metrics(wh, at, l3.PROMOTION_WINDOW_DAYS, simulated=True)
        m = metrics[at].get(repo)
        out.append(
            Judged(
                repo,
                o,
                m,
                l3.readiness(m.as_gates() if m else {}, l3.PROMOTION_WINDOW_DAYS, m.jobs if m else 0),
            )
        )
    return out


def smallest(judged: Sequence[Judged]) -> Optional[Judged]:
    """The replay with the fewest devices that meets every capacity gate (None: none does)."""
    ok = [j for j in judged if j.met()]
    return min(ok, key=lambda j: j.outcome.settings.devices) if ok else None


def parse_devices(raw: str) -> list[int]:
    """`N`, `A-B` or `A,B,C`: the pool sizes to try; 0 or less is a one-line error."""
    try:
        if "-" in raw:
            lo, hi = (int(x) for x in raw.split("-", 1))
            found = list(range(lo, hi + 1))
        else:
            found = [int(x) for x in raw.replace(",", " ").split()]
    except ValueError:
        raise ConfigError(f"--devices {raw!r}: expected N, A-B or A,B,C") from None
    if not found or min(found) < 1:
        raise ConfigError(f"--devices {raw!r}: a pool needs at least 1 device (D=0 runs nothing)")
    return sorted(set(found))


def capacity(
    wh,
    arrivals,
    features,
    rec: Recorded,
    modes: Sequence[Gating],
    devices: Sequence[int],
    contents=None,
    **settings,
) -> list[Judged]:
    """Every mode x D replayed and judged in `wh` (a scratch warehouse); rows ordered mode, D."""
    outcomes = []
    for g in modes:
        for n in devices:
            s, repo = Settings(n, g, **settings), f"capacity/{g.mode}/D{n}"
            outcomes.append((repo, replay(arrivals, features, rec, s, repo, contents)))
    if not any(o.legs for _, o in outcomes):
        raise ConfigError("no leg to judge: every dispatch was gated out")
    return judge(wh, outcomes)
