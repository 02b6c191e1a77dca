"""L3 readiness from the warehouse as CRCR computes it: one test per gate with both sides of
its threshold, plus the row filter (PR jobs, window, latest attempt, no simulated rows)."""

from __future__ import annotations

import pytest

from crcr.warehouse import l3, queries
from crcr.warehouse.ingest import ingest
from crcr.warehouse.levels import parse_level_history
from crcr.warehouse.tests.history import DAY, HOUR, NOW, leg

REPO = "acme/oot-ci"


def history(*lines: str):
    return parse_level_history("\n".join([f"repo {REPO}", *lines]), "levels.txt", NOW)


L2_LONG_AGO = history("2026-10-01 L2")  # 106 days before NOW


def judge(wh, levels=L2_LONG_AGO):
    (s,) = [s for s in queries.l3_standings(wh, NOW, {REPO: levels} if levels else {}) if s.repo == REPO]
    return s.promotion


def verdict(wh, key: str):
    (v,) = [v for v in judge(wh).verdicts if v.gate.key == key]
    return v.value, v.met


def jobs(wh, n: int, first_run: int = 0, **kw):
    with wh.exclusive():  # one embedded session for the lot
        for i in range(n):
            ingest(wh, leg(first_run + i, started=NOW - DAY - i * 60, **kw))


@pytest.mark.parametrize("l2_day, days, met", [("2026-12-16", 30.0, True), ("2026-12-17", 29.0, False)])
def test_tenure_at_l2_is_at_least_30_days_from_the_level_history(wh, l2_day, days, met):
    # NOW is 2027-01-15 08:00 UTC; tenure counts from the L2 entry's day, as l2_since in HUD
    ingest(wh, leg(2, started=NOW - DAY))  # the warehouse's own legs say nothing of tenure
    levels = history("2026-09-01 L1", f"{l2_day} L2")
    (v,) = [v for v in judge(wh, levels).verdicts if v.gate.key == "tenureAtL2Days"]
    assert v.met is met and v.value == pytest.approx(days + 8 / 24)


def test_tenure_counts_from_first_reaching_l2_not_reset_by_l3(wh):
    ingest(wh, leg(2, started=NOW - DAY, level="L3"))
    levels = history("2026-11-01 L2", "2026-12-20 L3")
    (v,) = [v for v in judge(wh, levels).verdicts if v.gate.key == "tenureAtL2Days"]
    assert v.value == pytest.approx(75 + 8 / 24)


def test_no_level_history_is_no_tenure_data(wh):
    ingest(wh, leg(1, started=NOW - 90 * DAY))  # 90 days of L2 legs: not a tenure on their own
    ingest(wh, leg(2, started=NOW - DAY))
    for levels in (None, history("2026-12-01 L1")):  # no history; a history that never reached L2
        (v,) = [v for v in judge(wh, levels).verdicts if v.gate.key == "tenureAtL2Days"]
        assert (v.value, v.met) == (None, None)
        assert l3.format_value(v.gate, v.value) == "no tenure data"


@pytest.mark.parametrize("span, met", [(10800 - 61, True), (10800 - 60, False)])
def test_p50_end_to_end_is_below_3_hours(wh, span, met):
    # one run, two jobs: E2E = queue (60 s, dispatch to first start) + first start to last finish
    ingest(wh, leg(1, job="test-a", started=NOW - DAY, exec_s=span, queue_s=60))
    ingest(wh, leg(1, job="test-b", started=NOW - DAY + 10, exec_s=100, queue_s=None))  # not the run's first
    assert verdict(wh, "e2eTimeS") == (span + 60, met)


def test_p50_of_an_even_count_is_the_upper_middle(wh):
    ingest(wh, leg(1, exec_s=100, queue_s=0))
    ingest(wh, leg(2, exec_s=20000, queue_s=0))
    assert verdict(wh, "e2eTimeS") == (20000, False)  # quantileExact: sorted[n // 2]


