"""`recorded, HUD unconfirmed` reaches every surface: the CLI line, the leg summary line,
the results JSON, the local cycle (exit code 5 when HUD lacks a row), and the nightly's started_at.

Each scenario is reproduced with the emulator's fault injection (a HUD 5xx after the
state save, so the retry meets the 400 duplicate)."""

import json
import os
import subprocess
import sys
import uuid

import pytest
from rich.console import Console

from crcr.dispatch.allowlist import Entry
from crcr.dispatch.event import load_dispatch
from crcr.handler import cycle
from crcr.handler import main as handler
from crcr.relay.server import RelayEmulator
from crcr.tests import actions

REPO = "acme/oot"
HUD_DOWN_ON_COMPLETED = {"script": ["none", "hud_5xx"], "hud_backoff": 0}
LEG = """
import sys, pathlib
pathlib.Path(sys.argv[1]).write_text("<testsuite><testcase name='a'/><testcase name='b'/></testsuite>")
"""


@pytest.fixture
def emu():
    with RelayEmulator({REPO: Entry(REPO, "L2")}) as e:
        yield e


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "WORKSPACE").write_text("")
    (tmp_path / "configs").mkdir()
    for name in ("ops", "modules"):
        (tmp_path / "configs" / f"{name}.yaml").write_text(
            "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/testing/suites/test_x.py\n"
        )
    script = tmp_path / "leg.py"
    script.write_text(LEG)
    return tmp_path


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setattr(cycle, "console", Console(stderr=True, width=400))


def leg_args(ws):
    return [
        "--workspace",
        str(ws),
        "--runner",
        "pytest",
        "--test-command",
        f"{{python}} {ws / 'leg.py'} {{junit}}",
    ]


def cli(args, env):
    full = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), **env)
    full.pop("GITHUB_EVENT_PATH", None)
    return subprocess.run(
        [sys.executable, "-m", "crcr.callback_client", *args, "--backoff", "0.01"],
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


def actions_env(emu, tmp_path, cp):
    return actions.actions_env(
        emu,
        tmp_path,
        cp,
        REPO,
        GITHUB_ACTIONS="true",
        ACTIONS_ID_TOKEN_REQUEST_URL=emu.token_request_url,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN=emu.request_token_for(REPO),
    )


def test_cli_prints_the_unconfirmed_outcome_and_an_actions_warning(emu, tmp_path, pr_payload):
    cp = dict(pr_payload, delivery_id=str(uuid.uuid4()))
    emu.relay.dispatch(REPO, cp)
    emu.configure_faults(HUD_DOWN_ON_COMPLETED)
    env = actions_env(emu, tmp_path, cp)
    assert cli(["in-progress", "--job-name", "leg"], env).returncode == 0
    # the results JSON of `run-leg --report` may be passed as-is: its "callback" note is dropped
    done = cli(
        [
            "completed",
            "--job-name",
            "leg",
            "--conclusion",
            "success",
            "--test-results",
            '{"passed": 2, "failed": 0, "skipped": 0, "callback": "delivered"}',
        ],
        env,
    )
    assert done.returncode == 0, done.stderr
    assert "completed leg: recorded, HUD unconfirmed (HTTP 400, 2 attempts)" in done.stdout
    assert "::warning::completed leg: recorded by the relay, HUD unconfirmed" in done.stderr
    (row,) = emu.relay.hud.rows(REPO)
    assert row["status"] == "in_progress" and [s["relay_state"] for s in emu.relay.stale_jobs()] == [
        "completed"
    ]


def test_run_leg_summary_line_and_results_json(emu, ws, tmp_path, capsys):
    emu.relay.dispatch(REPO, load_dispatch(json.loads(handler.EXAMPLE.read_text())).client_payload)
    env = {
        "GITHUB_REPOSITORY": REPO,
        "CRCR_STATE_DIR": str(tmp_path / "state"),
        "ACTIONS_ID_TOKEN_REQUEST_URL": emu.token_request_url,
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": emu.request_token_for(REPO),
    }
    results = tmp_path / "r.json"
    emu.configure_faults(HUD_DOWN_ON_COMPLETED)
    code = handler.run(
        [
            "run-leg",
            "--upstream",
            "none",
            "--leg",
            "0",
            "--report",
            "--relay-url",
            emu.url,
            "--results-out",
            str(results),
            *leg_args(ws),
        ],
        env,
    )
    assert code == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("test-modules:"))
    assert line.startswith("test-modules: success (2 passed") and line.endswith(
        "; callbacks: recorded, HUD unconfirmed"
    )
    data = json.loads(results.read_text())
    assert (data["passed"], data["failed"], data["callback"]) == (2, 0, "recorded, HUD unconfirmed")
    code = handler.run(
        [
            "run-leg",
            "--upstream",
            "none",
            "--leg",
            "1",
            "--report",
            "--relay-url",
            emu.url,
            "--results-out",
            str(results),
            *leg_args(ws),
        ],
        env,
    )
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("test-ops:"))
    assert code == 0 and line.endswith("; callbacks: delivered")
    assert json.loads(results.read_text())["callback"] == "delivered"


