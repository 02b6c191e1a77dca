import json
import logging

import pytest

from crcr.callback_client.body import RunContext, completed_body, in_progress_body
from crcr.callback_client.budget import RateBudget, wait_needed
from crcr.callback_client.client import (
    DELIVERED,
    RECORDED_HUD_UNCONFIRMED,
    CallbackClient,
    callback_url,
    worst_label,
)
from crcr.callback_client.errors import (
    CallbackRejected,
    ConfigError,
    DeliveryPending,
    RelayError,
    TransportError,
)
from crcr.callback_client.oidc import ActionsOidcToken, StaticToken
from crcr.callback_client.outbox import Outbox
from crcr.callback_client.retry import default_policy
from crcr.callback_client.transport import MockTransport, Request, Response

SECRET = "eyJ.secret-token-value.sig"
CTX = RunContext("CRCR", "123", "test-ops", "77")


def scripted(*answers):
    """Transport answering from a list: an int status, a (status, detail) pair or an exception."""
    calls = []

    def handler(req: Request) -> Response:
        calls.append(req)
        a = answers[min(len(calls), len(answers)) - 1]
        if isinstance(a, Exception):
            raise a
        status, detail = a if isinstance(a, tuple) else (a, "")
        return Response(
            status, json.dumps({"detail": detail} if detail else {"ok": True, "status": "x"}).encode()
        )

    return MockTransport(handler), calls


def make(tmp_path, transport, total=4):
    return CallbackClient(
        "http://relay.invalid/",
        StaticToken(SECRET),
        "acme/oot",
        outbox=Outbox(tmp_path),
        transport=transport,
        policy=default_policy(total=total, backoff=0.01, jitter=0.01),
        budget=RateBudget(limit=1000),
        sleep=lambda s: None,
    )


def test_callback_url_normalisation():
    assert callback_url("http://h:1/") == "http://h:1/github/callback"
    assert callback_url("http://h:1/github/callback/") == "http://h:1/github/callback"


@pytest.mark.parametrize("first", [429, 500, 502, 503, TransportError("reset")])
def test_retries_transient_then_delivers(tmp_path, pr_payload, first):
    transport, calls = scripted(first, 200)
    out = make(tmp_path, transport).post(in_progress_body(pr_payload, CTX))
    assert (out.result, out.attempts, len(calls), out.hud_confirmed) == (DELIVERED, 2, 2, True)
    assert not list(tmp_path.glob("c-*.json"))


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_other_4xx_is_not_retried_and_is_kept_aside(tmp_path, pr_payload, status):
    transport, calls = scripted((status, "invalid state transition: none -> COMPLETED"))
    client = make(tmp_path, transport)
    with pytest.raises(CallbackRejected):
        client.post(in_progress_body(pr_payload, CTX))
    assert len(calls) == (2 if status == 401 else 1)  # one fresh token on 401
    assert len(client.outbox.dead()) == 1


@pytest.mark.parametrize("lost", [503, TransportError("dropped")])
def test_state_transition_400_after_a_possibly_delivered_attempt_counts_as_delivered(
    tmp_path, pr_payload, lost
):
    transport, _ = scripted(lost, (400, "invalid state transition: IN_PROGRESS -> IN_PROGRESS (replay)"))
    out = make(tmp_path, transport).post(in_progress_body(pr_payload, CTX))
    # counted as delivered (nothing left to resend), but never a silent success: no 200 was seen
    assert (out.result, out.label, out.hud_confirmed) == (
        RECORDED_HUD_UNCONFIRMED,
        "recorded, HUD unconfirmed",
        False,
    )
    assert not list(tmp_path.glob("c-*.json"))


def test_429_then_400_is_a_real_rejection(tmp_path, pr_payload):
    # a 429 never reached the state machine, so the 400 is about this very body
    transport, _ = scripted(429, (400, "callback rejected: no matching dispatch record"))
    with pytest.raises(CallbackRejected):
        make(tmp_path, transport).post(in_progress_body(pr_payload, CTX))


def test_exhausted_retries_keep_the_callback_for_the_next_start(tmp_path, pr_payload):
    transport, calls = scripted(503)
    client = make(tmp_path, transport, total=2)
    with pytest.raises(DeliveryPending):
        client.post(in_progress_body(pr_payload, CTX))
    assert len(calls) == 3 and len(client.outbox.pending()) == 1
    transport2, _ = scripted((400, "invalid state transition: IN_PROGRESS -> IN_PROGRESS (replay)"))
    assert [o.result for o in make(tmp_path, transport2).flush()] == [RECORDED_HUD_UNCONFIRMED]
    assert client.outbox.pending() == []


def test_budget_sliding_window():
    assert wait_needed([0.0, 1.0, 2.0], now=3.0, limit=3, window=60) == pytest.approx(57.0)
    assert wait_needed([0.0, 1.0], now=3.0, limit=3, window=60) == 0.0
    now = [100.0]
    slept = []
    b = RateBudget(
        limit=2,
        window=10,
        clock=lambda: now[0],
        sleep=lambda s: (slept.append(s), now.__setitem__(0, now[0] + s)),
    )
    for _ in range(5):
        b.acquire("acme/oot")
    assert slept == [10.0, 10.0]  # 5 sends at 2 per 10 s take two waits


def test_shared_budget_file(tmp_path):
    a = RateBudget(
        limit=3, path=tmp_path / "b.json", sleep=lambda s: (_ for _ in ()).throw(AssertionError("wait"))
    )
    b = RateBudget(
        limit=3, path=tmp_path / "b.json", sleep=lambda s: (_ for _ in ()).throw(RuntimeError("waited"))
    )
    a.acquire("r"), a.acquire("r"), b.acquire("r")
    with pytest.raises(RuntimeError, match="waited"):
        b.acquire("r")  # the fourth send of the minute waits, whichever process asks
    a.acquire("other/repo")  # budgets are per repo