@pytest.mark.parametrize("total, met", [(101, True), (100, False)])
def test_overrun_rate_is_below_1_percent(wh, total, met):
    ingest(wh, leg(0, exec_s=3 * HOUR + 1))  # one job over 3 h
    jobs(wh, total - 1, first_run=1, exec_s=3 * HOUR)  # exactly 3 h is not an overrun
    jobs(wh, 5, first_run=500, exec_s=6 * HOUR, conclusion="timed_out")  # neither side of the rate
    m = queries.l3_metrics(wh, NOW, 14)[REPO]
    assert m.max_exec_s == 3 * HOUR + 1  # shown, not judged (the newest gates judge the rate)
    value, got = verdict(wh, "overrunRate")
    assert got is met and value == pytest.approx(1 / total)


@pytest.mark.parametrize("queue, met", [(1799, True), (1800, False)])
def test_average_queue_is_below_30_minutes(wh, queue, met):
    ingest(wh, leg(1, queue_s=queue - 600))
    ingest(wh, leg(2, queue_s=queue + 600))
    ingest(
        wh, leg(2, job="test-later", started=NOW - DAY + 300, queue_s=None)
    )  # same run: only its first job carries the queue
    ingest(wh, leg(3, queue_s=None))  # no dispatch time: no queue sample
    assert verdict(wh, "avgQueueTimeS") == (queue, met)


@pytest.mark.parametrize("total, met", [(101, True), (100, False)])
def test_timeout_rate_is_below_1_percent(wh, total, met):
    ingest(wh, leg(0, conclusion="timed_out", exec_s=6 * HOUR))
    jobs(wh, total - 1, first_run=1)
    value, got = verdict(wh, "timeoutRate")
    assert got is met and value == pytest.approx(1 / total)


@pytest.mark.parametrize("good, bad, met", [(9, ["failure"], True), (8, ["failure", "cancelled"], False)])
def test_job_pass_rate_is_at_least_90_percent(wh, good, bad, met):
    jobs(wh, good)
    for i, conclusion in enumerate(bad):  # cancelled (and neutral, skipped) count against it too
        ingest(wh, leg(100 + i, conclusion=conclusion))
    value, got = verdict(wh, "passRate")
    assert got is met and value == pytest.approx(good / (good + len(bad)))


def test_rows_that_do_not_count(wh):
    ingest(wh, leg(1, conclusion="failure"))
    ingest(wh, leg(1, attempt=2))  # the re-run's result replaces attempt 1
    ingest(wh, leg(2, conclusion="failure", pr=0))  # a push / nightly: not a PR job
    ingest(wh, leg(3, conclusion="failure", started=NOW - 15 * DAY))  # outside the 14 days
    ingest(wh, leg(4, conclusion="failure", simulated=True))  # simulated: never real
    m = queries.l3_metrics(wh, NOW, 14)[REPO]
    assert (m.jobs, m.successes, m.pass_rate) == (1, 1, 1.0)
    assert queries.l3_metrics(wh, NOW, 14, simulated=True)[REPO].pass_rate == 0.0


def test_ready_only_when_every_gate_is_met(wh):
    empty = judge(wh, history("2027-01-01 L2"))
    assert empty.ready is False and [v.met for v in empty.verdicts] == [False] + [None] * 5  # no data
    ingest(wh, leg(1, started=NOW - 31 * DAY))
    jobs(wh, 10, first_run=10)
    ready = judge(wh)
    assert ready.ready and all(v.met for v in ready.verdicts)
    assert {v.window_days for v in ready.verdicts} == {None, 14}
    ingest(wh, leg(99, conclusion="timed_out", exec_s=6 * HOUR))
    assert judge(wh).ready is False


def test_demotion_looks_at_seven_days_and_three_gates(wh):
    jobs(wh, 10)
    m = queries.l3_metrics(wh, NOW, l3.DEMOTION_WINDOW_DAYS)[REPO]
    demoted, verdicts = l3.demotion(m.as_gates(), m.jobs)
    assert not demoted and [v.gate.key for v in verdicts] == ["e2eTimeS", "timeoutRate", "passRate"]
    assert l3.demotion({}, 0)[0] is True  # a week without jobs: listed for demotion


