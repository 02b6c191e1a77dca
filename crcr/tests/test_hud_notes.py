"""Emulator-only HUD notes (the handler's attribution on a job's cell): stored on the
matching rows only, escaped when rendered, and a POST for no row is a 404."""

import requests

from crcr.relay.hud import HudStore, render_page
from crcr.relay.server import RelayEmulator


def test_note_lands_on_its_rows_and_is_escaped():
    hud = HudStore()
    base = {
        "downstream_repo": "a/b",
        "workflow_name": "CRCR",
        "check_run_id": "1",
        "status": "completed",
        "conclusion": "failure",
    }
    for delivery, job in (("d1", "test-nn"), ("d1", "test-ops"), ("d2", "test-nn")):
        hud.upsert({**base, "delivery_id": delivery, "job_name": job, "key": f"a/b/{delivery}/CRCR/{job}/1"})
    assert hud.annotate("d1", "test-nn", "only upstream moved: a..b; <script>x</script>") == 1
    notes = {(r["delivery_id"], r["job_name"]): r.get("note") for r in hud.rows()}
    assert notes[("d1", "test-ops")] is None and notes[("d2", "test-nn")] is None
    page = render_page(hud.rows())
    assert (
        "only upstream moved: a..b" in page
        and "&lt;script&gt;x&lt;/script&gt;" in page
        and "<script>x" not in page  # the page's own script is the only one
    )
    assert hud.annotate("nope", "test-nn", "x") == 0


def test_notes_route():
    with RelayEmulator() as emu:
        r = requests.post(
            f"{emu.url}/_emulator/notes", json={"delivery_id": "x", "job_name": "y", "note": "z"}, timeout=10
        )
        assert r.status_code == 404 and r.json() == {"ok": False, "rows": 0}


def test_a_red_leg_without_an_upstream_culprit_names_what_moved():
    """The first screen's red line: no bisection and no suspected upstream change (the backend
    moved), so it shows the attribution's words from the note, not a blank culprit."""
    row = {
        "downstream_repo": "a/b",
        "delivery_id": "d1",
        "job_name": "test-nn",
        "status": "completed",
        "conclusion": "failure",
        "tests_failed": 3,
        "note": "core: exact; backend moved: 8d3c54c9cfd1..ba0df4328063 (upstream 4fabc6cbb26d..527d7f633ccd)",
    }
    page = render_page([row])
    line = page[page.index('<li class="red-line"') :].split("</li>")[0]
    assert "backend moved: 8d3c54c9cfd1..ba0df4328063" in line and "3 failing tests" in line


def test_the_capability_bucket_is_on_the_leg_line_and_its_square(tmp_path):
    """Schema 6 (#42): a warehouse leg's tests skipped for a capability the device answered
    unsupported are counted on its square's details and on its red line, apart from skips."""
    from dataclasses import replace

    from crcr.relay.hud_rows import rows_of
    from crcr.warehouse.queries import LegRow

    leg = LegRow(
        "a/b",
        "d1",
        "r1",
        "test-nn",
        1,
        "pull_request",
        7,
        "f" * 40,
        "b" * 40,
        1_700_000_000,
        "failure",
        "completed",
        13,
        3,
        2,
        "complete",
        None,
        60.0,
        50.0,
        None,
        None,
        False,
    )
    (row,) = rows_of([replace(leg, capability_skipped=1)])
    page = render_page([row])
    line = page[page.index('<li class="red-line"') :].split("</li>")[0]
    assert "3 failing tests · 1 skipped: capability unsupported" in line
    assert "13/18 passed, 3 failed, 1 skipped: capability unsupported" in page
    (plain,) = rows_of([leg])  # none: nothing said
    assert "capability" not in render_page([plain])
