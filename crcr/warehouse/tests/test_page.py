"""The HUD page in a real headless Chromium: no console errors, nothing fetched from outside
the machine (plotly is inlined), each chart holds the points the history implies; the same
page from the relay emulator; every panel filled after --simulate-days."""

from __future__ import annotations

from dataclasses import replace

import pytest

from crcr.relay import browser
from crcr.relay.panels import PANELS
from crcr.relay.server import RelayEmulator
from crcr.warehouse import __main__ as cli
from crcr.warehouse.backends import open_warehouse
from crcr.warehouse.ingest import ingest
from crcr.warehouse.tests.history import DAY, NOW, case, leg

COMMITS, FEATURES = 3, ("ops", "more")
CELLS = [("add", "float32"), ("add", "float16"), ("mul", "float32"), ("mul", "float16"), ("div", "float32")]


CARD = "spyre:1"  # the red leg's card (issue 41's device-health panel)
CULPRIT = "9" * 40
# what the handler stores for a red leg (crcr/upstream/bisect.py's JSON; a relay-kept verdict)
VERDICT = {"schema_version": 1, "category": "upstream", "confidence": "high", "summary": "div broke"}
BISECTION = {
    "status": "found",
    "good": "1" * 40,
    "bad": "2" * 40,
    "first_bad": {"sha": CULPRIT, "subject": "div (#90001)", "pr": 90001},
}


@pytest.fixture
def history_dir(tmp_path):
    """3 upstream commits x 2 features; the latest run has 5 op x dtype cells, and fails div:
    the ops leg red (triaged, bisected), the more leg green (its div failure new in scope)."""
    wh = open_warehouse(str(tmp_path / "wh"), {})
    with wh.exclusive():
        for run in range(COMMITS):
            for feature in FEATURES:
                tests = [
                    case(
                        f"test_{op}_{dt}_{feature}",
                        "failed" if (run, op) == (2, "div") else "passed",
                        op=op,
                        dtype=dt,
                    )
                    for op, dt in CELLS
                ]
                red = (run, feature) == (2, "ops")
                ingest(
                    wh,
                    replace(
                        leg(run, tests, job=f"test-{feature}", started=NOW - DAY + run * 600),
                        conclusion="failure" if red else "success",
                        triage_verdict=VERDICT if red else None,
                        bisection=BISECTION if red else None,
                        device=CARD if red else "",
                    ),
                )
    return tmp_path / "wh"


# every cell's text: a value shown as a Python repr, or a missing one as None, fails the page
REPR_CELLS_JS = """() => [...document.querySelectorAll('td')].map(td => td.innerText)
  .filter(t => t.includes("{'") || t.includes("['") || /\bNone\b/.test(t))"""


def check_first_screen(loaded):
    """At 1400 x 900: the red leg's line in view naming verdict, first bad commit and PR;
    a click on its square opens the details panel; no cell shows a repr."""
    page = loaded.page
    red = page.locator("li.red-line").first
    box = red.bounding_box()
    assert box and box["y"] + box["height"] <= 900, box
    text = red.inner_text()
    assert "test-ops" in text and "upstream" in text and "high" in text, text
    assert CULPRIT[:10] in text and "#90001" in text and "1 failing test" in text, text
    assert page.locator("li.red-line a.pr").get_attribute("href").endswith("/pull/90001")
    assert page.is_hidden("aside#details")
    page.click("button.sq.failure")
    assert page.is_visible("aside#details")
    assert "first bad upstream commit" in page.inner_text("aside#details")
    assert page.evaluate(REPR_CELLS_JS) == []
    page.set_viewport_size({"width": 480, "height": 900})  # narrow: only the grid and tables scroll
    assert page.evaluate("document.documentElement.scrollWidth") <= 480
    box = red.bounding_box()
    assert box["x"] + box["width"] <= 480
    page.set_viewport_size({"width": 1400, "height": 900})


def expected_charts():
    return [
        {"chart": "chart-pass-rate", "expected": COMMITS * len(FEATURES), "drawn": COMMITS * len(FEATURES)},
        {"chart": "chart-heatmap", "expected": len(CELLS), "drawn": len(CELLS)},
        {"chart": "chart-devices", "expected": 2, "drawn": 2},  # the card and the unpinned legs, one day
    ]


def test_page_file_in_chromium(history_dir, tmp_path):
    out = tmp_path / "hud.html"
    assert cli.run(["--warehouse", str(history_dir), "page", "--out", str(out)], {}) == 0
    text = out.read_text()
    assert "<script src=" not in text  # plotly inlined; the browser below records any request made
    with browser.load(out.as_uri()) as loaded:
        assert loaded.charts() == expected_charts()
        sections = loaded.page.eval_on_selector_all("section", "s => s.map(x => x.id)")
        assert sections == ["story"] + [f"panel-{p.key}" for p in PANELS]
        check_first_screen(loaded)
        worst = loaded.page.inner_text("#panel-devices tr:nth-child(2)")  # the first row under the head
        assert CARD in worst and "✗ 1 of 5 failed (20.0%)" in worst, worst
        failing = loaded.page.inner_text("#panel-failing")
        assert "failed: ★ new in scope" in failing and failing.count("new in scope") == 1
        assert loaded.page.locator("button.sq.new").count() == 1  # test-more's square
        assert not loaded.page.is_visible("a[href='/api/crcr/results']")  # a file: no dead server link
        assert loaded.errors == [] and loaded.offsite == []


