"""failed-tests-detail and triage-verdict end to end: the composite action's real script
running the real `crcr-callback` against the relay/HUD emulator, and the emulator's own
handling of both fields as the relay's (sanitize the verdict in place, drop it whole on
one violation, never fail the callback; pass failed tests through)."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import requests
from ruamel.yaml import YAML

from crcr.callback_client.body import RunContext, completed_body, in_progress_body
from crcr.callback_client.verdict_rules import relay_keeps
from crcr.dispatch.allowlist import Entry
from crcr.relay.server import RelayEmulator

REPO = "acme/oot"
ACTION = Path(__file__).resolve().parents[2] / ".github" / "actions" / "crcr-callback" / "action.yml"


@pytest.fixture
def emu():
    with RelayEmulator({REPO: Entry(REPO, "L2")}) as e:
        yield e


@pytest.fixture
def cp(emu, pr_payload):
    payload = dict(pr_payload, delivery_id=str(uuid.uuid4()))
    emu.relay.dispatch(REPO, payload)
    return payload


def verdict(**over):
    v = {
        "schema_version": 1,
        "category": "upstream",
        "confidence": "high",
        "summary": "first bad commit 6a99c39d6d45 (nn.Flatten, PR #90001)",
        "suspected_upstream": {"pr": 90001, "commit": "6a99c39d6d45"},
        "evidence": [{"job": "test-nn", "test": "test_flatten", "log_url": "https://ci.example/run/1"}],
    }
    v.update(over)
    return v


def action_run(tmp_path, emu, cp, status, **inputs):
    """The action's "Report" step, its env as action.yml maps the inputs, with the real client."""
    step = next(
        s
        for s in YAML(typ="safe").load(ACTION.read_text())["runs"]["steps"]
        if s["name"].startswith("Report")
    )
    shim = tmp_path / "bin" / "crcr-callback"
    shim.parent.mkdir(exist_ok=True)
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m crcr.callback_client "$@" --backoff 0.05\n')
    shim.chmod(0o755)
    env = {
        "PATH": f"{shim.parent}:/usr/bin:/bin",
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        "HOME": str(tmp_path),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_WORKFLOW": "CRCR",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_RUN_ATTEMPT": "1",
        "ACTIONS_ID_TOKEN_REQUEST_URL": emu.token_request_url,
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": emu.request_token_for(REPO),
        "CLIENT_PAYLOAD": json.dumps(cp),
        "CRCR_CALLBACK_URL": emu.url,
        "CRCR_JOB_NAME": "test-upstream-nn",
        "CRCR_CHECK_RUN_ID": "77",
        "CRCR_STATE_DIR": str(tmp_path / "state"),
        "STATUS": status,
        "CONCLUSION": "failure" if status == "completed" else "",
        "RESULTS_FILE": "",
        "JUNIT": "",
        "ARTIFACT_URL": "",
        "EVENT_TYPE": "",
        "DELIVERY_ID": "",
        "FAILED_TESTS_DETAIL": "",
        "TRIAGE_VERDICT": "",
        "FAILED_TESTS_FILE": "",
        "VERDICT_FILE": "",
        **inputs,
    }
    return subprocess.run(["bash", "-c", step["run"]], env=env, capture_output=True, text=True, timeout=120)


def hud_row(emu):
    (row,) = [r for r in emu.relay.hud.rows(REPO) if r.get("status") == "completed"]
    return row


def test_action_sends_both_fields_from_files_capped_and_trimmed(tmp_path, emu, cp):
    mark = tmp_path / "PWNED"
    evil = f"$(touch {mark})"
    cases = "".join(
        f'<testcase classname="test.nn.T" name="t{i}"><failure message="{evil} \xff">trace</failure></testcase>'
        for i in range(1200)
    )
    junit = tmp_path / "leg.xml"
    junit.write_bytes(
        f"<testsuite>{cases}<testcase classname='test.nn.T' name='ok'/></testsuite>".encode("latin-1")
    )
    long_url = "https://ci.example/run/" + "a" * 600  # valid: the relay cuts it to 500 and keeps it
    summary = f"{evil} upstream regression " + "x" * 1200  # the relay cuts it to 1000, no marker
    vfile = tmp_path / "verdict.json"
    vfile.write_text(json.dumps(verdict(summary=summary, evidence=[{"job": "j", "log_url": long_url}])))
    r1 = action_run(tmp_path, emu, cp, "in_progress")
    r2 = action_run(tmp_path, emu, cp, "completed", JUNIT=str(junit), VERDICT_FILE=str(vfile))
    assert (r1.returncode, r2.returncode) == (0, 0), r1.stderr + r2.stderr
    assert "1200 failed tests, the first 1000 sent" in r2.stderr and "not UTF-8" in r2.stderr
    assert "triage verdict" not in r2.stderr  # kept: nothing to warn about
    assert not mark.exists()
    row = hud_row(emu)
    assert (row["tests_failed"], row["tests_passed"]) == (1200, 1)  # counts and detail from one read
    detail = json.loads(row["failed_tests_json"])
    assert len(detail) == 1000 and detail[0]["name"] == "t0" and "\ufffd" in detail[0]["message"]
    stored = json.loads(row["triage_verdict_json"])
    assert stored["summary"] == summary[:1000] and stored["evidence"] == [
        {"job": "j", "log_url": long_url[:500]}
    ]
    assert emu.relay.verdict_drops == []
    page = requests.get(f"{emu.url}/hud", timeout=5).text
    assert "triage: upstream/high" in page and "failed: test.nn.T::t0" in page and "(+995 more)" in page
    # the payload's text shown as text: the page's own script is its only one
    assert "$(touch" in page.replace("&#x27;", "'") and page.count("<script") == 1


