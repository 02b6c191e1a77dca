"""The relay emulator's own pipeline: a callback pair and its state machine, tokens, allowlist
levels, the rate limit, nightly reports, routes, the HUD page, fault injection, the zombie
sweeper (protocol: docs/crcr-protocol.md)."""

import pytest
import requests

from crcr.callback_client.body import RunContext, completed_body, in_progress_body, nightly_body
from crcr.relay.issuer import AuthFailed, Issuer, new_key
from crcr.relay.ratelimit import SlidingWindow
from crcr.relay.server import RelayEmulator
from crcr.tests.relay_helpers import ALLOW, dispatch, post


def test_full_pair_with_times_and_hud_row(emu, fresh_payload):
    token = emu.relay.issuer.mint("acme/oot")
    assert dispatch(emu, "acme/oot", fresh_payload) == 200
    assert dispatch(emu, "acme/oot", fresh_payload) == 409  # duplicate DISPATCHED refused
    ctx = RunContext("CRCR", "55", "test-a", "c1")
    assert post(emu, in_progress_body(fresh_payload, ctx), token) == (
        200,
        {"ok": True, "status": "in_progress"},
    )
    done = completed_body(
        fresh_payload, ctx, "success", test_results={"passed": 5, "failed": 1, "skipped": 2}
    )
    assert post(emu, done, token)[0] == 200
    rows = [
        r
        for r in requests.get(emu.url + "/api/crcr/results?repo=acme/oot").json()["rows"]
        if r["delivery_id"] == fresh_payload["delivery_id"]
    ]
    assert len(rows) == 1
    row = rows[0]
    assert (row["status"], row["conclusion"], row["tests_total"], row["pr_number"]) == (
        "completed",
        "success",
        8,
        184442,
    )
    assert row["queue_time"] >= 0 and row["execution_time"] >= 0  # in_progress metric survives the upsert


@pytest.mark.parametrize(
    "sequence,expected",
    [
        (["in_progress", "in_progress"], [200, 400]),  # replay
        (["completed"], [400]),  # completed without in_progress
        (["in_progress", "completed", "completed"], [200, 200, 400]),
        (["in_progress", "completed", "in_progress"], [200, 200, 400]),
    ],
)
def test_state_machine(emu, fresh_payload, sequence, expected):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    ctx = RunContext("CRCR", "56", "leg", "c2")
    got = []
    for status in sequence:
        body = (
            in_progress_body(fresh_payload, ctx)
            if status == "in_progress"
            else completed_body(fresh_payload, ctx, "success")
        )
        code, answer = post(emu, body, token)
        got.append(code)
        if code == 400:
            assert "state transition" in answer["detail"]
    assert got == expected


def test_matrix_legs_need_distinct_job_names_and_reruns_get_fresh_state(emu, fresh_payload):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    base = RunContext("CRCR", "57", "test", "c3")
    assert post(emu, in_progress_body(fresh_payload, base.for_leg("test-a", "ca")), token)[0] == 200
    assert post(emu, in_progress_body(fresh_payload, base.for_leg("test-b", "cb")), token)[0] == 200
    assert post(emu, in_progress_body(fresh_payload, base.for_leg("test-a", "cz")), token)[0] == 400
    rerun = RunContext("CRCR", "57", "test-a", "c4", run_attempt="2")
    assert post(emu, in_progress_body(fresh_payload, rerun), token)[0] == 200


def test_no_dispatch_record(emu, fresh_payload):
    code, answer = post(
        emu,
        in_progress_body(fresh_payload, RunContext("CRCR", "1", "j", "c")),
        emu.relay.issuer.mint("acme/oot"),
    )
    assert (code, answer["detail"]) == (400, "callback rejected: no matching dispatch record")


@pytest.mark.parametrize(
    "bad,detail",
    [
        ("audience", "Invalid authorization token"),
        ("buildkite", "Invalid authorization token"),  # a known issuer whose JWKS we do not have
        ("issuer", "Unsupported OIDC issuer: https://evil.example"),
        ("signature", "Invalid authorization token"),
        ("garbage", "Unsupported OIDC issuer: None"),
        ("expired", "Invalid authorization token"),
        ("no-repository", "GitHub OIDC token missing 'repository' claim"),
    ],
)
def test_bad_tokens_are_401_with_the_relays_detail(emu, fresh_payload, bad, detail):
    iss = emu.relay.issuer
    token = {
        "audience": lambda: iss.mint("acme/oot", audience="someone-else"),
        "buildkite": lambda: iss.mint("acme/oot", issuer="https://agent.buildkite.com"),
        "issuer": lambda: iss.mint("acme/oot", issuer="https://evil.example"),
        "signature": lambda: iss.mint("acme/oot", key=new_key()),
        "garbage": lambda: "not.a.jwt",
        "expired": lambda: iss.mint("acme/oot", lifetime=-120),
        "no-repository": lambda: iss.mint(None),
    }[bad]()
    dispatch(emu, "acme/oot", fresh_payload)
    code, answer = post(emu, in_progress_body(fresh_payload, RunContext("CRCR", "1", "j", "c")), token)
    assert (code, answer) == (401, {"detail": detail})