def test_the_relay_emulator_serves_the_same_page(history_dir):
    with RelayEmulator(warehouse=str(history_dir)) as emu:
        with browser.load(f"{emu.url}/hud") as loaded:
            assert loaded.charts() == expected_charts()
            check_first_screen(loaded)  # no job reported to this relay yet: the warehouse's legs
            assert loaded.page.is_visible("a[href='/api/crcr/results']")  # served live
            assert loaded.errors == [] and loaded.offsite == []


def test_every_panel_is_filled_with_simulated_history(tmp_path):
    out, shot = tmp_path / "sim.html", tmp_path / "sim.png"
    argv = [
        "--warehouse",
        str(tmp_path / "wh"),
        "--simulate-days",
        "30",
        "page",
        "--out",
        str(out),
        "--screenshot",
        str(shot),
    ]
    assert cli.run(argv, {"BUILD_WORKSPACE_DIRECTORY": str(_repo_root())}) == 0
    assert shot.stat().st_size > 10_000 and (tmp_path / "sim-first-screen.png").stat().st_size > 10_000
    with browser.load(out.as_uri()) as loaded:
        assert loaded.errors == []
        empty = loaded.page.eval_on_selector_all("section:has(p.empty)", "s => s.map(x => x.id)")
        assert empty == []
        assert "SIMULATED" in loaded.page.inner_text("#panel-dispatches")
        assert "illustration only" in loaded.page.inner_text("#panel-l3")
        diff = loaded.page.inner_text("#panel-promotions pre.diff")  # the plugin's diff to the real config
        assert "+++ configs/spyre/op_consistency.yaml" in diff
        assert '+        - names: ["TestOpConsistency::test_matches_cpu_norm_nuc_spyre_float16"]' in diff
        assert all(c["drawn"] == c["expected"] > 0 for c in loaded.charts())
        assert loaded.page.evaluate(REPR_CELLS_JS) == []
        red = loaded.page.locator("li.red-line").first  # at 1400 x 900, without scrolling
        box = red.bounding_box()
        assert box and box["y"] + box["height"] <= 900, box
        assert "SIMULATED" in loaded.page.inner_text("#story p.dispatch")


def _repo_root():
    from pathlib import Path

    here = Path(__file__).resolve()
    return next(p for p in here.parents if (p / "configs").is_dir())


def test_a_hud_row_takes_its_own_runs_warehouse_facts(history_dir):
    """A second local cycle re-dispatches the same delivery: its HUD row is joined with its
    own run's leg (backend, bisection), never the older run's; with no run id, the newest."""
    from crcr.relay.hud_rows import joined
    from crcr.warehouse import queries

    wh = open_warehouse(str(history_dir), {})
    with wh.exclusive():
        ingest(wh, replace(leg(2, job="test-ops", started=NOW), run_id="9", backend_sha="c" * 40))
        legs = queries.recent_legs(wh)
    row = {"delivery_id": "delivery-2", "job_name": "test-ops"}
    (older,) = joined([{**row, "run_id": "2"}], legs)
    (newer,) = joined([{**row, "run_id": "9"}], legs)
    (newest,) = joined([row], legs)
    assert older["backend_sha"] == "b" * 40 and older["bisection"] == BISECTION
    assert newer["backend_sha"] == newest["backend_sha"] == "c" * 40 and newer["bisection"] is None


def test_red_lines_from_an_older_dispatch_say_which(history_dir):
    """The newest dispatch all green: the first screen heads with it, says it has no red leg,
    and tells the red lines of the newest red one under that dispatch's own header."""
    from crcr.relay.panels import PageContext, warehouse_page

    wh = open_warehouse(str(history_dir), {})
    with wh.exclusive():
        ingest(wh, leg(7, [case("test_add", "passed")], job="test-ops", started=NOW - DAY + 3600, pr=90100))
        page = warehouse_page(wh, PageContext(NOW))
    story = page[page.index('<section id="story">') : page.index("</section>")]
    newest, older = story.split('<p class="dispatch red-dispatch">')
    assert "/pull/90100" in newest and "no red leg in this dispatch" in newest and "red-line" not in newest
    assert f"{2:040x}"[:10] in older and '<li class="red-line" data-job="test-ops">' in older


OLD_LEGS = 100_000  # legs older than the page's horizon: a year and more of them


def test_the_page_never_reads_every_leg_ever_stored(history_dir):
    """Issue 43: the page's cost is its horizon's, not the warehouse's age. Beside the history,
    OLD_LEGS committed legs started before the horizon; no query of the page reads that many
    rows (chdb's own count of the rows each query read)."""
    from crcr.relay.panels import PageContext, warehouse_page

    wh = open_warehouse(str(history_dir), {})
    before = int(NOW - 200 * DAY)
    wh.query(
        f"""INSERT INTO {wh.db}.legs (ingest_id, leg_key, repo, delivery_id, run_id, run_attempt, job_name,
        started_at, finished_at, conclusion, status, passed, simulated)
        SELECT 10000000 + number, concat('old/', toString(number)), 'acme/oot-ci', concat('old-', toString(number)),
        toString(number), 1, 'test-ops', toDateTime({before} + number), toDateTime({before} + number + 600),
        'success', 'completed', 5, number % 2 FROM numbers({OLD_LEGS})"""
    )
    reads = []
    query = wh.query

    def counted(sql):
        rows = query(sql)
        reads.append((wh.last_read[0], sql.split("FROM", 1)[0][:80]))
        return rows

    wh.query = counted
    page = warehouse_page(wh, PageContext(NOW))
    assert "test-ops" in page
    assert '<p class="sim-banner">' not in page  # the old simulated legs are not the page's
    assert len(reads) > 10
    assert max(reads)[0] < OLD_LEGS, max(reads)