def test_action_inline_inputs_follow_the_relay_action(tmp_path, emu, cp):
    action_run(tmp_path, emu, cp, "in_progress")
    ok = action_run(
        tmp_path,
        emu,
        cp,
        "completed",
        FAILED_TESTS_DETAIL=json.dumps([{"name": "t1", "classname": "C", "message": "m" * 5000}]),
        TRIAGE_VERDICT="{not json",
    )
    assert ok.returncode == 0, ok.stderr
    assert "ignoring invalid TRIAGE_VERDICT" in ok.stderr
    row = hud_row(emu)
    (entry,) = json.loads(row["failed_tests_json"])
    assert len(entry["message"].encode()) <= 1024 and row["triage_verdict_json"] == ""


@pytest.mark.parametrize(
    "inputs, warning",
    [
        ({"FAILED_TESTS_DETAIL": '{"name": "t"}'}, "FAILED_TESTS_DETAIL left out: not a JSON array"),
        ({"FAILED_TESTS_DETAIL": "[" * 5000}, "FAILED_TESTS_DETAIL is not valid JSON"),
        (
            {"TRIAGE_VERDICT": json.dumps(verdict(evidence=[{"job": "j"}] * 10 + [7]))},
            None,  # the 11th entry is never inspected: kept, without it
        ),
        (
            {"TRIAGE_VERDICT": json.dumps(verdict(evidence=[7]))},
            "triage verdict left out: the relay would drop it (evidence[0] must be an object)",
        ),
        (
            {"TRIAGE_VERDICT": json.dumps(verdict(evidence="j"))},
            "triage verdict left out: the relay would drop it (evidence must be an array)",
        ),
    ],
)
def test_no_input_costs_the_completed_callback(tmp_path, emu, cp, inputs, warning):
    action_run(tmp_path, emu, cp, "in_progress")
    r = action_run(tmp_path, emu, cp, "completed", **inputs)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().splitlines() == ([] if warning is None else [r.stderr.strip()])
    assert warning is None or warning in r.stderr
    row = hud_row(emu)
    assert row["conclusion"] == "failure" and row["failed_tests_json"] == ""
    raw = json.loads(inputs.get("TRIAGE_VERDICT", "null"))
    stored = json.loads(row["triage_verdict_json"] or "null")
    assert stored == relay_keeps(raw)[0]


def post(emu, body):
    token = emu.relay.issuer.mint(REPO)
    r = requests.post(
        f"{emu.url}/github/callback",
        data=json.dumps(body),
        timeout=10,
        headers={"Authorization": f"Bearer {token}"},
    )
    return r.status_code, r.json()


@pytest.mark.parametrize(
    "raw, kept",
    [
        (verdict(schema_version=" 1 ", category=" upstream ", future="x"), True),
        (verdict(evidence=[{"job": "j", "log_url": "ftp://ci.example/1"}]), False),
        (verdict(summary="x" * 17000), False),
        (verdict(category="Upstream"), False),
        (verdict(category="backend"), False),  # suspected_upstream on a non-upstream verdict
        (None, False),
    ],
)
def test_emulator_keeps_or_drops_the_verdict_as_the_relay(emu, cp, raw, kept):
    ctx = RunContext("CRCR", "4242", "test-nn", "77")
    assert post(emu, in_progress_body(cp, ctx))[0] == 200
    body = completed_body(cp, ctx, "failure")
    body["workflow"]["triage_verdict"] = raw  # as sent by some other client, unfitted
    body["workflow"]["failed_tests_detail"] = [{"name": f"t{i}"} for i in range(1500)]
    assert post(emu, body) == (200, {"ok": True, "status": "completed"})  # never fails the callback
    row = hud_row(emu)
    assert len(json.loads(row["failed_tests_json"])) == 1500  # the relay never reads or caps it
    if kept:
        stored = json.loads(row["triage_verdict_json"])
        assert stored["schema_version"] == 1 and stored["category"] == "upstream" and "future" not in stored
    else:
        assert row["triage_verdict_json"] == ""
        assert len(emu.relay.verdict_drops) == (0 if raw is None else 1)
        assert all(
            d.startswith(f"dropped invalid triage_verdict from repo={REPO}: ")
            for d in emu.relay.verdict_drops
        )


def test_missing_input_files_are_warnings_never_a_lost_callback(tmp_path, emu, cp):
    from crcr.callback_client import __main__ as cli

    env = {
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_WORKFLOW": "CRCR",
        "GITHUB_RUN_ID": "4242",
        "CLIENT_PAYLOAD": json.dumps(cp),
        "CRCR_CALLBACK_URL": emu.url,
        "CRCR_STATE_DIR": str(tmp_path / "state"),
        "TOKEN": emu.relay.issuer.mint(REPO),
    }
    common = ["--job-name", "test-nn", "--token-env", "TOKEN"]
    assert cli.run(["in-progress", *common], env) == 0
    gone = str(tmp_path / "gone.json")
    code = cli.run(
        [
            "completed",
            *common,
            "--conclusion",
            "failure",
            "--junit",
            gone,
            "--triage-verdict-file",
            gone,
            "--failed-tests-detail-file",
            gone,
        ],
        env,
    )
    assert code == 0 and hud_row(emu)["conclusion"] == "failure"