def test_another_issuers_jwks_does_not_verify():
    own = Issuer()
    assert own.verify(own.mint("acme/oot")) == "acme/oot"
    with pytest.raises(AuthFailed, match="Invalid authorization token"):
        Issuer().verify(Issuer().mint("acme/oot"))


def test_levels_l1_and_unlisted_are_ignored(emu, fresh_payload):
    body = in_progress_body(fresh_payload, RunContext("CRCR", "1", "j", "c"))
    for repo in ("acme/onboarding", "acme/unlisted", "ACME/oot"):  # exact, case-sensitive
        assert post(emu, body, emu.relay.issuer.mint(repo)) == (200, {"ok": True, "status": "ignored"})


def test_l3_check_run_only_with_device_label(emu, fresh_payload):
    token = emu.relay.issuer.mint("acme/l3")
    labels = fresh_payload["payload"]["pull_request"]["labels"]
    labels[:] = [x for x in labels if not x["name"].startswith("ciflow/crcr/")]
    dispatch(emu, "acme/l3", fresh_payload)
    before = len(emu.relay.check_runs)
    assert (
        post(emu, in_progress_body(fresh_payload, RunContext("CRCR", "58", "test-x", "c5")), token)[0] == 200
    )
    assert len(emu.relay.check_runs) == before
    labels.append({"name": "ciflow/crcr/spyre"})
    assert (
        post(emu, in_progress_body(fresh_payload, RunContext("CRCR", "58", "test-y", "c6")), token)[0] == 200
    )
    run = emu.relay.check_runs[-1]
    assert (run["name"], run["title"], run["external_id"], run["details_url"]) == (
        "crcr/acme/l3/CRCR/test-y",
        "In progress",
        "58",
        "https://github.com/acme/l3/actions/runs/58",
    )


def test_rate_limit_window_counts_refused_requests():
    now = [0.0]
    w = SlidingWindow(limit=100, window=60, clock=lambda: now[0])
    assert all(w.allow("r") for _ in range(100))
    assert not w.allow("r") and w.allow("other")
    small = SlidingWindow(limit=2, window=10, clock=lambda: now[0])
    got = []
    for t in (0, 0, 5, 6, 10, 16):
        now[0] = float(t)
        got.append(small.allow("r"))
    # at t=10 the two accepted hits of t=0 left the window, but the refusals of t=5 and t=6
    # still count (the relay adds every request to its sorted set before counting)
    assert got == [True, True, False, False, False, True]


def test_rate_limit_429_over_http(fresh_payload):
    with RelayEmulator(ALLOW) as e:
        token = e.relay.issuer.mint("acme/oot")
        body = in_progress_body(fresh_payload, RunContext("CRCR", "1", "j", "c"))
        codes = [post(e, body, token) for _ in range(101)]
    assert codes[-1] == (429, {"detail": "rate limit exceeded for acme/oot"})
    assert all(c == 400 for c, _ in codes[:100])  # counted even though rejected later


def test_nightly_self_report(emu):
    token = emu.relay.issuer.mint("acme/oot")
    ctx = RunContext("Nightly", "9", "nightly-all", "n1")
    body = nightly_body(
        "nightly", "a" * 40, ctx, "success", test_results={"passed": 3, "failed": 0, "skipped": 0}
    )
    assert post(emu, body, token)[0] == 200
    body["workflow"]["status"] = "in_progress"
    assert post(emu, body, token)[0] == 400


def test_routes_and_bodies(emu):
    r = requests.get(emu.url + "/github/callback")
    assert (r.status_code, r.json(), r.headers["Allow"]) == (405, {"detail": "Method Not Allowed"}, "POST")
    r = requests.post(emu.url + "/github/other", data="{}")
    assert (r.status_code, r.json()) == (404, {"detail": "Not Found"})
    r = requests.post(emu.url + "/github/callback", data="{nope")  # JSON is parsed before auth
    assert (r.status_code, r.json()) == (400, {"detail": "Invalid JSON body"})
    r = requests.post(emu.url + "/github/callback", data="{}")
    assert (r.status_code, r.json()) == (401, {"detail": "Missing authorization token"})
    assert requests.get(emu.url + "/.well-known/jwks").json()["keys"][0]["kty"] == "RSA"


def test_hud_page_lists_jobs_and_escapes_payload_strings(emu, fresh_payload):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    ctx = RunContext("CRCR", "59", "<script>alert(1)</script>", "c6")
    post(emu, in_progress_body(fresh_payload, ctx), token)
    page = requests.get(emu.url + "/hud").text
    assert "&lt;script&gt;" in page and "<script>alert" not in page
    assert "PR #184442" in page and ': in progress">' in page  # the square's label


