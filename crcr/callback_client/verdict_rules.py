"""The relay's rules for `workflow.triage_verdict` (schema_version 1), in one place.

`relay_keeps(raw)` answers what the real relay keeps of a verdict: the normalized
object, or None with the reason it dropped the whole verdict (its
`utils/triage_verdict.py`, read in pytorch/test-infra; shared/docs/crcr-triage-and-levels.md
§b lists every rule). The relay emulator runs it on every callback; the client runs
it before sending, after `fit`, so a verdict of ours never reaches the relay in a
shape it would drop.

Rules worth knowing (all checked by tests against the relay's own cases):
- the whole raw object is measured first: json.dumps (ASCII escapes, default
  separators, unknown keys included) over 16384 bytes drops it; nothing is cut;
- structural violations drop it all (wrong type, unknown enum, bad log_url, a
  `suspected_upstream` on a category other than upstream); overflows are cut
  (summary 1000 characters, reason 300, evidence entries 10, excerpt 1000,
  job/test/analyzer fields 200, log_url 500) after `strip()`;
- `null` on an optional field is absent; unknown keys are ignored and not kept.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Optional
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


def _text(value: Any, where: str, limit: int) -> str:
    if not isinstance(value, str):  # numbers and bools are not coerced
        raise Dropped(f"{where} must be a string")
    value = value.strip()
    if not value:
        raise Dropped(f"{where} must not be empty")
    return value[:limit]


def _maybe_text(value: Any, where: str, limit: int) -> Optional[str]:
    return None if value is None else _text(value, where, limit)


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
        and not any(c.isspace() or ord(c) < 0x20 for c in url)
    )


def _suspect(value: Any) -> dict:
    if not isinstance(value, dict):
        raise Dropped("suspected_upstream must be an object")
    out: dict = {}
    pr = value.get("pr")
    if pr is not None:
        if isinstance(pr, bool) or not isinstance(pr, int) or pr <= 0:
            raise Dropped("suspected_upstream.pr must be a positive integer")
        out["pr"] = pr
    commit = _maybe_text(value.get("commit"), "suspected_upstream.commit", SHORT_CHARS)
    if commit is not None:
        if not COMMIT_RE.match(commit):
            raise Dropped("suspected_upstream.commit must be a hex git SHA")
        out["commit"] = commit
    reason = _maybe_text(value.get("reason"), "suspected_upstream.reason", REASON_CHARS)
    if reason is not None:
        out["reason"] = reason
    if "pr" not in out and "commit" not in out:
        raise Dropped("suspected_upstream must name a pr or a commit")
    return out


def _evidence(value: Any) -> list[dict]:
    if not isinstance(value, list):
        raise Dropped("evidence must be an array")
    kept = []
    for i, item in enumerate(value[:EVIDENCE_ENTRIES]):  # later entries are not even looked at
        if not isinstance(item, dict):
            raise Dropped(f"evidence[{i}] must be an object")
        entry = {}
        for name, limit in EVIDENCE_FIELDS:
            text = _maybe_text(item.get(name), f"evidence[{i}].{name}", limit)
            if text is not None:
                entry[name] = text
        url = _maybe_text(item.get("log_url"), f"evidence[{i}].log_url", URL_CHARS)
        if url is not None:
            if not plain_http_url(url):
                raise Dropped(f"evidence[{i}].log_url must be a plain http(s) URL")
            entry["log_url"] = url
        if entry:
            kept.append(entry)
    return kept


def _analyzer(value: Any) -> dict:
    if not isinstance(value, dict):
        raise Dropped("analyzer must be an object")
    out = {}
    for name in ANALYZER_FIELDS:
        text = _maybe_text(value.get(name), f"analyzer.{name}", SHORT_CHARS)
        if text is not None:
            out[name] = text
    return out


def _analyzed_at(value: Any) -> str:
    text = _text(value, "analyzed_at", SHORT_CHARS)
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise Dropped("analyzed_at must be an ISO 8601 timestamp") from None
    return text


def _schema_version(value: Any) -> None:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value != SCHEMA_VERSION:
        raise Dropped(f"unsupported triage_verdict schema_version {value!r}")


def normalize(raw: Any) -> dict:
    """The verdict as the relay forwards it; Dropped for any structural violation."""
    if not isinstance(raw, dict):
        raise Dropped("triage_verdict must be an object")
    size = raw_size(raw)
    if size > MAX_BYTES:
        raise Dropped(f"triage_verdict is {size} bytes, over the {MAX_BYTES} cap")
    _schema_version(raw.get("schema_version"))
    category = _text(raw.get("category"), "category", SHORT_CHARS)
    if category not in CATEGORIES:
        raise Dropped(f"unknown category {category!r}")
    confidence = _text(raw.get("confidence"), "confidence", SHORT_CHARS)
    if confidence not in CONFIDENCES:
        raise Dropped(f"unknown confidence {confidence!r}")
    out = {
        "schema_version": SCHEMA_VERSION,
        "category": category,
        "confidence": confidence,
        "summary": _text(raw.get("summary"), "summary", SUMMARY_CHARS),
    }
    if raw.get("suspected_upstream") is not None:
        if category != "upstream":
            raise Dropped("suspected_upstream is only valid for category 'upstream'")
        out["suspected_upstream"] = _suspect(raw["suspected_upstream"])
    if raw.get("evidence") is not None:
        evidence = _evidence(raw["evidence"])
        if evidence:
            out["evidence"] = evidence
    if raw.get("reproduced_on_retry") is not None:
        if not isinstance(raw["reproduced_on_retry"], bool):
            raise Dropped("reproduced_on_retry must be a boolean")
        out["reproduced_on_retry"] = raw["reproduced_on_retry"]
    if raw.get("analyzer") is not None:
        analyzer = _analyzer(raw["analyzer"])
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


# -- before sending: never hit a drop -------------------------------------------------------
def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fit(verdict: dict) -> tuple[Optional[dict], list[str]]:
    """Our verdict trimmed so the relay keeps it: bad evidence URLs and fields left out,
    long text cut (marked with …), evidence dropped from the end until the whole fits
    16 KB; then the relay's own check. Returns (verdict or None, warnings)."""
    warnings: list[str] = []
    v = {k: val for k, val in verdict.items() if val is not None}
    v["summary"] = _cut(str(v.get("summary", "")).strip(), SUMMARY_CHARS)
    if v.get("suspected_upstream") is not None and v.get("category") != "upstream":
        warnings.append(f"suspected_upstream left out: only valid for upstream, not {v.get('category')}")
        v.pop("suspected_upstream")
    evidence = []
    for i, item in enumerate(v.get("evidence") or []):
        entry = {k: _cut(str(val).strip(), lim) for k, lim in EVIDENCE_FIELDS if (val := item.get(k))}
        url = str(item.get("log_url") or "")
        if url and (len(url) > URL_CHARS or not plain_http_url(url)):
            warnings.append(
                f"evidence[{i}].log_url left out: not a plain http(s) URL of <= {URL_CHARS} chars"
            )
        elif url:
            entry["log_url"] = url
        if entry:
            evidence.append(entry)
    if len(evidence) > EVIDENCE_ENTRIES:
        warnings.append(f"evidence cut to {EVIDENCE_ENTRIES} of {len(evidence)} entries")
    v["evidence"] = evidence[:EVIDENCE_ENTRIES]
    while raw_size(v) > MAX_BYTES and v["evidence"]:
        v["evidence"] = v["evidence"][:-1]
        warnings.append(f"evidence cut to {len(v['evidence'])} entries to stay under {MAX_BYTES} bytes")
    if not v["evidence"]:
        v.pop("evidence")
    kept, why = relay_keeps(v)
    if kept is None:
        warnings.append(f"triage verdict omitted: the relay would drop it ({why})")
    return kept, warnings
