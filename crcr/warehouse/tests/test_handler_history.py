"""The handler's hook: every leg of a local cycle (and of run-leg) is ingested; the warehouse
persists across runs, so the second run's HUD page shows two dispatches; a leg whose JUnit
is truncated is `results incomplete` and red."""

from __future__ import annotations

import re

import pytest

from crcr.handler import main as handler
from crcr.warehouse import queries
from crcr.warehouse.backends import open_warehouse

FEATURE_YAML = "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/testing/suites/test_x.py\n"
FAKE_LEG = """
import pathlib, sys
junit, config = sys.argv[1], sys.argv[2]
props = "<properties><property name='op' value='add'/><property name='dtype' value='float32'/></properties>"
cases = f"<testcase classname='pkg.TestA' name='test_one'>{props}</testcase><testcase classname='pkg.TestA' name='test_two'/>"
text = f"<testsuites><testsuite>{cases}</testsuite></testsuites>"
if "broken" in config:
    text = text[:90]  # the report was cut off
pathlib.Path(junit).write_text(text)
"""


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "WORKSPACE").write_text("")
    (tmp_path / "configs").mkdir()
    for name in ("ops", "broken"):
        (tmp_path / "configs" / f"{name}.yaml").write_text(FEATURE_YAML)
    (tmp_path / "fake_leg.py").write_text(FAKE_LEG)
    return tmp_path


def cycle(ws, tmp_path, *extra, env=None):
    argv = [
        "--workspace",
        str(ws),
        "--out",
        str(tmp_path / "out"),
        "--runner",
        "pytest",
        "--upstream",
        "none",
    ]
    argv += ["--test-command", f"{{python}} {ws / 'fake_leg.py'} {{junit}} {{config}}", *extra]
    env = {"CRCR_STATE_DIR": str(tmp_path / "state"), "OOT_WAREHOUSE": str(tmp_path / "wh"), **(env or {})}
    return handler.run(argv, env)


def test_two_runs_of_the_main_command_make_two_dispatches_of_history(ws, tmp_path):
    assert cycle(ws, tmp_path) == 1  # the broken leg is red: its results are incomplete
    wh = open_warehouse(str(tmp_path / "wh"), {})
    (first,) = queries.dispatches(wh)
    assert (first.legs, first.legs_green, first.incomplete, first.passed) == (2, 1, 1, 2)
    assert cycle(ws, tmp_path) == 1
    history = queries.dispatches(wh)
    assert len(history) == 2 and {d.run_id for d in history} != {first.run_id}
    page = (tmp_path / "out" / "hud.html").read_text()  # the second run's HUD snapshot
    table = re.search(r'<section id="panel-dispatches">.*?</section>', page, re.S).group(0)
    assert table.count("<tr>") == 1 + 2  # header + two dispatches
    assert 'data-chart="chart-pass-rate"' in page and 'data-chart="chart-heatmap"' in page
    legs = wh.query(
        f"SELECT job_name, conclusion, results, level, runner FROM {wh.db}.legs WHERE status = 'completed' ORDER BY job_name"
    )
    assert sorted(set(legs)) == [
        ("test-broken", "failure", "incomplete", "L2", "pytest"),
        ("test-ops", "success", "complete", "L2", "pytest"),
    ]
    (add,) = queries.history(wh, op="add")[-1:]
    assert add.outcomes == {"passed": 2}  # one op test per run, both runs at the same upstream SHA


def test_run_leg_records_its_leg_once(ws, tmp_path):
    argv, actions = ["run-leg", "--leg", "1"], {"GITHUB_RUN_ID": "4242", "GITHUB_WORKFLOW": "crcr"}
    assert cycle(ws, tmp_path, *argv, env=actions) == 0
    assert cycle(ws, tmp_path, *argv, env=actions) == 0  # the same CI leg again: one copy
    wh = open_warehouse(str(tmp_path / "wh"), {})
    assert [(d.legs, d.passed) for d in queries.dispatches(wh)] == [(1, 2)]


def test_the_main_command_takes_the_simulation_flag(ws, tmp_path):
    assert cycle(ws, tmp_path, "--simulate-days", "2") == 1
    wh = open_warehouse(str(tmp_path / "wh"), {})
    history = queries.dispatches(wh, 100)
    assert sum(d.simulated for d in history) == 2 * 3  # three simulated dispatches a day
    assert [d.simulated for d in history if d.repo != "simulated/oot-ci"] == [False]  # the real run
    page = (tmp_path / "out" / "hud.html").read_text()
    assert "SIMULATED" in page and "illustration only" in page
    assert queries.l3_metrics(wh, history[0].finished_at + 1, 14)["local/oot-ci"].jobs == 2  # real only