@pytest.mark.parametrize("fault,code", [("5xx", 503), ("429", 429), ("hud_5xx", 500)])
def test_fault_injection(emu, fresh_payload, fault, code):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    requests.post(emu.url + "/_emulator/faults", json={"script": [fault]})
    body = in_progress_body(fresh_payload, RunContext("CRCR", "60", "j", "c"))
    assert post(emu, body, token)[0] == code
    # 5xx/429 happen before processing; hud_5xx after the state is saved (retry -> 400 duplicate)
    assert post(emu, body, token)[0] == (400 if fault == "hud_5xx" else 200)


def test_dropped_response(emu, fresh_payload):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    requests.post(emu.url + "/_emulator/faults", json={"script": ["drop"]})
    with pytest.raises(requests.ConnectionError):
        post(emu, in_progress_body(fresh_payload, RunContext("CRCR", "61", "j", "c")), token)


def test_bad_fault_config(emu):
    assert requests.post(emu.url + "/_emulator/faults", json={"rate": 2}).status_code == 400
    assert requests.post(emu.url + "/_emulator/faults", json={"kinds": ["meteor"]}).status_code == 400
    for bad in ({"kinds": "5xx"}, {"hud_retries": -1}, {"latency": "soon"}):
        assert requests.post(emu.url + "/_emulator/faults", json=bad).status_code == 400, bad


def test_zombie_sweeper_times_out_stale_jobs(fresh_payload):
    with RelayEmulator(ALLOW) as emu:  # its own relay: the sweep touches every job
        token = emu.relay.issuer.mint("acme/oot")
        dispatch(emu, "acme/oot", fresh_payload)
        ctx = RunContext("CRCR", "62", "zombie", "cz")
        assert post(emu, in_progress_body(fresh_payload, ctx), token)[0] == 200
        assert requests.post(emu.url + "/_emulator/sweep", json={"timeout": 3600}).json()["timed_out"] == 0
        assert requests.post(emu.url + "/_emulator/sweep", json={"timeout": 0}).json()["timed_out"] == 1
        (row,) = emu.relay.hud.rows("acme/oot")
        assert (row["status"], row["conclusion"]) == ("completed", "timed_out")
        assert post(emu, completed_body(fresh_payload, ctx, "success"), token)[0] == 400  # too late


def test_queue_time_is_carried_by_the_first_job_of_each_run_attempt(emu, fresh_payload):
    """The relay measures queue time per run: dispatch -> the run's first in_progress, on that
    job only; its other jobs get null. A re-run attempt's first job carries its own, still from
    the original dispatch (crcr-triage-and-levels.md §c.6, §d.4)."""
    token = emu.relay.issuer.mint("acme/oot")
    assert dispatch(emu, "acme/oot", fresh_payload) == 200
    for attempt, job in (("1", "build"), ("1", "test-a"), ("1", "test-b"), ("2", "test-a"), ("2", "test-b")):
        ctx = RunContext("CRCR", "5150", job, f"{job}-{attempt}", run_attempt=attempt)
        assert post(emu, in_progress_body(fresh_payload, ctx), token)[0] == 200
    rows = {
        (r["run_attempt"], r["job_name"]): r
        for r in emu.relay.hud.rows("acme/oot")
        if r["delivery_id"] == fresh_payload["delivery_id"]
    }
    carried = {k for k, r in rows.items() if r.get("queue_time") is not None}
    assert carried == {(1, "build"), (2, "test-a")}
    assert rows[(2, "test-a")]["queue_time"] >= rows[(1, "build")]["queue_time"]  # from the original dispatch


def test_the_emulator_writes_each_request_token_to_a_private_file_and_never_prints_it(tmp_path):
    import os
    import re
    import stat
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), TMPDIR=str(tmp_path))
    argv = [sys.executable, "-m", "crcr.relay", "--port", "0", "--repo", "a/b", "--repo", "c/d"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
    finally:
        proc.kill()
        proc.wait()
    url = re.search(r"HUD: (http://127\.0\.0\.1:\d+)/hud", lines[0])
    assert url, lines
    for repo, line in zip(("a/b", "c/d"), lines[1:]):
        path = re.search(rf"request token for {repo}: in (\S+)$", line.rstrip()).group(1)
        token = open(path).read().strip()
        assert len(token) > 8 and token not in "".join(lines)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700


@pytest.mark.parametrize(
    "payload,sha",
    [
        ({"pull_request": {"number": 7, "head": {"sha": "a" * 40}}, "head_sha": "b" * 40}, "a" * 40),
        ({"head_sha": "b" * 40, "after": "c" * 40}, "b" * 40),  # a nightly self-report
        ({"ref": "refs/heads/main", "after": "c" * 40}, "c" * 40),  # a push: the commit pushed
        ({"ref": "refs/heads/main"}, "delivery-9"),
    ],
)
def test_hud_takes_the_commit_of_a_row_as_hud_does(payload, sha):
    from crcr.relay.hud import hud_record

    callback = {
        "delivery_id": "delivery-9",
        "event_type": "push",
        "payload": payload,
        "workflow": {"job_name": "test-a", "check_run_id": 1, "status": "completed"},
    }
    envelope = {"trusted": {"verified_repo": "acme/oot"}, "untrusted": {"callback_payload": callback}}
    assert hud_record(envelope)["pytorch_head_sha"] == sha
