"""The rows of issue 16's table: each edge of a callback answered as the real relay answers it
(its status codes, detail texts, field parsing, HUD forwarding and retries)."""

import json

import pytest
import requests

from crcr.callback_client.body import RunContext, completed_body, in_progress_body, nightly_body
from crcr.dispatch.allowlist import parse_allowlist
from crcr.relay.pipeline import HudLink, Relay
from crcr.relay.server import RelayEmulator
from crcr.tests.relay_helpers import ALLOW, dispatch, post


def test_row1_empty_check_run_id_is_accepted_by_hud(emu, fresh_payload):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    body = in_progress_body(fresh_payload, RunContext("CRCR", "70", "leg-empty-crid", "x"))
    body["workflow"]["check_run_id"] = ""  # HUD tests `== null`, so "" passes
    assert post(emu, body, token) == (200, {"ok": True, "status": "in_progress"})
    (row,) = [r for r in emu.relay.hud.rows("acme/oot") if r["job_name"] == "leg-empty-crid"]
    assert row["check_run_id"] == ""


@pytest.mark.parametrize("field,value", [("check_run_id", None), ("job_name", ""), ("job_name", None)])
def test_hud_required_fields_are_hud_4xx_after_the_state_is_saved(emu, fresh_payload, field, value):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    body = in_progress_body(fresh_payload, RunContext("CRCR", "71", "leg-hud-req", "c"))
    if value is None:
        del body["workflow"][field]
    else:
        body["workflow"][field] = value
    assert post(emu, body, token) == (400, {"detail": "HUD rejected callback: HTTP 400: Bad Request"})
    # the relay recorded it first (job_name is optional to the relay): a resend is a duplicate
    code, answer = post(emu, body, token)
    assert code == 400 and "invalid state transition" in answer["detail"]


def test_row2_nightly_completed_without_run_id_is_400(emu):
    token = emu.relay.issuer.mint("acme/oot")
    body = nightly_body("nightly", "b" * 40, RunContext("Nightly", "9", "nightly-all", "n1"), "success")
    del body["workflow"]["run_id"]
    assert post(emu, body, token) == (400, {"detail": "callback body missing required field: 'run_id'"})
    body["workflow"]["run_id"] = "9"
    body["workflow"]["status"] = "in_progress"
    assert post(emu, body, token) == (
        400,
        {"detail": "nightly/periodic callbacks must have status 'completed', got 'in_progress'"},
    )


