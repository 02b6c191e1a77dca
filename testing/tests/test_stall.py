"""Hang vs slow vs crash, judged from samples (stall.py) and on real forked children
(supervisor.py with a StallPolicy, sampling.py's stack dumps and /proc CPU time)."""

import os
import time

import pytest

from testing.supervisor.children import Forked
from testing.supervisor.events import Begin, Crashed, End, Finished, Planned, Writer
from testing.supervisor.stall import HANG, SLOW, TIMEOUT, Sample, StallPolicy, Watch, slow_rerun
from testing.supervisor.supervisor import supervise


def _samples(watch, stacks, cpus, outputs, step=1.0):
    for i, (stack, cpu, out) in enumerate(zip(stacks, cpus, outputs)):
        watch.add(Sample(at=i * step, stack=stack, cpu=cpu, output=out))


def test_a_window_without_any_change_is_a_hang():
    watch = Watch(StallPolicy(window=3), began=0.0)
    _samples(watch, ["s"] * 5, [1.0] * 5, [10] * 5)
    assert watch.verdict(now=2.9) is None
    assert watch.verdict(now=3.0) == HANG


@pytest.mark.parametrize(
    "stacks, cpus, outputs",
    [
        (["a", "b", "a", "b", "a"], [1.0] * 5, [10] * 5),  # the stack moves
        (["s"] * 5, [1.0, 2.0, 3.0, 4.0, 5.0], [10] * 5),  # a native loop burns CPU
        (["s"] * 5, [1.0] * 5, [10, 20, 30, 40, 50]),  # it keeps printing
    ],
)
def test_any_signal_of_progress_makes_it_slow_not_hung(stacks, cpus, outputs):
    watch = Watch(StallPolicy(window=3, budget=2), began=0.0)
    _samples(watch, stacks, cpus, outputs)
    assert watch.verdict(now=4.5) == SLOW


def test_a_stopped_test_past_its_budget_is_a_timeout_until_a_whole_window_proves_a_hang():
    watch = Watch(StallPolicy(window=10, budget=2), began=0.0)
    _samples(watch, ["s"] * 4, [1.0] * 4, [10] * 4)
    assert watch.verdict(now=3.5) == TIMEOUT  # not moving, but not still for a window either
    assert watch.verdict(now=10.0) == HANG


def test_cpu_below_the_noise_floor_is_not_progress():
    watch = Watch(StallPolicy(window=3), began=0.0)
    _samples(watch, ["s"] * 5, [1.0, 1.01, 1.02, 1.03, 1.04], [10] * 5)
    assert watch.verdict(now=4.0) == HANG


@pytest.mark.parametrize("window, budget", [(0, None), (-1, None), (1, 0), (1, -5)])
def test_a_window_or_budget_that_is_not_positive_is_refused(window, budget):
    with pytest.raises(ValueError, match="must be positive"):
        StallPolicy(window=window, budget=budget)


def test_slow_is_rerun_once_and_never_when_slow_again():
    assert slow_rerun(None, SLOW) and not slow_rerun(SLOW, SLOW) and not slow_rerun(None, HANG)


def _child(behaviour):
    def run(fd):
        out = Writer(fd)
        out.send(Planned(["t"]))
        out.send(Begin("t"))
        if behaviour == "hang":
            time.sleep(600)  # waits in C: the stack never moves, no CPU, no output
        elif behaviour == "slow":
            end = time.monotonic() + 600
            while time.monotonic() < end:  # busy and changing: progress
                sum(range(1000))
        elif behaviour == "abort":
            os.abort()
        out.send(End("t"))
        out.send(Finished())
        return 0

    return run


def _trouble(tmp_path, behaviour, policy):
    seen = []
    started = time.monotonic()
    supervise(lambda p: Forked(_child(behaviour), str(tmp_path / "c.log")), seen.append, stall=policy)
    crashed = [e for e in seen if isinstance(e, Crashed)]
    return crashed, time.monotonic() - started


def test_a_real_hang_is_told_within_the_window(tmp_path):
    crashed, took = _trouble(tmp_path, "hang", StallPolicy(window=2.0, budget=60))
    assert [c.trouble for c in crashed] == ["hang"]
    assert crashed[0].why.startswith("hang: no progress for ")
    assert took < 2.0 * 1.1 + 1.5  # the window, one sampling interval, the fork and the kill


def test_a_real_busy_test_past_its_budget_is_slow_not_hung(tmp_path):
    crashed, _ = _trouble(tmp_path, "slow", StallPolicy(window=1.5, budget=3.0))
    assert [c.trouble for c in crashed] == ["slow"]
    assert crashed[0].why == "slow: still making progress past its 3s budget"


def test_a_real_stopped_test_past_a_short_timeout_keeps_the_watchdogs_words(tmp_path):
    seen = []
    launch = lambda p: Forked(_child("hang"), str(tmp_path / "c.log"))  # noqa: E731
    supervise(launch, seen.append, stall=StallPolicy(window=300), timeout=1.0)
    crashed = [e for e in seen if isinstance(e, Crashed)]
    assert [(c.trouble, c.why) for c in crashed] == [
        ("timeout", "timeout: no result after 1s (watchdog killed the worker)")
    ]


def test_a_real_crash_stays_a_crash(tmp_path):
    crashed, _ = _trouble(tmp_path, "abort", StallPolicy(window=2.0))
    assert [(c.trouble, c.why) for c in crashed] == [("crash", "signal 6 (SIGABRT)")]


def test_a_tests_own_window_is_applied_to_it_alone(tmp_path):
    """A unit's own window (a config's hang_window, by node id) over the run's 300 s."""
    policy = StallPolicy(window=300, budget=600, windows={"t": 2.0})
    assert policy.for_unit("t").window == 2.0 and policy.for_unit("other").window == 300
    crashed, took = _trouble(tmp_path, "hang", policy)
    assert [c.trouble for c in crashed] == ["hang"] and "(window 2s:" in crashed[0].why
    assert took < 2.0 * 1.1 + 1.5
    with pytest.raises(ValueError, match="must be positive, got 0"):
        StallPolicy(windows={"t": 0})
