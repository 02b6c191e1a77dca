"""The relay's rules for `workflow.triage_verdict` (schema_version 1), in one place.

`relay_keeps(raw)` answers what the real relay keeps of a verdict: the normalized
object, or None with the reason it dropped the whole verdict (its
`utils/triage_verdict.py`, read in pytorch/test-infra; shared/docs/crcr-triage-and-levels.md
§b lists every rule). The relay emulator runs it on every callback. The client sends
`sendable(raw)`: the same verdict in a form the relay keeps unchanged, or nothing (one
warning) where the relay would drop it; our own triage's verdicts are first shaped by
`fit` so the relay keeps them.

Rules worth knowing (all checked by tests against the relay's own cases):
- the whole raw object is measured first: json.dumps (ASCII escapes, default
  separators, unknown keys included) over 16384 bytes drops it; nothing is cut;
- structural violations drop it all (wrong type, unknown enum, bad log_url, a
  `suspected_upstream` on a category other than upstream); overflows are cut
  (summary 1000 characters, reason 300, evidence entries 10, excerpt 1000,
  job/test/analyzer fields 200, log_url 500) after `strip()`;
- `null` on an optional field is absent; unknown keys are ignored and not kept;
- control characters in a log_url are Unicode's (category Cc: C0, DEL and C1), and a
  schema_version string `isdigit()` accepts but `int()` refuses ("²") is unsupported:
  the notes name no crash, so neither the emulator nor the client has one.
"""

from __future__ import annotations

import json
import re
import unicodedata
from datetime import datetime
from typing import Any, Callable, Optional
from urllib.parse import urlparse

SCHEMA_VERSION = 1
CATEGORIES = ("upstream", "backend", "infra", "flake", "unknown")
CONFIDENCES = ("high", "medium", "low")
MAX_BYTES = 16 * 1024
SUMMARY_CHARS = 1000
REASON_CHARS = 300
EVIDENCE_ENTRIES = 10
EXCERPT_CHARS = 1000
SHORT_CHARS = 200
URL_CHARS = 500
COMMIT_RE = re.compile(r"^[0-9a-fA-F]{7,40}$")
ANALYZER_FIELDS = ("name", "version", "model", "prompt_version")
EVIDENCE_FIELDS = (("job", SHORT_CHARS), ("test", SHORT_CHARS), ("excerpt", EXCERPT_CHARS))


class Dropped(ValueError):
    """One structural violation: the relay drops the whole verdict (logs `dropping triage_verdict: <reason>`)."""


def raw_size(raw: Any) -> int:
    """What the relay measures: ASCII-escaped json.dumps of the raw value, in bytes."""
    return len(json.dumps(raw, default=str).encode())


def relay_cut(text: str, limit: int) -> str:
    """The relay's cut: characters, after strip()."""
    return text[:limit]


def stable_cut(text: str, limit: int) -> str:
    """The relay's cut in a form the relay cuts to the same text on receipt. Its cut can end
    in whitespace ("a b" cut at 2 is "a "), which the relay's own strip() would remove from a
    resend; then the whitespace run and the one character after it go too (text is stripped,
    so one follows), and the relay's strip-and-cut of that gives back exactly its cut."""
    cut = text[:limit]
    if len(text) <= limit or not cut[-1].isspace():
        return cut
    end = limit
    while text[end].isspace():
        end += 1
    return text[: end + 1]


Cut = Callable[[str, int], str]


def _text(value: Any, where: str, limit: int, cut: Cut) -> str:
    if not isinstance(value, str):  # numbers and bools are not coerced
        raise Dropped(f"{where} must be a string")
    value = value.strip()
    if not value:
        raise Dropped(f"{where} must not be empty")
    return cut(value, limit)


def _maybe_text(value: Any, where: str, limit: int, cut: Cut) -> Optional[str]:
    return None if value is None else _text(value, where, limit, cut)


def plain_http_url(url: str) -> bool:
    """http(s), a host, no userinfo in the host, no whitespace or control characters."""
    try:
        parsed = urlparse(url)
    except ValueError:
        return False
    return (
        parsed.scheme in ("http", "https")
        and bool(parsed.netloc)
        and "@" not in parsed.netloc
        and not any(c.isspace() or unicodedata.category(c) == "Cc" for c in url)  # DEL and C1 too
    )