def test_row3_trailing_slash_is_a_307_to_the_callback_path(emu, fresh_payload):
    token = emu.relay.issuer.mint("acme/oot")
    r = requests.post(
        emu.url + "/github/callback/",
        data="{}",
        allow_redirects=False,
        timeout=5,
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 307 and r.headers["Location"].endswith("/github/callback")
    assert requests.get(emu.url + "/github/callback/", allow_redirects=False, timeout=5).status_code == 307


def test_row4_run_attempt_is_parsed_as_an_integer(emu, fresh_payload):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    body = in_progress_body(fresh_payload, RunContext("CRCR", "72", "leg-attempt", "c"))
    body["workflow"]["run_attempt"] = "01"
    assert post(emu, body, token)[0] == 200
    body["workflow"]["run_attempt"] = "1"  # int("01") == int("1"): the same state key
    code, answer = post(emu, body, token)
    assert (code, answer["detail"]) == (
        400,
        "callback rejected: invalid state transition delivery_id="
        f"{fresh_payload['delivery_id']} repo=acme/oot status=in_progress",
    )


# -- other differences found in the relay's code ------------------------------------------------


@pytest.mark.parametrize("auth", ["bearer {t}", "BEARER {t}", "{t}"])
def test_authorization_prefix_is_case_insensitive_and_optional(emu, fresh_payload, auth):
    token = emu.relay.issuer.mint("acme/oot")
    code, _ = post(
        emu,
        in_progress_body(fresh_payload, RunContext("CRCR", "1", "j", "c")),
        token,
        auth=auth.format(t=token),
    )
    assert code == 400  # authenticated: it reached the dispatch check


@pytest.mark.parametrize(
    "mutate,expected",
    [
        (lambda b: b.pop("delivery_id"), (400, "callback body missing required field: 'delivery_id'")),
        (lambda b: b["workflow"].pop("name"), (400, "callback body missing required field: 'name'")),
        (
            lambda b: b["workflow"].update(run_attempt=None),
            (
                400,
                "callback body missing required field: "
                "int() argument must be a string, a bytes-like object "
                "or a real number, not 'NoneType'",
            ),
        ),
        (
            lambda b: b.update(workflow="x"),
            (400, "callback body missing required field: string indices must be integers, not 'str'"),
        ),
        (
            lambda b: b["workflow"].update(run_id="abc"),
            (500, "Internal server error"),
        ),  # int() ValueError escapes
        (lambda b: b["workflow"].update(run_attempt=""), (500, "Internal server error")),
        (lambda b: b["workflow"].update(run_id="0"), (400, "callback rejected: invalid state transition")),
        (lambda b: b["workflow"].update(status="queued"), (400, "unknown callback status: 'queued'")),
    ],
)
def test_field_parsing_follows_the_relay(emu, fresh_payload, mutate, expected):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    body = in_progress_body(fresh_payload, RunContext("CRCR", "73", "leg-parse", "c"))
    mutate(body)
    code, answer = post(emu, body, token)
    assert (code, answer["detail"][: len(expected[1])]) == expected


def test_unknown_status_without_dispatch_is_the_dispatch_rejection(emu, fresh_payload):
    body = in_progress_body(fresh_payload, RunContext("CRCR", "74", "j", "c"))
    body["workflow"]["status"] = "queued"  # the status is only checked after the dispatch record
    code, answer = post(emu, body, emu.relay.issuer.mint("acme/oot"))
    assert (code, answer["detail"]) == (400, "callback rejected: no matching dispatch record")


@pytest.mark.parametrize(
    "raw,repo,expected",
    [
        (b"", "acme/oot", (400, {"detail": "callback body missing required field: 'delivery_id'"})),
        (b"[1, 2]", "acme/oot", (500, {"detail": "Internal server error"})),
        (b"null", "acme/oot", (500, {"detail": "Internal server error"})),
        (b"[1, 2]", "acme/onboarding", (200, {"ok": True, "status": "ignored"})),  # level check comes first
        (b'{"a": "\xff"}', "acme/oot", (500, "Internal Server Error")),
    ],
)
def test_odd_bodies(emu, raw, repo, expected):
    assert post(emu, raw, emu.relay.issuer.mint(repo)) == expected


def test_oversized_body_is_hud_413_after_the_state_save(emu, fresh_payload):
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", fresh_payload)
    body = in_progress_body(fresh_payload, RunContext("CRCR", "75", "leg-big", "c"))
    body["payload"]["pull_request"]["body"] = "x" * (3 * 1024 * 1024)  # over HUD's 2 MB, under Lambda's 6 MB
    assert post(emu, body, token) == (413, {"detail": "HUD rejected callback: HTTP 413: Payload Too Large"})
    assert post(emu, body, token)[0] == 400  # recorded: a resend is a replay


def test_hud_row_fields_follow_huds_extraction(emu, push_event):
    cp = dict(
        push_event["client_payload"], delivery_id="push-" + push_event["client_payload"]["delivery_id"][:20]
    )
    token = emu.relay.issuer.mint("acme/oot")
    dispatch(emu, "acme/oot", cp)
    body = in_progress_body(cp, RunContext("CRCR", "76", "leg-push", "c", run_attempt="2"))
    body["workflow"]["run_attempt"] = "02"
    assert post(emu, body, token)[0] == 200
    (row,) = [r for r in emu.relay.hud.rows("acme/oot") if r["job_name"] == "leg-push"]
    # a push has no pull_request: pr 0, and HUD falls back to payload.head_sha, then payload.after
    # (the pushed commit), then to delivery_id (test-infra#8853)
    assert (
        row["pr_number"],
        row["pytorch_head_sha"],
        row["run_attempt"],
        row["run_id"],
        row["downstream_repo_level"],
    ) == (0, cp["payload"]["after"], 2, "76", "L2")


def test_l4_check_runs_always_and_l3_through_the_dispatch_flag(fresh_payload):
    allow = parse_allowlist("L3:\n  spyre:\n    acme/l3: [a]\nL4:\n  - acme/l4\n")
    with RelayEmulator(allow) as e:
        labels = fresh_payload["payload"]["pull_request"]["labels"]
        labels[:] = [{"name": "ciflow/crcr/spyre"}]
        for repo in ("acme/l3", "acme/l4"):
            assert dispatch(e, repo, fresh_payload) == 200
        labels[
            :
        ] = []  # the echoed labels went stale (e.g. a reopen): the L3 flag from the dispatch still counts
        for repo in ("acme/l3", "acme/l4"):
            ctx = RunContext("CRCR", "80", "leg", "c")
            assert post(e, in_progress_body(fresh_payload, ctx), e.relay.issuer.mint(repo))[0] == 200
            assert post(e, completed_body(fresh_payload, ctx, "failure"), e.relay.issuer.mint(repo))[0] == 200
        assert [(r["name"], r["title"]) for r in e.relay.check_runs] == [
            ("crcr/acme/l3/CRCR/leg", "In progress"),
            ("crcr/acme/l3/CRCR/leg", "Failure"),
            ("crcr/acme/l4/CRCR/leg", "In progress"),
            ("crcr/acme/l4/CRCR/leg", "Failure"),
        ]


def test_hud_forward_retries_like_the_relay_then_500_with_the_state_saved(fresh_payload):
    waits = []
    relay = Relay(ALLOW, hud_link=HudLink(sleep=waits.append))  # real defaults, no real sleeping
    relay.dispatch("acme/oot", fresh_payload)
    auth = f"Bearer {relay.issuer.mint('acme/oot')}"
    raw = json.dumps(in_progress_body(fresh_payload, RunContext("CRCR", "81", "leg", "c"))).encode()
    assert relay.callback(auth, raw, hud_fault="hud_5xx") == (
        500,
        {
            "detail": "An internal failure occurred. Your update was not saved, but the CI run is "
            "still valid. You can attempt progressive retries after 0 seconds or ignore this failure."
        },
    )
    assert waits == [1.0, 2.0, 4.0]  # 1 attempt + HUD_MAX_RETRIES 3, backoff 1, 2, 4 s
    assert relay.callback(auth, raw)[0] == 400  # the state was saved before the forward
    assert relay.hud.rows() == []
    (stale,) = relay.stale_jobs()
    assert (stale["job_name"], stale["relay_state"]) == ("leg", "in_progress")
    waits.clear()
    # an unreachable / timed-out HUD: the relay re-raises its last URLError -> its catch-all 500
    assert relay.callback(
        auth,
        json.dumps(completed_body(fresh_payload, RunContext("CRCR", "81", "leg", "c"), "success")).encode(),
        hud_fault="hud_slow",
    ) == (500, {"detail": "Internal server error"})
    assert waits == [3.0, 1.0, 3.0, 2.0, 3.0, 4.0, 3.0]  # each slow attempt, then the backoff


def test_hud_page_marks_unconfirmed_jobs_stale(fresh_payload):
    with RelayEmulator(ALLOW) as e:
        e.relay.hud_link = HudLink(backoff=0.0)
        token = e.relay.issuer.mint("acme/oot")
        dispatch(e, "acme/oot", fresh_payload)
        ctx = RunContext("CRCR", "82", "leg-stale", "c")
        assert post(e, in_progress_body(fresh_payload, ctx), token)[0] == 200
        requests.post(e.url + "/_emulator/faults", json={"script": ["hud_5xx"]}, timeout=5)
        assert post(e, completed_body(fresh_payload, ctx, "success"), token)[0] == 500
        api = requests.get(e.url + "/api/crcr/results", timeout=5).json()
        assert [r["status"] for r in api["rows"]] == ["in_progress"]  # what the real HUD keeps showing
        assert [(s["job_name"], s["relay_state"]) for s in api["stale"]] == [("leg-stale", "completed")]
        page = requests.get(e.url + "/hud", timeout=5).text
        assert "STALE: relay has completed, HUD never confirmed" in page and "1 job(s) STALE" in page
        # a job whose in_progress never reached HUD has no row at all: a placeholder says so
        requests.post(e.url + "/_emulator/faults", json={"script": ["hud_5xx"]}, timeout=5)
        assert (
            post(e, in_progress_body(fresh_payload, RunContext("CRCR", "82", "leg-lost", "d")), token)[0]
            == 500
        )
        page = requests.get(e.url + "/crcr/acme/oot", timeout=5).text
        assert (
            "missing in HUD" in page and "STALE: relay has in_progress" in page and "2 job(s) STALE" in page
        )


def test_sweeper_uses_the_stored_in_progress_even_when_hud_missed_it(fresh_payload):
    with RelayEmulator(ALLOW) as e:
        e.relay.hud_link = HudLink(backoff=0.0)
        token = e.relay.issuer.mint("acme/oot")
        dispatch(e, "acme/oot", fresh_payload)
        requests.post(e.url + "/_emulator/faults", json={"script": ["hud_5xx"]}, timeout=5)
        assert post(e, in_progress_body(fresh_payload, RunContext("CRCR", "83", "z", "c")), token)[0] == 500
        assert e.relay.hud.rows() == []
        assert e.relay.sweep(0) == 1
        (row,) = e.relay.hud.rows()
        assert (row["status"], row["conclusion"]) == ("completed", "timed_out") and e.relay.stale_jobs() == []
