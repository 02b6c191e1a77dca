"""The fault campaign's own logic (tools/bench/fault_campaign.py), no leg run: the seeded draw,
the in-tree suites' arguments, and the judgement of a leg's report."""

import random

import pytest

from testing.results import junit
from testing.results.outcomes import Outcome as Result
from tools.bench import fault_campaign as fc


def test_the_draw_is_seeded_and_trips_inside_a_cards_first_batch():
    legs = fc.draw(random.Random(7), 200, probe_every=11)
    assert legs == fc.draw(random.Random(7), 200, probe_every=11)
    assert {leg.kind for leg in legs} == set(fc.KINDS)
    assert all(fc.PROBE_OPS <= leg.after < 11 * fc.PROBE_OPS for leg in legs)


def test_a_leg_runs_the_in_tree_suites_as_their_generated_target_does():
    root = fc.workspace()
    args = fc.in_tree_args(root, ["tensor_basics"])
    configs = [a.split("=", 1)[1] for a in args if a.startswith("--config=")]
    assert [c.rsplit("/", 2)[-2:] for c in configs] == [
        ["spyre", "device.yaml"],
        ["spyre", "tensor_basics.yaml"],
    ]
    assert args[:3] == ["-p", "testing.plugin", f"--rootdir={root}"]
    assert args[-1] == str(root / "testing/suites/test_tensor_basics.py")
    assert "tensor_basics" in fc.suite_names(root) and "device" not in fc.suite_names(root)


def test_a_suite_and_a_generated_file_are_one_or_the_other():
    with pytest.raises(SystemExit):
        fc.parser(fc.workspace()).parse_args(["--suite", "tensor_basics", "--generated", "12"])
    with pytest.raises(SystemExit):
        fc.parser(fc.workspace()).parse_args(["--suite", "no_such_config"])


def _summary(sick: str = "", card: int = 1) -> dict:
    cards = [{"device": f"spyre:{i}", "state": "healthy", "probe": f"spyre:{i}: healthy"} for i in range(4)]
    if sick:
        cards[card].update(state="poisoned", probe=f"spyre:{card}: {sick}")
    return {"devices": cards}


def _case(outcome: str, device: str) -> junit.Case:
    return junit.Case("m.T", "t", Result(outcome), "0.1", properties={"device": device})


def test_the_faulty_card_named_with_its_kind_and_nothing_charged_is_right():
    leg = fc.Leg("corrupt", 1, 9)
    found = fc.judge(leg, _summary("wrong result: got 4097"), [_case("passed", "spyre:0")], "", 30.0)
    assert (found.right, found.blamed, found.own) == (True, False, 0)
    wrong_kind = fc.judge(leg, _summary("device fault: x"), [], "", 30.0)
    assert not wrong_kind.right


def test_a_failure_on_the_faulty_card_is_blamed_one_on_a_healthy_card_is_the_suites_own():
    leg = fc.Leg("error", 1, 9)
    blamed = fc.judge(leg, _summary("device fault: x"), [_case("failed", "spyre:1")], "", 30.0)
    assert (blamed.right, blamed.blamed) == (False, True)
    own = fc.judge(leg, _summary("device fault: x"), [_case("crashed", "spyre:2")], "", 30.0)
    assert (own.right, own.blamed, own.own) == (True, False, 1)
    not_run = fc.judge(leg, _summary("device fault: x"), [_case("error", "")], "", 30.0)
    assert not_run.blamed  # every card drained: the fault's doing


def test_a_hang_is_timed_from_the_zygotes_line():
    log = "spyre:1: t: hang: no progress for 5s (window 5s: stack unchanged, no CPU, no output)"
    found = fc.judge(fc.Leg("hang", 1, 9), _summary("hang: the probe kernel did not return"), [], log, 30.0)
    assert found.right and found.hang_ratio == 1.0
