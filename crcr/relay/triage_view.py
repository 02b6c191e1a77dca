"""The emulated HUD's view of a job's failed tests and triage verdict: the two stored
columns (`failed_tests_json`, `triage_verdict_json`, as in crcr_workflow_job) read
back and drawn as HTML lines (a grid square's details, crcr/relay/grid.py). HUD re-checks a stored verdict before
showing it (parseTriageVerdict) and shows nothing when the check fails; so does this.
Kept apart from hud.py so any HUD page (the grid here, the warehouse's panels) calls
the same function.
"""

from __future__ import annotations

import html
import json
from typing import Any, Optional

from crcr.callback_client.verdict_rules import relay_keeps

SHOWN_TESTS = 5  # a cell lists the first few; the JSON view has them all


def _loads(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) and text else None
    except ValueError:
        return None


def stored_columns(wf: dict) -> dict:
    """The two columns HUD writes for a completed callback ('' when absent)."""
    detail, verdict = wf.get("failed_tests_detail"), wf.get("triage_verdict")
    return {
        "failed_tests_json": json.dumps(detail) if isinstance(detail, list) else "",
        "triage_verdict_json": json.dumps(verdict) if isinstance(verdict, dict) else "",
    }


def verdict_of(row: dict) -> Optional[dict]:
    kept, _ = relay_keeps(_loads(row.get("triage_verdict_json")))
    return kept


def verdict_lines(verdict: Optional[dict]) -> list[str]:
    if not verdict:
        return []
    e = html.escape
    lines = [
        f'<span class="verdict {e(verdict["category"])}">triage: {e(verdict["category"])}/'
        f"{e(verdict['confidence'])} · advisory</span>",
        f'<small class="summary">{e(verdict["summary"])}</small>',
    ]
    suspect = verdict.get("suspected_upstream")
    if suspect:
        what = " ".join(
            x for x in (f"#{suspect['pr']}" if "pr" in suspect else "", suspect.get("commit", "")[:10]) if x
        )
        lines.append(
            f'<small class="suspect">suspected cause: {e(what)} {e(suspect.get("reason", ""))}</small>'
        )
    if "reproduced_on_retry" in verdict:
        lines.append(
            f"<small>reproduced on retry: {'yes' if verdict['reproduced_on_retry'] else 'no'}</small>"
        )
    return lines


def failed_test_lines(row: dict) -> list[str]:
    tests = _loads(row.get("failed_tests_json"))
    if not isinstance(tests, list) or not tests:
        return []
    names = [
        f"{t.get('classname', '')}::{t.get('name', '')}" if isinstance(t, dict) else str(t) for t in tests
    ]
    more = f" (+{len(names) - SHOWN_TESTS} more)" if len(names) > SHOWN_TESTS else ""
    return [f'<small class="failed">failed: {html.escape(n)}</small>' for n in names[:SHOWN_TESTS]] + (
        [f"<small>{more.strip()}</small>"] if more else []
    )