def test_local_cycle_exits_5_when_hud_lacks_a_completed_row(ws, tmp_path, capsys):
    out = tmp_path / "out"
    env = {
        "CRCR_STATE_DIR": str(tmp_path / "state"),
        cycle.EMULATOR_FAULTS_ENV: json.dumps(HUD_DOWN_ON_COMPLETED),
    }
    assert handler.run(["--out", str(out), *leg_args(ws)], env) == cycle.EXIT_HUD_MISSING
    err = capsys.readouterr().err
    assert "test-modules: callbacks recorded, HUD unconfirmed" in err
    assert "HUD is missing completed rows for: test-modules" in err
    assert "recorded, HUD unconfirmed" in err.split("CRCR legs", 1)[1]  # the summary table's callbacks column
    page = (out / "hud.html").read_text()
    assert "STALE: relay has completed, HUD never confirmed" in page
    # without the fault: every row arrives, exit 0
    assert (
        handler.run(
            ["--out", str(tmp_path / "out2"), *leg_args(ws)], {"CRCR_STATE_DIR": str(tmp_path / "s2")}
        )
        == 0
    )


def test_bad_emulator_fault_env_is_one_line_exit_2(ws, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CRCR_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv(cycle.EMULATOR_FAULTS_ENV, '{"kinds": ["meteor"]}')
    assert handler.main(["--out", str(tmp_path / "o"), *leg_args(ws)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert (
        err == "dispatch_handler: $CRCR_EMULATOR_FAULTS: unknown fault kind 'meteor'; known: "
        "5xx, 429, drop, latency, hud_5xx, hud_slow, none"
    )


def test_nightly_carries_started_at(emu, tmp_path):
    env = actions_env(emu, tmp_path, {})
    env.pop("CLIENT_PAYLOAD")
    r = cli(
        [
            "nightly",
            "--sha",
            "d" * 40,
            "--conclusion",
            "success",
            "--job-name",
            "nightly-a",
            "--started-at",
            "2026-05-04T20:48:28Z",
        ],
        env,
    )
    assert r.returncode == 0, r.stderr
    r = cli(
        ["nightly", "--sha", "d" * 40, "--conclusion", "success", "--job-name", "nightly-b"],
        dict(env, CRCR_STARTED_AT="2026-05-04T21:00:00Z"),
    )
    assert r.returncode == 0, r.stderr
    r = cli(["nightly", "--sha", "d" * 40, "--conclusion", "success", "--job-name", "nightly-c"], env)
    assert r.returncode == 0, r.stderr
    rows = {row["job_name"]: row for row in emu.relay.hud.rows(REPO)}
    assert rows["nightly-a"]["started_at"] == "2026-05-04T20:48:28Z"
    assert rows["nightly-b"]["started_at"] == "2026-05-04T21:00:00Z"
    assert rows["nightly-c"]["started_at"] <= rows["nightly-c"]["completed_at"]  # defaults to the report time
    # a bad start time (often from the environment) is a warning, never a lost report
    bad = cli(
        ["nightly", "--sha", "d" * 40, "--conclusion", "success", "--job-name", "nightly-d"],
        dict(env, CRCR_STARTED_AT="yesterday"),
    )
    assert bad.returncode == 0 and "started_at 'yesterday' is not an ISO-8601 UTC time" in bad.stderr
    row = next(r for r in emu.relay.hud.rows(REPO) if r["job_name"] == "nightly-d")
    assert row["started_at"] <= row["completed_at"]


def test_relay_url_without_a_recorded_dispatch_says_what_is_missing(emu, ws, tmp_path, capsys, monkeypatch):
    # --relay-url needs the dispatch recorded by the relay first; the 400 now points there.
    monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
    monkeypatch.setenv("CRCR_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_URL", emu.token_request_url)
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", emu.request_token_for(REPO))
    argv = ["run-leg", "--upstream", "none", "--leg", "0", "--report", "--relay-url", emu.url]
    code = handler.main([*argv, *leg_args(ws)])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 3
    assert "no matching dispatch record" in err and "A relay you started" in err
