"""The relay's triage-verdict rules (what it keeps, what drops the whole verdict), and
`fit` (our own verdicts, shaped so the relay keeps them) and `sendable` (any verdict, sent as the relay keeps it)."""

import json

import pytest

from crcr.callback_client.verdict_rules import MAX_BYTES, fit, raw_size, relay_keeps, sendable


def good(**over):
    v = {
        "schema_version": 1,
        "category": "upstream",
        "confidence": "high",
        "summary": "nn.Flatten changed its default start_dim",
        "suspected_upstream": {"pr": 90001, "commit": "6a99c39d6d45", "reason": "first bad commit"},
        "evidence": [
            {
                "job": "test-nn",
                "test": "test_flatten",
                "excerpt": "AssertionError",
                "log_url": "https://ci.example/1",
            }
        ],
        "reproduced_on_retry": True,
        "analyzer": {"name": "oot-ci triage", "version": "1"},
        "analyzed_at": "2026-12-05T00:00:00Z",
    }
    v.update(over)
    return v


def without(key):
    return {k: v for k, v in good().items() if k != key}


def test_a_valid_verdict_is_kept_whole():
    assert relay_keeps(good()) == (good(), "")


def test_minimal_verdict_and_absent_one():
    minimal = {"schema_version": 1, "category": "flake", "confidence": "low", "summary": "flaky"}
    assert relay_keeps(minimal) == (minimal, "")
    assert relay_keeps(None) == (None, "")


@pytest.mark.parametrize(
    "raw, reason",
    [
        ("upstream", "must be an object"),
        (good(schema_version=2), "schema_version"),
        (good(schema_version=True), "schema_version"),
        (good(schema_version=1.0), "schema_version"),
        (without("schema_version"), "schema_version"),
        (good(category="Upstream"), "unknown category 'Upstream'"),
        (good(confidence=0.8), "confidence must be a string"),
        (good(confidence="0.9"), "unknown confidence"),
        (without("summary"), "summary must be a string"),
        (good(summary="   "), "summary must not be empty"),
        (good(summary=True), "summary must be a string"),
        (good(reproduced_on_retry="false"), "reproduced_on_retry"),
        (good(evidence={"job": "x"}), "evidence must be an array"),
        (good(evidence=["x"]), "evidence[0] must be an object"),
        (good(evidence=[{"job": 5}]), "evidence[0].job must be a string"),
        (good(analyzer="x"), "analyzer must be an object"),
        (good(analyzed_at="last tuesday"), "analyzed_at"),
        (good(category="backend"), "only valid for category 'upstream'"),
        (good(suspected_upstream={"reason": "vibes"}), "must name a pr or a commit"),
        (good(suspected_upstream={"pr": "90001"}), "positive integer"),
        (good(suspected_upstream={"pr": True}), "positive integer"),
        (good(suspected_upstream={"pr": 0}), "positive integer"),
        (good(suspected_upstream={"commit": "not-a-sha"}), "hex git SHA"),
        (good(suspected_upstream={"commit": "6a99c3"}), "hex git SHA"),
    ],
)
def test_structural_violations_drop_the_whole_verdict(raw, reason):
    kept, why = relay_keeps(raw)
    assert kept is None and reason in why


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "https://github.com@evil.example/log",
        "https://ok.example\n\n[approve](https://evil.example)",
        "https://ok.example/ javascript:alert(1)",
        "https:// evil.example",
        "https://",
        "/relative/log",
    ],
)
def test_a_log_url_that_is_not_plain_http_drops_the_verdict(url):
    kept, why = relay_keeps(good(evidence=[{"job": "j", "log_url": url}]))
    assert kept is None and "log_url must be a plain http(s) URL" in why


def test_overflows_are_cut_not_rejected():
    kept, _ = relay_keeps(
        good(
            summary="  " + "s" * 1500 + "  ",
            suspected_upstream={"commit": " 6a99c39d6d45 ", "reason": "r" * 400},
            evidence=[{"job": "j0", "excerpt": "e" * 1200, "log_url": "https://x.example/" + "u" * 600}]
            + [{"job": f"j{i}"} for i in range(1, 15)],
            analyzer={"name": "n" * 300},
        )
    )
    assert len(kept["summary"]) == 1000 and kept["summary"] == "s" * 1000
    assert kept["suspected_upstream"] == {"commit": "6a99c39d6d45", "reason": "r" * 300}
    assert len(kept["evidence"]) == 10 and kept["evidence"][0]["job"] == "j0"
    assert len(kept["evidence"][0]["excerpt"]) == 1000 and len(kept["evidence"][0]["log_url"]) == 500
    assert kept["analyzer"] == {"name": "n" * 200}


