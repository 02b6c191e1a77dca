"""HUD rows and the warehouse's legs, joined for the first screen (crcr/relay/grid.py).

The relay's HUD rows (crcr/relay/hud.py) know what HUD stores; the warehouse also knows a
leg's backend commit, its bisection (the first bad upstream commit) and the handler's own
test time. `joined` adds those to the HUD rows of the same leg; `rows_of` makes rows of
the warehouse's legs alone, for the page the warehouse tool writes (no relay running).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from crcr.warehouse.queries import LegRow


def _extra(leg: LegRow) -> dict:
    return {"backend_sha": leg.backend_sha, "bisection": leg.bisection, "leg_seconds": leg.leg_seconds}


def joined(rows: list[dict], legs: list[LegRow]) -> list[dict]:
    """`rows` with what the warehouse knows of the same leg added: the same (delivery, run,
    job); a row without a run id takes the newest run of its (delivery, job), never an older
    one (a second local cycle re-dispatches the same delivery)."""
    known: dict[tuple, LegRow] = {}
    for leg in legs:  # newest first: setdefault keeps the newest
        known.setdefault((leg.delivery_id, leg.run_id, leg.job_name), leg)
        known.setdefault((leg.delivery_id, leg.job_name), leg)
    out = []
    for r in rows:
        delivery, job = str(r.get("delivery_id")), str(r.get("job_name"))
        run = r.get("run_id")
        leg = known.get((delivery, str(run), job)) if run not in (None, "") else known.get((delivery, job))
        out.append({**r, **_extra(leg)} if leg else dict(r))
    return out


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def rows_of(legs: list[LegRow]) -> list[dict]:
    """HUD-shaped rows of the warehouse's legs (what the grid reads)."""
    out = []
    for leg in legs:
        row = {
            "downstream_repo": leg.repo,
            "delivery_id": leg.delivery_id,
            "run_id": leg.run_id,
            "run_attempt": leg.run_attempt,
            "job_name": leg.job_name,
            "event_type": leg.event_type,
            "pr_number": leg.pr_number,
            "pytorch_head_sha": leg.upstream_sha,
            "started_at": _iso(leg.started_at),
            "status": leg.status,
            "queue_time": leg.queue_time,
            "execution_time": leg.execution_time,
            "simulated": leg.simulated,
            **_extra(leg),
        }
        if leg.status == "completed":
            row.update(
                conclusion=leg.conclusion,
                tests_passed=leg.passed,
                tests_failed=leg.failed,
                tests_skipped=leg.skipped,
                tests_capability_skipped=leg.capability_skipped or None,
                tests_total=leg.passed + leg.failed + leg.skipped,
                triage_verdict_json=json.dumps(leg.verdict) if leg.verdict else "",
            )
            if leg.results == "incomplete":
                row["note"] = "results incomplete (truncated or invalid JUnit)"
        out.append({k: v for k, v in row.items() if v is not None})
    return out