def test_completed_body_requires_github_conclusion(pr_payload):
    with pytest.raises(ConfigError, match="conclusion 'passed' is not one of"):
        completed_body(pr_payload, CTX, "passed")
    body = completed_body(pr_payload, CTX, "failure", test_results={"passed": 1, "failed": 2, "skipped": 0})
    assert {k: body[k] for k in ("event_type", "delivery_id", "payload")} == pr_payload
    wf = body["workflow"]
    assert (wf["schema_version"], wf["status"], wf["run_id"], wf["test_results"]["failed"]) == (
        "1",
        "completed",
        "123",
        2,
    )
    assert "started_at" in wf and wf["started_at"] is None


def test_oidc_minting_sends_audience_and_never_leaks(caplog):
    seen = []

    def handler(req):
        seen.append(req)
        return Response(200, json.dumps({"value": SECRET}).encode())

    tokens = ActionsOidcToken(
        "http://gh.invalid/token?api-version=2.0", "req-token-xyz", transport=MockTransport(handler)
    )
    with caplog.at_level(logging.DEBUG, logger="crcr"):
        assert tokens.token() == SECRET and tokens.token() == SECRET
        logging.getLogger("crcr").warning("oops %s %s", SECRET, "req-token-xyz")
    assert len(seen) == 1  # cached (no exp claim -> reused)
    assert "audience=pytorch-cross-repo-ci-relay" in seen[0].url and "api-version=2.0" in seen[0].url
    assert seen[0].headers["Authorization"] == "bearer req-token-xyz"
    assert SECRET not in caplog.text and "req-token-xyz" not in caplog.text
    assert SECRET not in repr(seen[0])


def test_a_refused_request_token_is_rejected_not_replayed_later(tmp_path, pr_payload):
    # A wrong request token (401 at the token endpoint) left the callback in the outbox; the next
    # call with a good token replayed it after reporting its own: a HUD cell stuck in_progress.
    relay, sent = scripted(200)
    good = {"token": "req-good"}

    def token_endpoint(req):
        ok = req.headers["Authorization"] == f"bearer {good['token']}"
        return Response(200, json.dumps({"value": SECRET}).encode()) if ok else Response(401, b"{}")

    def client(request_token):
        tokens = ActionsOidcToken(
            "http://gh.invalid/t", request_token, transport=MockTransport(token_endpoint)
        )
        c = make(tmp_path, relay)
        c._tokens = tokens
        return c

    bad = client("req-wrong")
    with pytest.raises(CallbackRejected, match="401.*was refused; the callback was not sent"):
        bad.begin_job(in_progress_body(pr_payload, CTX), completed_body(pr_payload, CTX, "cancelled"))
    assert bad.outbox.pending(include_live_guards=True) == [] and len(bad.outbox.dead()) == 1
    assert client("req-good").flush() == [] and sent == []  # nothing replayed as if accepted


def test_transport_errors_do_not_carry_the_token(tmp_path, pr_payload):
    from crcr.callback_client.transport import HttpTransport

    req = Request(
        "POST", "http://127.0.0.1:9/github/callback", {"Authorization": f"Bearer {SECRET}"}, b"{}", 0.5
    )
    with pytest.raises(TransportError) as err:
        HttpTransport().send(req)
    assert SECRET not in str(err.value) and err.value.__cause__ is None


def test_begin_job_queues_in_progress_ahead_of_its_guard(tmp_path, pr_payload):
    transport, calls = scripted(503)
    client = make(tmp_path, transport, total=1)
    with pytest.raises(DeliveryPending):
        client.begin_job(in_progress_body(pr_payload, CTX), completed_body(pr_payload, CTX, "cancelled"))
    statuses = [
        i.entry["body"]["workflow"]["status"] for i in client.outbox.pending(include_live_guards=True)
    ]
    assert statuses == ["in_progress", "completed"]


def test_rejected_in_progress_drops_its_guard(tmp_path, pr_payload):
    transport, _ = scripted((400, "callback rejected: no matching dispatch record"))
    client = make(tmp_path, transport)
    with pytest.raises(CallbackRejected):
        client.begin_job(in_progress_body(pr_payload, CTX), completed_body(pr_payload, CTX, "cancelled"))
    assert client.outbox.pending(include_live_guards=True) == []


def test_worst_label_names_an_unconfirmed_callback(tmp_path, pr_payload):
    ok = make(tmp_path, scripted(200)[0]).post(in_progress_body(pr_payload, CTX))
    transport, _ = scripted(
        500, (400, "callback rejected: invalid state transition delivery_id=d repo=r status=completed")
    )
    unconfirmed = make(tmp_path, transport).post(completed_body(pr_payload, CTX, "success"))
    assert worst_label([ok, unconfirmed]) == "recorded, HUD unconfirmed"
    assert worst_label([ok, ok]) == "delivered" and worst_label([]) == "not sent"


def test_fetch_raises_crcr_errors_not_http_errors():
    from crcr.callback_client.transport import fetch, fetch_json

    transport = MockTransport(lambda req: Response(503 if "down" in req.url else 200, b"<html>"))
    with pytest.raises(RelayError, match="relay answered 503: GET http://h.invalid/down"):
        fetch(transport, "GET", "http://h.invalid/down")
    with pytest.raises(TransportError, match="not JSON"):
        fetch_json(transport, "GET", "http://h.invalid/up")
