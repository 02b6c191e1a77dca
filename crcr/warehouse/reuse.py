"""The stored green leg a leg with the same reuse key may take its result from (schema 5).

Only a real (not simulated), completed, `success` leg that itself ran is a source; a leg that
was reused names its source, so a chain always leads back to the leg that ran. Fail open is
the caller's: any warehouse error reaches it as a KNOWN error and the leg runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from crcr.warehouse.backends import Backend
from crcr.warehouse.schema import live
from crcr.warehouse.sql import quote


@dataclass(frozen=True)
class Source:
    leg_key: str
    run_id: str
    delivery_id: str
    job_name: str
    upstream_sha: str
    passed: int
    failed: int
    skipped: int
    seconds: float  # what running it took (execution time, else the handler's own): the saving

    def line(self) -> str:
        return (
            f"reused: green in run {self.run_id} ({self.job_name}, delivery {self.delivery_id}) at the same "
            f"backend, core, suite, configs and selection; {self.seconds / 60:.1f} device-minutes saved"
        )


def find_green(wh: Backend, repo: str, key: str) -> Optional[Source]:
    """The newest green leg of `repo` that ran with `key`, or None."""
    rows = wh.query(
        f"""SELECT leg_key, run_id, delivery_id, job_name, upstream_sha, passed, failed, skipped,
        ifNull(execution_time, ifNull(leg_seconds, toFloat64(toInt64(finished_at) - toInt64(started_at))))
        FROM {wh.db}.legs WHERE {live(wh.db)} AND repo = {quote(repo)} AND reuse_key = {quote(key)}
          AND conclusion = 'success' AND reused_from = '' AND simulated = 0
        ORDER BY started_at DESC LIMIT 1"""
    )
    if not rows:
        return None
    leg_key, run_id, delivery, job, sha, passed, failed, skipped, seconds = rows[0]
    return Source(
        leg_key, run_id, delivery, job, sha, int(passed), int(failed), int(skipped), float(seconds or 0)
    )