def test_evaluate_follows_the_reference_directions():
    below, at_least = l3.GATES[1], l3.GATES[5]
    assert (l3.evaluate(below, 10799.9), l3.evaluate(below, 10800)) == (True, False)
    assert (l3.evaluate(at_least, 0.9), l3.evaluate(at_least, 0.8999)) == (True, False)
    assert l3.evaluate(below, None) is None and l3.evaluate(below, float("nan")) is None


# The capacity simulator (crcr/warehouse/capacity.py): judged by this L3 code, in the warehouse.
def _arrivals(n: int, at: float, action: str = "synchronize", labels=()):
    import copy
    import json

    from crcr.dispatch.event import load_dispatch
    from crcr.warehouse.synthetic import EXAMPLES

    template = json.loads((EXAMPLES / "pull_request_synchronize.json").read_text())["client_payload"]
    out = []
    for i in range(n):
        cp = copy.deepcopy(template)
        cp["delivery_id"] = f"cap-{i}"
        cp["payload"]["action"] = action
        pr = cp["payload"]["pull_request"]
        pr.update(number=100 + i, labels=[{"name": x} for x in labels])
        pr["head"]["sha"] = f"{i:040x}"
        out.append((at, load_dispatch(cp)))
    return out


def _sim(devices, arrivals, mode="all", contents=None, **kw):
    from crcr.dispatch.gating import parse_gating
    from crcr.dispatch.plan import Feature
    from crcr.warehouse.capacity import Recorded, Settings, replay

    rec = Recorded({"f": (3600.0,)}, {"f": 1.0})  # one feature: two 30-minute shards a dispatch
    s = Settings(devices, parse_gating(mode), select_share=None, **kw)
    return replay(
        arrivals, [Feature("f", ("configs/f.yaml",))], rec, s, f"capacity/{mode}/D{devices}", contents
    )


def test_the_simulators_l3_figures_are_the_warehouses_on_the_same_legs(wh):
    """The replay's rows, written in bulk, judge as the same legs do when ingested one by one
    the way the handler records them (in_progress, then completed: queue and execution derived)."""
    from dataclasses import replace

    from crcr.warehouse.capacity import judge

    out = _sim(1, _arrivals(3, NOW - DAY))
    (judged,) = judge(wh, [("capacity/all/D1", out)], NOW)
    with wh.exclusive():
        for leg in sorted(out.legs, key=lambda x: x.started_at):
            base = replace(leg, repo="handler/same-legs", queue_time=None, execution_time=None)
            ingest(
                wh,
                replace(base, status="in_progress", finished_at=leg.started_at, conclusion=""),
                settle=False,
            )
            ingest(wh, base, settle=False)
        wh.settle()
    again = queries.l3_metrics(wh, NOW, l3.PROMOTION_WINDOW_DAYS, simulated=True)["handler/same-legs"]
    assert judged.metrics.as_gates() == again.as_gates()
    # one device, three dispatches of two 30-minute legs: queues 0, 1 h, 2 h
    assert judged.metrics.avg_queue_s == pytest.approx(3600.0) and judged.metrics.jobs == 6


def test_the_smallest_pool_that_meets_every_capacity_gate(wh):
    from crcr.dispatch.gating import parse_gating
    from crcr.dispatch.plan import Feature
    from crcr.warehouse.capacity import Recorded, capacity, smallest

    arrivals = _arrivals(4, NOW - DAY)  # 4 PRs at once, 8 legs of 30 min
    rec = Recorded({"f": (3600.0,)}, {"f": 1.0})
    judged = capacity(
        wh,
        arrivals,
        [Feature("f", ("configs/f.yaml",))],
        rec,
        [parse_gating("all")],
        [1, 2, 3, 4],
        select_share=None,
    )
    assert [j.met() for j in judged] == [False, False, True, True]  # avg queue 1.5 h, 45 min, 22.5 min, 0
    assert smallest(judged).outcome.settings.devices == 3


