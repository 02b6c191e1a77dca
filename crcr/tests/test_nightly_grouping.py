"""One nightly run is one line on the HUD (issue #40; downstream-practice.md §2, HUD's
nightlyMatrix.ts): every job of one nightly or periodic self-report carries the tested SHA
as `delivery_id` and `payload.head_sha`, so HUD keys them to one upstream commit. A reporter
with per-job delivery ids showed up as one run per job (vLLM: 65 runs for one build)."""

import subprocess
import sys

import requests

from crcr.callback_client import api
from crcr.callback_client.body import RunContext
from crcr.relay.hud import render_page
from crcr.tests.actions import cli_env
from crcr.tests.relay_helpers import post

REPO = "acme/oot"
SHA = "0123456789abcdef0123456789abcdef01234567"


def test_every_job_of_one_nightly_run_is_one_hud_line(emu, tmp_path):
    """Three jobs of one workflow run: two through the real CLI (as the composite action calls
    it), one through the API; then the page has one nightly line holding all three cells."""
    token = emu.relay.issuer.mint(REPO)
    env = cli_env(emu, tmp_path, None, REPO, token, GITHUB_WORKFLOW="CRCR nightly", GITHUB_RUN_ID="9001")
    for job, conclusion in (("nightly-spyre-full", "success"), ("nightly-spyre-torch-2.14.1", "failure")):
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "crcr.callback_client",
                "nightly",
                "--sha",
                SHA,
                "--conclusion",
                conclusion,
            ],
            env=dict(env, CRCR_JOB_NAME=job, CRCR_CHECK_RUN_ID=job),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr
    client = api.client_from_env(emu.url, token, REPO, tmp_path / "state", env)
    try:
        ctx = RunContext("CRCR nightly", "9001", "nightly-skip-audit", "c3")
        assert api.self_report(client, "nightly", SHA, ctx, "success").http_status == 200
    finally:
        client.close()
    rows = [r for r in emu.relay.hud.rows(REPO) if r.get("run_id") == "9001"]
    assert len(rows) == 3
    assert {(r["delivery_id"], r["pytorch_head_sha"], r["event_type"]) for r in rows} == {
        (SHA, SHA, "nightly")
    }
    page = render_page(rows)
    assert page.count("<tr><th>nightly ") == 1 and f"nightly {SHA[:12]}" in page
    assert all(f"<th>{r['job_name']}</th>" in page for r in rows)
    assert requests.get(f"{emu.url}/hud", timeout=5).text.count(f"nightly {SHA[:12]}") == 1


def test_a_body_carries_the_sha_twice_and_hud_falls_back_to_the_run(emu):
    """Bodies as another reporter may send them: per-job delivery ids with the same head_sha
    still make one line (HUD reads payload.head_sha first); without any SHA, HUD's fallback is
    the run_id, still one line per run."""
    token = emu.relay.issuer.mint(REPO)
    for i, (delivery, head) in enumerate(((f"job-{i}", SHA) for i in range(2))):
        body = {
            "event_type": "periodic",
            "delivery_id": delivery,
            "payload": {"repository": {"full_name": "pytorch/pytorch"}, "head_sha": head},
            "workflow": {
                "schema_version": "1",
                "status": "completed",
                "conclusion": "success",
                "name": "P",
                "run_id": "77",
                "job_name": f"p{i}",
                "check_run_id": f"p{i}",
            },
        }
        assert post(emu, body, token)[0] == 200
    for i in range(2):
        body = {
            "event_type": "periodic",
            "delivery_id": f"buildkite-{i}",
            "payload": {"repository": {"full_name": "pytorch/pytorch"}},
            "workflow": {
                "schema_version": "1",
                "status": "completed",
                "conclusion": "failure" if i else "success",
                "name": "P",
                "run_id": "78",
                "job_name": "same",
                "check_run_id": f"q{i}",
            },
        }
        assert post(emu, body, token)[0] == 200
    rows = [r for r in emu.relay.hud.rows(REPO) if r.get("run_id") in ("77", "78")]
    page = render_page(rows)
    assert page.count(f"periodic {SHA[:12]}") == 1 and page.count("periodic run 78") == 1
    # equal attempts of one job: the worse outcome wins the cell, as nightlyMatrix.ts does
    line = page[page.index("periodic run 78") :].split("</tr>")[0]
    assert "failure" in line and "success" not in line
