"""Alternating turns over real child processes: the order of the turns, and every way a child
can fail (dies, stalls, answers garbage or an error) as one ChildError, never a hang, with
the child killed and reaped."""

import os
import sys
import time

import pytest

from tools.bench.turns import TIMING, Child, ChildError, rounds, spreads, turn

# A child engine: `time <q>` answers with the (system-wide) monotonic clock as its wall time,
# so the test can read the order of the turns; the other verbs misbehave on purpose.
ENGINE = """
import json, os, sys, time
from tools.bench.turns import channel, serve

out = channel()
print("an engine that prints to stdout")  # must not reach the replies
if sys.argv[1] == "garbage-ready":
    out.write("ingest done!\\n")
    out.flush()
    time.sleep(60)
serve(out, {"rows": 7}, {
    "time": lambda q: {"wall": time.monotonic(), "cpu": 0.0, "answer": [sys.argv[1], q]},
    "floor": lambda _: {"wall": time.monotonic(), "cpu": 0.0, "answer": 1},
    "die": lambda _: os._exit(3),
    "stall": lambda _: time.sleep(60),
    "fail": lambda _: int("x"),
    "short": lambda _: {"wall": 1.0},
    "garbage": lambda _: out.write("[1, 2]\\n") and {"wall": 1.0},
})
"""


def engine(name: str) -> Child:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return Child(name, [sys.executable, "-c", ENGINE, name], env)


def test_turns_alternate_by_round_and_question():
    a, b = engine("a"), engine("b")
    with a, b:
        assert a.answer("ingest", 60, ["rows"]) == {"rows": 7}
        b.answer("ingest", 60, ["rows"])
        runs = rounds((a, b), ["q1", "q2", "q3"], 4, 5, 60)
        assert a.finish() > 0 and b.finish() > 0  # peak RSS in MB
    assert turn((a, b), 0) == (a, b) and turn((a, b), 1) == (b, a)
    for i, q in enumerate(["q1", "q2", "q3"]):
        assert [t["answer"] for t in runs["b"][q]] == [["b", q]] * 4
        a_first = [x["wall"] < y["wall"] for x, y in zip(runs["a"][q], runs["b"][q])]
        assert a_first == [(r + i) % 2 == 0 for r in range(4)]
    assert [x["wall"] < y["wall"] for x, y in zip(runs["a"]["floor"], runs["b"]["floor"])] == [
        True,
        False,
        True,
        False,
        True,
    ]


def test_spreads_are_the_lowest_and_highest_turn_ratio():
    a = {"q": [{"wall": 1.0}, {"wall": 3.0}, {"wall": 2.0}]}
    b = {"q": [{"wall": 4.0}, {"wall": 3.0}, {"wall": 1.0}]}
    assert spreads(a, b) == {"q": (0.25, 2.0)}


@pytest.mark.parametrize(
    "command, says",
    [
        ("die", "the e child died (exit 3) at 'die'"),
        ("stall", "the e child gave no answer to 'stall' in 1 s"),
        ("fail", "the e child failed at 'fail': ValueError: invalid literal"),
        ("short", "the e child answered garbage to 'short': '{\"wall\": 1.0}'"),
        ("garbage", "the e child answered garbage to 'garbage': '[1, 2]'"),
        ("bogus", "the e child failed at 'bogus': unknown command 'bogus'"),
    ],
)
def test_a_failing_child_is_one_error_and_is_killed(command, says):
    begun = time.monotonic()
    with engine("e") as child:
        child.answer("ingest", 60)
        with pytest.raises(ChildError) as err:
            child.ask(command, 1, TIMING)
    assert str(err.value).startswith(says) and "\n" not in str(err.value)
    assert child.proc.returncode is not None  # reaped: killed if it was still running
    assert time.monotonic() - begun < 30


def test_a_child_that_is_not_ready_is_killed_on_the_way_out():
    with pytest.raises(ChildError, match="answered garbage to 'ingest': 'ingest done!'"):
        with engine("garbage-ready") as child:
            child.answer("ingest", 60, ["rows"])
    assert child.proc.returncode == -9  # it was sleeping: killed by its PID
