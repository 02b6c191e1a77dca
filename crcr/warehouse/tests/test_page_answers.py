"""The page's questions answer exactly what they answered before they were made to read less
(issue 44's 100 M-row work): every page question, bounded by the page's horizon as the page
asks it, on simulated histories (seeded: the last 12 days, and 3 days across the horizon's
edge 88-91 days ago), compared whole with the answers recorded
(`page_answers.json`) from the code before that work (commit 3851576). Re-record only for a
deliberate change of an answer: `python -m crcr.warehouse.tests.test_page_answers`."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from crcr.relay.panels import PageContext
from crcr.warehouse import queries
from crcr.warehouse.backends import open_warehouse
from crcr.warehouse.simulate import write_history
from crcr.warehouse.tests.history import DAY, NOW

RECORDED = Path(__file__).with_name("page_answers.json")

# (days, ending that long ago, seed): recent history, and a stretch across the 90-day horizon
HISTORIES = ((12, 0, 7), (3, 88, 8))


def answers(wh, now: float) -> dict:
    """Every question the page asks, as the page asks it, as JSON values."""
    ctx = PageContext(now)
    since = ctx.since
    asked = {
        "dispatches": queries.dispatches(wh, 30, since=since),
        "recent_legs": queries.recent_legs(wh, 30, since),
        "pass_rate": queries.pass_rate_over_commits(wh, 40, since),
        "heatmap": queries.heatmap_latest(wh, since),
        "flaky": queries.flaky(wh, now, ctx.flaky_days),
        "promotions": queries.promotion_candidates(wh, ctx.k, since=since),
        "failing": queries.failing_tests(wh, 100, since),
        "l3": [queries.l3_standings(wh, now, {}, sim, since) for sim in (False, True)],
        "devices": queries.device_health(wh, since),
    }
    return json.loads(json.dumps(asked, default=_plain))


def _plain(value):
    if dataclasses.is_dataclass(value):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    return repr(value)


def simulated(path: Path):
    wh = open_warehouse(str(path), {})
    for days, ago, seed in HISTORIES:
        write_history(wh, days, NOW - ago * DAY, seed=seed)
    return wh


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    wh = simulated(tmp_path_factory.mktemp("answers") / "wh")
    yield wh
    wh.close()


QUESTIONS = (
    "dispatches",
    "recent_legs",
    "pass_rate",
    "heatmap",
    "flaky",
    "promotions",
    "failing",
    "l3",
    "devices",
)


@pytest.mark.parametrize("question", QUESTIONS)
def test_each_page_question_answers_as_recorded(warehouse, question):
    with warehouse.exclusive():
        now = answers(warehouse, NOW)
    assert now[question] == json.loads(RECORDED.read_text())[question]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        wh = simulated(Path(tmp) / "wh")
        with wh.exclusive():
            RECORDED.write_text(json.dumps(answers(wh, NOW), indent=1, sort_keys=True) + "\n")
        wh.close()
    print(f"recorded {RECORDED}")
