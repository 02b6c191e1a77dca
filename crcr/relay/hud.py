"""HUD emulation: the results table (§5) and the per-PR grid page.

Rows are upserted by verified_repo/delivery_id/workflow_name/job_name/
check_run_id, setting only non-null fields, so a completed callback keeps the
queue_time its in_progress brought.
"""
from __future__ import annotations

import html
import threading
from typing import Any, Optional

REQUIRED = ("job_name", "check_run_id")


class HudRejected(Exception):
    pass


def _int(value: Any) -> Optional[int]:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def row_from_callback(body: dict, repo: str, level: int, metrics: dict) -> dict:
    wf = body.get("workflow") or {}
    missing = [k for k in REQUIRED if not wf.get(k)]
    if missing:
        raise HudRejected(f"missing workflow.{missing[0]}")
    payload = body.get("payload") if isinstance(body.get("payload"), dict) else {}
    pr = payload.get("pull_request") if isinstance(payload.get("pull_request"), dict) else {}
    results = wf.get("test_results") if isinstance(wf.get("test_results"), dict) else {}
    counts = {k: _int(results.get(k)) for k in ("passed", "failed", "skipped", "total")}
    if counts["total"] is None and results:
        counts["total"] = sum(v or 0 for k, v in counts.items() if k != "total")
    head = (pr.get("head") or {}).get("sha") if isinstance(pr.get("head"), dict) else None
    return {
        "downstream_repo": repo, "downstream_repo_level": level,
        "upstream_repo": (payload.get("repository") or {}).get("full_name") if isinstance(payload.get("repository"), dict) else None,
        "pr_number": _int(pr.get("number")), "pytorch_head_sha": head or payload.get("after") or payload.get("head_sha"),
        "delivery_id": body.get("delivery_id"), "event_type": body.get("event_type"),
        "workflow_name": wf.get("name"), "job_name": wf.get("job_name"), "check_run_id": wf.get("check_run_id"),
        "run_id": _int(wf.get("run_id")), "run_attempt": _int(wf.get("run_attempt")) or 1,
        "status": wf.get("status"), "conclusion": wf.get("conclusion"),
        "started_at": wf.get("started_at"), "completed_at": wf.get("completed_at"),
        "url": wf.get("url"), "artifact_url": wf.get("artifact_url"),
        "queue_time": metrics.get("queue_time"), "execution_time": metrics.get("execution_time"),
        "tests_passed": counts["passed"], "tests_failed": counts["failed"],
        "tests_skipped": counts["skipped"], "tests_total": counts["total"],
    }


class HudStore:
    def __init__(self) -> None:
        self._rows: dict[tuple, dict] = {}
        self._lock = threading.Lock()

    def upsert(self, row: dict) -> None:
        key = tuple(row.get(k) for k in ("downstream_repo", "delivery_id", "workflow_name", "job_name", "check_run_id"))
        with self._lock:
            current = self._rows.setdefault(key, {})
            current.update({k: v for k, v in row.items() if v is not None})

    def annotate(self, delivery_id: str, job_name: str, note: str) -> int:
        """Emulator only (POST /_emulator/notes): a free-text `note` on a job's rows, e.g.
        the handler's regression attribution; the real HUD links artifact_url instead."""
        with self._lock:
            hits = [r for r in self._rows.values() if r.get("delivery_id") == delivery_id and r.get("job_name") == job_name]
            for r in hits:
                r["note"] = str(note)[:2000]
            return len(hits)

    def rows(self, repo: Optional[str] = None) -> list[dict]:
        with self._lock:
            return [dict(r) for r in self._rows.values() if repo is None or r["downstream_repo"] == repo]


def _cell(row: dict) -> str:
    status = row.get("conclusion") or row.get("status") or "?"
    bits = [f"<b>{html.escape(status)}</b>"]
    if (row.get("run_attempt") or 1) > 1:
        bits.append(f"attempt {row['run_attempt']}")
    if row.get("execution_time") is not None:
        bits.append(f"{row['execution_time']:.1f}s")
    if row.get("tests_total") is not None:
        bits.append(f"{row.get('tests_passed') or 0}/{row['tests_total']} passed")
    if row.get("queue_time") is not None:
        bits.append(f"queued {row['queue_time']:.1f}s")
    bits += _note_lines(row)
    css = {"success": "ok", "failure": "bad", "timed_out": "bad", "cancelled": "warn"}.get(status, "run")
    link = html.escape(row.get("url") or "#", quote=True)
    return f'<td class="{css}"><a href="{link}">' + "<br>".join(bits) + "</a></td>"


def _note_lines(row: dict) -> list[str]:
    """An emulator note (see HudStore.annotate), escaped, one line per '; ' part."""
    note = row.get("note")
    return [f'<small class="note">{html.escape(part)}</small>' for part in note.split("; ")] if note else []


def _pr_label(row: dict) -> str:
    if row.get("event_type") in ("nightly", "periodic"):
        return f"{row['event_type']} {str(row.get('delivery_id'))[:12]}"
    if row.get("pr_number"):
        return f"PR #{row['pr_number']}"
    return f"{row.get('event_type')} {str(row.get('pytorch_head_sha') or row.get('delivery_id'))[:12]}"


def render_page(rows: list[dict], title: str = "CRCR HUD (local emulator)") -> str:
    """Grid: one line per upstream PR (or push/nightly), one column per job_name.

    The newest attempt wins a cell, as on hud.pytorch.org; payload strings are
    escaped here, since the relay stores them verbatim (§6).
    """
    jobs = sorted({r["job_name"] for r in rows})
    grid: dict[str, dict[str, dict]] = {}
    for r in sorted(rows, key=lambda r: (r.get("run_attempt") or 1, r.get("started_at") or "")):
        grid.setdefault(_pr_label(r), {})[r["job_name"]] = r
    head = "".join(f"<th>{html.escape(j)}</th>" for j in jobs)
    body = "".join(
        f"<tr><th>{html.escape(label)}</th>" + "".join(_cell(cells[j]) if j in cells else "<td></td>" for j in jobs) + "</tr>"
        for label, cells in sorted(grid.items()))
    return f"""<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>{html.escape(title)}</title><style>
body{{font-family:sans-serif}} table{{border-collapse:collapse}} td,th{{border:1px solid #ccc;padding:4px 8px;font-size:13px}}
td.ok{{background:#dfd}} td.bad{{background:#fdd}} td.warn{{background:#ffd}} td.run{{background:#def}}
</style></head><body><h1>{html.escape(title)}</h1><p>{len(rows)} job rows, {len(jobs)} jobs.
JSON: <a href="/api/crcr/results">/api/crcr/results</a></p>
<table><tr><th>upstream</th>{head}</tr>{body}</table></body></html>"""