def test_a_cycle_records_each_legs_in_progress_before_it_runs(ws, tmp_path):
    """As the relay keeps a job: an in_progress row per leg, written at its in_progress callback
    (before the leg runs); the queue on the run's first leg only; each completed row's start
    and execution time from its in_progress row."""
    cycle(ws, tmp_path)
    wh = open_warehouse(str(tmp_path / "wh"), {})
    rows = wh.query(
        f"""SELECT job_name, status, queue_time, execution_time, toUnixTimestamp(started_at), ingest_id
        FROM {wh.db}.legs"""
    )
    by = {(r[0], r[1]): r for r in rows}
    assert sorted(by) == [(j, s) for j in ("test-broken", "test-ops") for s in ("completed", "in_progress")]
    first, second = sorted({r[0] for r in rows}, key=lambda j: by[(j, "in_progress")][5])  # ingest order
    assert by[(first, "in_progress")][2] is not None and by[(second, "in_progress")][2] is None
    for job in (first, second):
        begun, done = by[(job, "in_progress")], by[(job, "completed")]
        assert begun[5] < done[5] and done[4] == begun[4]  # written first; the same start
        assert done[2] == begun[2] and done[3] is not None and begun[3] is None


def test_a_ci_leg_starts_its_in_progress_row_when_the_job_sent_in_progress(ws, tmp_path):
    """The workflow sends in_progress first (before checkout and build) and exports its time;
    run-leg's in_progress row starts there, its completed row measures from it, and the
    handler's own run is kept apart (the set-up share); a CI leg has no dispatch time: no queue."""
    import time

    sent = int(time.time()) - 600  # ten minutes of checkout, core and build before the handler
    env = {"GITHUB_RUN_ID": "77", "GITHUB_WORKFLOW": "crcr", "CRCR_IN_PROGRESS_AT": str(sent)}
    assert cycle(ws, tmp_path, "run-leg", "--leg", "1", env=env) == 0
    wh = open_warehouse(str(tmp_path / "wh"), {})
    rows = wh.query(
        f"""SELECT status, toUnixTimestamp(started_at), queue_time, execution_time, leg_seconds
        FROM {wh.db}.legs ORDER BY status DESC"""
    )
    (begun, done) = rows
    assert begun[:3] == ("in_progress", sent, None) and done[:3] == ("completed", sent, None)
    assert done[3] >= 600 and done[4] < 60  # the leg itself took seconds
    (standing,) = queries.l3_standings(wh, time.time(), {})
    assert standing.setup_share is not None and standing.setup_share > 0.9


def test_a_malformed_in_progress_time_is_one_line(tmp_path):
    from crcr.callback_client.errors import ConfigError

    env = {"HOME": str(tmp_path), "CRCR_IN_PROGRESS_AT": "soon"}
    with pytest.raises(ConfigError, match=r"^\$CRCR_IN_PROGRESS_AT: 'soon' is not epoch seconds$"):
        handler.parse_options(["run-leg", "--leg", "1"], env)


def test_run_leg_reports_in_progress_before_checkout_and_core_resolution(ws, tmp_path, monkeypatch):
    """--report: the leg's in_progress callback (and then its warehouse row) comes before
    `prepare` (the upstream checkout and core overlay), which runs inside the leg's work."""
    seen = []
    real = handler.prepare

    def prepare(*args, **kw):
        wh = open_warehouse(str(tmp_path / "wh"), {})
        try:
            seen.append(wh.query(f"SELECT status FROM {wh.db}.legs"))
        finally:
            wh.close()
        return real(*args, **kw)

    monkeypatch.setattr(handler, "prepare", prepare)
    assert cycle(ws, tmp_path, "run-leg", "--leg", "1", "--report") == 0
    assert seen == [[("in_progress",)]]


def test_each_leg_is_recorded_at_the_level_its_history_gives(ws, tmp_path, capsys):
    """#40: with a level history naming the repo, a leg's level is the history's at its start,
    not $CRCR_LEVEL's; a history of another repo changes nothing; a bad file is one line."""
    history = tmp_path / "levels.txt"
    history.write_text("repo acme/oot-ci\n2026-01-05 L1\n2026-02-01 L2\n2026-06-01 L3\n")
    argv, actions = (
        ["run-leg", "--leg", "1", "--level-history", str(history)],
        {
            "GITHUB_RUN_ID": "4242",
            "GITHUB_WORKFLOW": "crcr",
            "GITHUB_REPOSITORY": "acme/oot-ci",
            "CRCR_LEVEL": "L2",
        },
    )
    assert cycle(ws, tmp_path, *argv, env=actions) == 0
    assert (
        cycle(ws, tmp_path, *argv, env={**actions, "GITHUB_REPOSITORY": "other/repo", "GITHUB_RUN_ID": "43"})
        == 0
    )
    wh = open_warehouse(str(tmp_path / "wh"), {})
    rows = wh.query(f"SELECT repo, status, level FROM {wh.db}.legs ORDER BY repo, status")
    assert rows == [
        ("acme/oot-ci", "completed", "L3"),
        ("acme/oot-ci", "in_progress", "L3"),
        ("other/repo", "completed", "L2"),
        ("other/repo", "in_progress", "L2"),
    ]
    history.write_text("repo acme/oot-ci\n2026-02-01 L5\n")
    assert (
        handler.main(["plan", "--workspace", str(ws), "--upstream", "none", "--level-history", str(history)])
        == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"dispatch_handler: {history}:2: unknown level 'L5' (expected one of L1, L2, L3, L4)"