def _suspect(value: Any, cut: Cut) -> dict:
    if not isinstance(value, dict):
        raise Dropped("suspected_upstream must be an object")
    out: dict = {}
    pr = value.get("pr")
    if pr is not None:
        if isinstance(pr, bool) or not isinstance(pr, int) or pr <= 0:
            raise Dropped("suspected_upstream.pr must be a positive integer")
        out["pr"] = pr
    commit = _maybe_text(value.get("commit"), "suspected_upstream.commit", SHORT_CHARS, relay_cut)
    if commit is not None:
        if not COMMIT_RE.match(commit):
            raise Dropped("suspected_upstream.commit must be a hex git SHA")
        out["commit"] = commit
    reason = _maybe_text(value.get("reason"), "suspected_upstream.reason", REASON_CHARS, cut)
    if reason is not None:
        out["reason"] = reason
    if "pr" not in out and "commit" not in out:
        raise Dropped("suspected_upstream must name a pr or a commit")
    return out


def _evidence(value: Any, cut: Cut) -> list[dict]:
    if not isinstance(value, list):
        raise Dropped("evidence must be an array")
    kept = []
    for i, item in enumerate(value[:EVIDENCE_ENTRIES]):  # later entries are not even looked at
        if not isinstance(item, dict):
            raise Dropped(f"evidence[{i}] must be an object")
        entry = {}
        for name, limit in EVIDENCE_FIELDS:
            text = _maybe_text(item.get(name), f"evidence[{i}].{name}", limit, cut)
            if text is not None:
                entry[name] = text
        # a kept URL holds no whitespace, so the relay's own cut is already stable
        url = _maybe_text(item.get("log_url"), f"evidence[{i}].log_url", URL_CHARS, relay_cut)
        if url is not None:
            if not plain_http_url(url):
                raise Dropped(f"evidence[{i}].log_url must be a plain http(s) URL")
            entry["log_url"] = url
        if entry:
            kept.append(entry)
    return kept


def _analyzer(value: Any, cut: Cut) -> dict:
    if not isinstance(value, dict):
        raise Dropped("analyzer must be an object")
    out = {}
    for name in ANALYZER_FIELDS:
        text = _maybe_text(value.get(name), f"analyzer.{name}", SHORT_CHARS, cut)
        if text is not None:
            out[name] = text
    return out


def _analyzed_at(value: Any) -> str:
    text = _text(value, "analyzed_at", SHORT_CHARS, relay_cut)
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise Dropped("analyzed_at must be an ISO 8601 timestamp") from None
    return text


def _schema_version(value: Any) -> None:
    if isinstance(value, str) and value.strip().isdigit():
        try:
            value = int(value.strip())
        except ValueError:  # "²" is a digit to isdigit() but no int: unsupported, never a crash
            pass
    if isinstance(value, bool) or not isinstance(value, int) or value != SCHEMA_VERSION:
        raise Dropped(f"unsupported triage_verdict schema_version {value!r}")


def _size_ok(raw: dict) -> None:
    try:
        size = raw_size(raw)
    except (RecursionError, ValueError):  # nested past json's depth: nothing the relay could keep
        raise Dropped("triage_verdict is too deeply nested to measure") from None
    if size > MAX_BYTES:
        raise Dropped(f"triage_verdict is {size} bytes, over the {MAX_BYTES} cap")


