"""The pool's queue (tools/shard/devices.py) with its cards' batches and probes faked: work a
card gives back reaches a waiting card at once, not after the giving card's probe."""

import threading

from testing.supervisor import health
from tools.shard import devices
from tools.shard.merge_junit import Attempt

WAIT = 10.0  # seconds: far longer than the handover takes, short enough to fail a test


def test_tests_given_back_before_a_probe_run_on_a_waiting_card_during_that_probe(tmp_path):
    pool = devices.Pool(
        devices.DevicePlan(devices=("0", "1"), probe_every=3), [], tmp_path, lambda line: None
    )
    started, waiting, rerun = threading.Event(), threading.Event(), threading.Event()
    ran_on_1: list[str] = []

    def run_batch(card, batch):
        if card.number == "0":  # hangs in its first test once card 1 waits for work: the rest unfinished
            started.set()
            assert waiting.wait(WAIT)
            return {batch[0]: Attempt("crashed", 1.0, None, "hang")}, batch[1:], {}
        ran_on_1.extend(batch)
        (rerun if "t1" in batch else waiting).set()
        checked = {key: {"state": health.HEALTHY} for key in batch}  # each proven good: no probe
        return {key: Attempt("passed", 0.1, None) for key in batch}, [], checked

    def probe(card, when):  # card 0's probe after its hang: sick, once card 1 re-ran its tests
        if when == "at start":  # card 0 takes the first batch (t0-t2), card 1 the rest (t3)
            return card.number == "0" or started.wait(WAIT)
        if not rerun.wait(WAIT):
            return True  # the handover waited for this probe: t0's hang stays its own, failing below
        pool._drain(card, health.Health("spyre:0", health.HANG, "faked"))
        return False

    pool._run_batch, pool._probe = run_batch, probe
    attempts = pool.run(["t0", "t1", "t2", "t3"])
    assert ran_on_1 == ["t3", "t1", "t2", "t0"]
    assert [a.outcome for a in attempts["t0"]] == ["error", "passed"]  # spoiled (infra), re-run on card 1
    assert attempts["t0"][0].detail.startswith(devices.INFRA)