def test_string_schema_version_nulls_unknown_keys_and_empty_parts():
    kept, _ = relay_keeps(
        good(
            schema_version=" 1 ",
            future={"a": 1},
            evidence=[],
            analyzer={},
            suspected_upstream=None,
            reproduced_on_retry=None,
        )
    )
    assert kept["schema_version"] == 1
    assert not {"future", "evidence", "analyzer", "suspected_upstream", "reproduced_on_retry"} & set(kept)
    # evidence past the first ten is never looked at (a bad 11th entry does not drop)
    kept, _ = relay_keeps(good(evidence=[{"job": "j"}] * 10 + ["not an object"]))
    assert kept is not None and len(kept["evidence"]) == 10


def test_oversized_verdict_is_dropped_measured_as_the_relay_does():
    # ASCII escapes: one non-ASCII character counts 6 bytes, unknown keys count too
    assert raw_size({"s": "é"}) == len('{"s": "\\u00e9"}')
    big = good(extra="x" * MAX_BYTES)
    kept, why = relay_keeps(big)
    assert kept is None and f"over the {MAX_BYTES} cap" in why
    kept, why = relay_keeps(good(summary="é" * 2900))  # 2900 chars, but 17400 bytes escaped
    assert kept is None and "cap" in why


def test_fit_trims_so_the_relay_keeps_it():
    ours = good(
        category="backend",  # with a suspected_upstream: left out, not a drop
        evidence=[
            {"job": "j", "test": f"t{i}", "excerpt": "é" * 900, "log_url": "file:///tmp/log"}
            for i in range(12)
        ],
    )
    kept, warnings = fit(ours)
    assert kept is not None and kept["category"] == "backend" and "suspected_upstream" not in kept
    assert all("log_url" not in e for e in kept["evidence"])
    assert raw_size(kept) <= MAX_BYTES and relay_keeps(kept) == (kept, "")
    assert any("suspected_upstream left out" in w for w in warnings)
    assert any("log_url left out" in w for w in warnings)
    assert any("to stay under" in w for w in warnings)


def test_fit_omits_what_cannot_be_saved_with_a_warning():
    kept, warnings = fit(good(category="cosmic"))
    assert kept is None and "the relay would drop it (unknown category 'cosmic')" in warnings[-1]
    assert json.dumps(fit(good())[0]) == json.dumps(good())


def test_fit_cuts_as_the_relay_cuts():
    """Issue #40: a summary over 1000 characters is cut at 1000 (no marker), a valid log URL over
    500 is cut to 500 and kept, as the relay itself does."""
    url = "https://ci.example/" + "a" * 600
    kept, warnings = fit(good(summary="s" * 1200, evidence=[{"job": "j", "log_url": url}]))
    assert kept["summary"] == "s" * 1000 and kept["evidence"] == [{"job": "j", "log_url": url[:500]}]
    assert warnings == []


@pytest.mark.parametrize(
    "summary",
    ["a" * 999 + " " + "b" * 5, "a" * 998 + " \t\u3000 b", "a" * 1000 + " x", "a" * 500],
)
def test_what_is_sent_is_kept_by_the_relay_unchanged(summary):
    """The relay's cut may end in whitespace its own strip() removes from a resend; sendable
    carries the whitespace run and one more character, so the relay keeps the very same text."""
    raw = good(summary=summary, evidence=[{"job": "j", "excerpt": "e" * 999 + "  f"}])
    sent, why = sendable(raw)
    assert why == "" and relay_keeps(sent) == relay_keeps(raw)
    assert relay_keeps(raw)[0]["summary"] == summary[:1000]


@pytest.mark.parametrize(
    "raw, reason",
    [
        (good(schema_version="²"), "unsupported triage_verdict schema_version"),  # isdigit, no int
        (good(evidence=[{"log_url": "https://h/\x7f"}]), "plain http(s) URL"),  # DEL is a control character
        (good(evidence=[{"log_url": "https://h/\x9b"}]), "plain http(s) URL"),  # so are C1 controls
        (good(future=[[[]]] * 2 + [json.loads("[" * 900 + "]" * 900)]), ""),  # unknown keys: ignored
    ],
)
def test_odd_inputs_are_rules_never_crashes(raw, reason):
    kept, why = relay_keeps(raw)
    assert (kept is None) == bool(reason) and reason in why
    assert sendable(raw)[1] == why