def normalize(raw: Any, cut: Cut = relay_cut, measure: bool = True) -> dict:
    """The verdict as the relay forwards it; Dropped for any structural violation.
    `cut=stable_cut` gives the same verdict in the form to send (see stable_cut);
    `measure=False` skips the 16 KB check on the raw input (fit measures the cut form)."""
    if not isinstance(raw, dict):
        raise Dropped("triage_verdict must be an object")
    if measure:
        _size_ok(raw)
    _schema_version(raw.get("schema_version"))
    category = _text(raw.get("category"), "category", SHORT_CHARS, relay_cut)
    if category not in CATEGORIES:
        raise Dropped(f"unknown category {category!r}")
    confidence = _text(raw.get("confidence"), "confidence", SHORT_CHARS, relay_cut)
    if confidence not in CONFIDENCES:
        raise Dropped(f"unknown confidence {confidence!r}")
    out = {
        "schema_version": SCHEMA_VERSION,
        "category": category,
        "confidence": confidence,
        "summary": _text(raw.get("summary"), "summary", SUMMARY_CHARS, cut),
    }
    if raw.get("suspected_upstream") is not None:
        if category != "upstream":
            raise Dropped("suspected_upstream is only valid for category 'upstream'")
        out["suspected_upstream"] = _suspect(raw["suspected_upstream"], cut)
    if raw.get("evidence") is not None:
        evidence = _evidence(raw["evidence"], cut)
        if evidence:
            out["evidence"] = evidence
    if raw.get("reproduced_on_retry") is not None:
        if not isinstance(raw["reproduced_on_retry"], bool):
            raise Dropped("reproduced_on_retry must be a boolean")
        out["reproduced_on_retry"] = raw["reproduced_on_retry"]
    if raw.get("analyzer") is not None:
        analyzer = _analyzer(raw["analyzer"], cut)
        if analyzer:
            out["analyzer"] = analyzer
    if raw.get("analyzed_at") is not None:
        out["analyzed_at"] = _analyzed_at(raw["analyzed_at"])
    return out


def relay_keeps(raw: Any) -> tuple[Optional[dict], str]:
    """(what the relay forwards, "") or (None, why it dropped the verdict); None in -> (None, "")."""
    if raw is None:
        return None, ""
    try:
        return normalize(raw), ""
    except Dropped as err:
        return None, str(err)


def sendable(raw: Any) -> tuple[Optional[dict], str]:
    """What a client sends for a verdict it was handed: the relay's verdict in a form it keeps
    unchanged (relay_keeps(sent) == relay_keeps(raw)), or (None, why) when the relay would drop
    it. Nothing is salvaged: the HUD shows what the relay would show for this very input."""
    if raw is None:
        return None, ""
    try:
        return normalize(raw, stable_cut), ""
    except Dropped as err:
        return None, str(err)


# -- our own verdicts (the handler's triage): shaped so the relay keeps them --------------
def _url_kept(item: Any) -> bool:
    url = item.get("log_url")
    return isinstance(url, str) and bool(url.strip()) and plain_http_url(url.strip()[:URL_CHARS])


def fit(verdict: dict) -> tuple[Optional[dict], list[str]]:
    """A verdict we made, shaped so the relay keeps it: a `suspected_upstream` on another
    category and evidence URLs the relay would refuse left out, evidence dropped from the end
    until the whole fits 16 KB; text cut as the relay cuts it (sendable). Returns (verdict or
    None, warnings). A verdict someone else made goes through `sendable` alone, unsalvaged."""
    warnings: list[str] = []
    v = {k: val for k, val in verdict.items() if val is not None}
    if v.get("suspected_upstream") is not None and v.get("category") != "upstream":
        warnings.append(f"suspected_upstream left out: only valid for upstream, not {v.get('category')}")
        v.pop("suspected_upstream")
    evidence = []
    for i, item in enumerate(v.get("evidence") or []):
        item = {k: val for k, val in item.items() if val not in (None, "")}
        if "log_url" in item and not _url_kept(item):
            warnings.append(f"evidence[{i}].log_url left out: not a plain http(s) URL")
            item.pop("log_url")
        evidence.append(item)
    if len(evidence) > EVIDENCE_ENTRIES:
        warnings.append(f"evidence cut to {EVIDENCE_ENTRIES} of {len(evidence)} entries")
    v["evidence"] = evidence[:EVIDENCE_ENTRIES]
    try:
        v = normalize(v, stable_cut, measure=False)  # cut first, so only what is sent is measured
    except Dropped as err:
        return None, [*warnings, f"triage verdict omitted: the relay would drop it ({err})"]
    while raw_size(v) > MAX_BYTES and v.get("evidence"):
        v["evidence"] = v["evidence"][:-1]
        warnings.append(f"evidence cut to {len(v['evidence'])} entries to stay under {MAX_BYTES} bytes")
    if "evidence" in v and not v["evidence"]:
        v.pop("evidence")
    sent, why = sendable(v)
    if sent is None:
        warnings.append(f"triage verdict omitted: the relay would drop it ({why})")
    return sent, warnings
