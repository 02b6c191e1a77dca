"""HUD emulation: the results ingest (§5), its table and the per-PR grid page.

`hud_record` is what HUD's `/api/crcr/results` makes of the relay's
envelope: it rejects a falsy `job_name` and a null/absent `check_run_id`
(an empty string is fine), takes `run_attempt` as JS `Number(x ?? 1) || 1`,
keys the row by `verified_repo/delivery_id/workflow_name/job_name/check_run_id`
and carries only the fields that are set, so an upsert never clears what an
earlier callback brought (queue_time, started_at).

The page is the emulator's own: it also knows the relay's side, so a job the
relay recorded but HUD never confirmed is shown as *stale* (see `stale_jobs`
in pipeline.py) — the real HUD cannot see that, which is exactly the problem.
"""

from __future__ import annotations

import html
import json
import math
import threading
from typing import Any, Optional

from crcr.relay.grid import MISSING, first_screen
from crcr.relay.style import script, style
from crcr.relay.triage_view import stored_columns

MAX_BODY = 2 * 1024 * 1024  # HUD's ingest limit (Next.js bodyParser sizeLimit)


class HudRejected(Exception):
    """HUD answered 4xx: the relay passes the status back to the caller."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def js_string(value: Any) -> str:
    """`String(value)` as JavaScript renders JSON values (keys must match HUD's)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    if isinstance(value, (dict, list)):
        return "[object Object]" if isinstance(value, dict) else ",".join(js_string(v) for v in value)
    return str(value)


def js_number_or_one(value: Any) -> int | float:
    """`Number(value ?? 1) || 1`: "01" -> 1, "abc"/""/0 -> 1."""
    if value is None:
        return 1
    if isinstance(value, bool):
        return 1
    if isinstance(value, (int, float)):
        return value or 1
    try:
        n = float(str(value).strip() or 0)
    except ValueError:
        return 1
    if not math.isfinite(n) or n == 0:
        return 1
    return int(n) if n == int(n) else n


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else None


def hud_record(envelope: dict) -> dict:
    """The row HUD upserts for one relay envelope; raises HudRejected like HUD's 4xx."""
    if len(json.dumps(envelope).encode()) > MAX_BODY:
        raise HudRejected(413, "Payload exceeds 2MB limit")
    trusted, cb = envelope["trusted"], envelope["untrusted"]["callback_payload"]
    wf = cb.get("workflow") if isinstance(cb, dict) else None
    if not isinstance(wf, dict):
        raise HudRejected(400, "workflow is not an object")  # HUD itself would throw -> 500; relay-side guard
    if not wf.get("job_name"):
        raise HudRejected(400, "Missing required field: workflow.job_name")
    if wf.get("check_run_id") is None:
        raise HudRejected(400, "Missing required field: workflow.check_run_id")
    payload = cb.get("payload")
    pr = _get(payload, "pull_request")
    repo, delivery = trusted["verified_repo"], cb.get("delivery_id")
    head = _get(_get(pr, "head"), "sha")
    record = {
        "downstream_repo": repo,
        "upstream_repo": _get(_get(payload, "repository"), "full_name") or "pytorch/pytorch",
        "pr_number": _get(pr, "number") if _get(pr, "number") is not None else 0,
        # HUD's extractDynamoRecord: the PR head, else payload.head_sha (a nightly), else
        # payload.after (a push), else the delivery id (test-infra#8432, as #8853 describes it)
        "pytorch_head_sha": next(
            (v for v in (head, _get(payload, "head_sha"), _get(payload, "after"), delivery) if v is not None),
            "",
        ),
        "delivery_id": delivery,
        "event_type": cb.get("event_type") or None,
        "workflow_name": wf.get("name"),
        "job_name": wf["job_name"],
        "check_run_id": js_string(wf["check_run_id"]),
        "run_id": wf.get("run_id") if wf.get("run_id") is not None else "",
        "run_attempt": js_number_or_one(wf.get("run_attempt")),
        "status": wf.get("status"),
        "url": wf.get("url") or "",
        "downstream_repo_level": trusted.get("downstream_repo_level") or None,
        "queue_time": (trusted.get("ci_metrics") or {}).get("queue_time"),
        "execution_time": (trusted.get("ci_metrics") or {}).get("execution_time"),
        "started_at": wf.get("started_at") or None,
        "artifact_url": wf.get("artifact_url") or None,
    }
    if wf.get("status") == "completed":
        record.update(conclusion=wf.get("conclusion"), completed_at=wf.get("completed_at") or None)
        record.update(stored_columns(wf))
        results = wf.get("test_results")
        if results:
            counts = {
                k: results.get(k) if isinstance(results, dict) and _is_number(results.get(k)) else None
                for k in ("passed", "failed", "skipped", "total")
            }
            record.update(
                tests_passed=counts["passed"],
                tests_failed=counts["failed"],
                tests_skipped=counts["skipped"],
                tests_total=counts["total"]
                if counts["total"] is not None
                else sum(counts[k] or 0 for k in ("passed", "failed", "skipped")),
            )
    record["key"] = (
        "/".join(js_string(v) for v in (repo, delivery, wf.get("name"), wf["job_name"]))
        + "/"
        + record["check_run_id"]
    )
    return {k: v for k, v in record.items() if v is not None}


class HudStore:
    def __init__(self) -> None:
        self._rows: dict[str, dict] = {}
        self._lock = threading.Lock()

    def upsert(self, record: dict) -> None:
        with self._lock:
            self._rows.setdefault(record["key"], {}).update(record)

    def annotate(self, delivery_id: str, job_name: str, note: str) -> int:
        """Emulator only (POST /_emulator/notes): a free-text `note` on a job's rows, e.g.
        the handler's regression attribution; the real HUD links artifact_url instead."""
        with self._lock:
            hits = [
                r
                for r in self._rows.values()
                if r.get("delivery_id") == delivery_id and r.get("job_name") == job_name
            ]
            for r in hits:
                r["note"] = str(note)[:2000]
            return len(hits)

    def rows(self, repo: Optional[str] = None) -> list[dict]:
        with self._lock:
            return [dict(r) for r in self._rows.values() if repo is None or r["downstream_repo"] == repo]


def with_stale(rows: list[dict], stale: list[dict]) -> list[dict]:
    """Rows with the relay's unconfirmed jobs marked (`stale`), missing ones added as placeholders."""
    out = [dict(r) for r in rows]
    for job in stale:
        match = [
            r
            for r in out
            if (r["downstream_repo"], str(r.get("delivery_id")), str(r.get("job_name")))
            == (job["repo"], str(job["delivery_id"]), str(job["job_name"]))
        ]
        for r in match:
            r["stale"] = job["relay_state"]
        if not match:
            out.append(
                {
                    "downstream_repo": job["repo"],
                    "delivery_id": job["delivery_id"],
                    "job_name": str(job["job_name"]),
                    "event_type": job.get("event_type"),
                    "pr_number": job.get("pr_number"),
                    "status": MISSING,
                    "stale": job["relay_state"],
                    "run_attempt": job["run_attempt"],
                }
            )
    return out


def render_page(
    rows: list[dict], title: str = "CRCR HUD (local emulator)", panels: str = "", head: str = ""
) -> str:
    """The first screen (crcr/relay/grid.py: the newest dispatch, its red legs, the grid of
    upstream lines x jobs), then the warehouse's panels (crcr/relay/panels.py) when there
    is a warehouse, `head` their assets. The same HTML serves live and as a file: the
    script (crcr/relay/style.py) reloads and shows live-only links only over HTTP."""
    stale = sum(1 for r in rows if r.get("stale"))
    warning = (
        (
            f'<p class="stale">{stale} job(s) STALE: the relay recorded them but HUD never confirmed '
            f"(HUD 5xx or slow during the forward); the real HUD keeps showing the older state.</p>"
        )
        if stale
        else ""
    )
    # the grid alone reloads every 5 s; with panels (4.8 MB of inlined plotly) once a minute
    refresh = 60 if panels else 5
    jobs = len({str(r["job_name"]) for r in rows})
    return f"""<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>{style()}{head}</head><body><h1>{html.escape(title)}</h1>
{warning}{first_screen(rows)}<p class="meaning">{len(rows)} job rows, {jobs} jobs<span class="live-only">;
JSON: <a href="/api/crcr/results">/api/crcr/results</a></span></p>{panels}{script(refresh)}</body></html>"""