def test_each_pool_is_judged_as_of_its_own_last_finish(wh):
    """One device's backlog of 340 dispatches ends 14 days after a large pool's: judged at one
    shared time, the large pool's legs would fall outside the L3 window (no data)."""
    from crcr.dispatch.gating import parse_gating
    from crcr.dispatch.plan import Feature
    from crcr.warehouse.capacity import Recorded, capacity

    rec = Recorded({"f": (3600.0,)}, {"f": 1.0})
    one, many = capacity(
        wh,
        _arrivals(340, NOW - DAY),
        [Feature("f", ("configs/f.yaml",))],
        rec,
        [parse_gating("all")],
        [1, 1000],
        select_share=None,
    )
    assert one.outcome.last_finish() - many.outcome.last_finish() > l3.PROMOTION_WINDOW_DAYS * DAY
    assert not one.met() and many.metrics is not None and many.met()


def test_gating_supersession_and_reuse_in_the_replay():
    from crcr.callback_client.errors import ConfigError
    from crcr.warehouse.capacity import parse_devices

    t = NOW - DAY
    gated = _sim(2, _arrivals(3, t), "label-or-landed")
    assert gated.gated_out == 3 and not gated.legs
    older, newer = _arrivals(1, t)[0][1], _arrivals(1, t)[0][1]
    newer = replace_sha(newer, "f" * 40)
    out = _sim(1, [(t, older), (t + 600, newer)])  # the newer sync 10 min in: the older run is cut
    kinds = [(leg.delivery_id == older.delivery_id, leg.conclusion) for leg in out.legs]
    assert (True, "cancelled") in kinds and out.dropped == 1 and out.cancelled == 1
    again = _sim(1, [(t, older), (t + 4 * 3600, replace_sha(older, older.sha, "closed"))])
    assert again.reused == 2 and again.saved_s == pytest.approx(3600.0)
    assert (
        _sim(1, [(t, older), (t + 4 * 3600, replace_sha(older, older.sha, "closed"))], reuse=False).reused
        == 0
    )
    # keyed by content where the stream names it: another commit, same core and suite, reused
    later = [(t, older), (t + 4 * 3600, replace_sha(older, "e" * 40))]
    assert _sim(1, later).reused == 0
    assert _sim(1, later, contents=[("c1", "s1"), ("c1", "s1")]).reused == 2
    assert _sim(1, later, contents=[("c1", "s1"), ("c2", "s1")]).reused == 0  # a changed core runs
    assert _sim(1, later, contents=[("c1", "s1"), ("c1", "s2")]).reused == 0  # a changed suite runs
    for bad in ("0", "x", "0-2"):
        with pytest.raises(ConfigError, match="--devices"):
            parse_devices(bad)
    with pytest.raises(ConfigError, match="at least 1"):
        _sim(0, _arrivals(1, t))


def replace_sha(d, sha: str, action: str = "synchronize"):
    """The same PR as `d` at another head (and action): a new delivery."""
    from dataclasses import replace

    return replace(
        d,
        sha=sha,
        action=action,
        delivery_id=f"{d.delivery_id}-{sha[:6]}-{action}",
        landed=action == "closed",
    )


def test_recorded_timings_do_not_depend_on_the_order_legs_were_stored(wh):
    """The simulator draws leg times from these: in the engine's read order they made two
    stream-bench runs of one day differ (issue 43's figures must repeat)."""
    from crcr.warehouse.capacity import recorded_timings

    times = [(600.0, "test-b"), (300.0, "test-a"), (900.0, "test-b"), (120.0, "test-a")]
    for run, (secs, job) in enumerate(times):
        ingest(wh, leg(run, job=job, exec_s=secs, started=NOW - DAY + run))
    first = recorded_timings(wh)
    for run, (secs, job) in enumerate(reversed(times)):
        ingest(wh, leg(run + 10, job=job, exec_s=secs, started=NOW - DAY + 100 - run))
    again = recorded_timings(wh)
    assert first.durations == {"a": (120.0, 300.0), "b": (600.0, 900.0)}
    assert again.durations == {"a": (120.0, 120.0, 300.0, 300.0), "b": (600.0, 600.0, 900.0, 900.0)}
    assert list(again.durations) == ["a", "b"]
