"""Pure builders for callback bodies (schema_version 1, protocol §2.2).

The body is the dispatch client_payload echoed verbatim plus a `workflow`
block; every block is validated by `WorkflowBlock` before it leaves here.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, replace
from typing import Any, Mapping, Optional, get_args

from crcr.callback_client.errors import ConfigError
from crcr.callback_client.failed_tests import from_inline
from crcr.callback_client.models import Conclusion, TestResults, WorkflowBlock, parse
from crcr.callback_client.verdict_rules import sendable

log = logging.getLogger("crcr")

CONCLUSIONS = frozenset(get_args(Conclusion))
ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
NIGHTLY_KINDS = ("nightly", "periodic")


def iso_now(now: Optional[float] = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if now is None else now))


def leg_job_name(base: str, *parts: str) -> str:
    """`build-<cfg>`-style name, unique per matrix leg (§2.5 same-job rule)."""
    words = [base, *parts]
    name = "-".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", w).strip("_-") for w in words if w)
    if not name:
        raise ConfigError("job name is empty")
    return name[:200]


@dataclass(frozen=True)
class RunContext:
    """Where a callback comes from: one job of one workflow run."""

    workflow_name: str
    run_id: str
    job_name: str
    check_run_id: str
    run_attempt: str = "1"
    run_url: str = ""

    @classmethod
    def from_env(
        cls, env: Mapping[str, str], job_name: Optional[str] = None, check_run_id: Optional[str] = None
    ) -> "RunContext":
        run_id = env.get("GITHUB_RUN_ID", "")
        attempt = env.get("GITHUB_RUN_ATTEMPT", "1") or "1"
        server, repo = env.get("GITHUB_SERVER_URL", "https://github.com"), env.get("GITHUB_REPOSITORY", "")
        if not run_id or not env.get("GITHUB_WORKFLOW"):
            raise ConfigError(
                "GITHUB_RUN_ID/GITHUB_WORKFLOW are not set (pass --run-id/--workflow outside Actions)"
            )
        return cls(
            workflow_name=env["GITHUB_WORKFLOW"],
            run_id=run_id,
            run_attempt=attempt,
            job_name=job_name or env.get("CRCR_JOB_NAME") or env.get("GITHUB_JOB", ""),
            check_run_id=check_run_id or env.get("CRCR_CHECK_RUN_ID") or f"{run_id}-{attempt}",
            run_url=f"{server}/{repo}/actions/runs/{run_id}" if repo else "",
        )

    def for_leg(self, job_name: str, check_run_id: Optional[str] = None) -> "RunContext":
        return replace(self, job_name=job_name, check_run_id=check_run_id or self.check_run_id)


def _block(ctx: RunContext, **fields) -> dict:
    raw = dict(
        schema_version="1",
        name=ctx.workflow_name,
        url=ctx.run_url,
        run_id=ctx.run_id,
        run_attempt=ctx.run_attempt,
        job_name=ctx.job_name,
        check_run_id=ctx.check_run_id,
        **fields,
    )
    return parse(WorkflowBlock, raw, "workflow").model_dump(mode="json", exclude_none=False)


def user_fields(test_results: Any, failed_tests_detail: Any, triage_verdict: Any) -> tuple:
    """(test_results, failed_tests_detail, triage_verdict) as sent: the relay's form of each, or
    None with one warning line (logged) for what would be refused or dropped."""
    results = None
    if test_results:
        try:
            results = parse(TestResults, test_results, "test_results").model_dump()
        except ValueError as err:  # PayloadError; or a bare one, e.g. an int past repr's digit limit
            log.warning("%s; test_results left out", err)
    detail = None
    if failed_tests_detail is not None:
        capped = from_inline(failed_tests_detail, "failed_tests_detail")
        for note in capped.notes:
            log.warning("%s", note)
        detail = capped.as_json() or None
    verdict, why = sendable(triage_verdict)
    if why:
        log.warning("triage verdict left out: the relay would drop it (%s)", why)
    return results, detail, verdict


def in_progress_body(client_payload: dict, ctx: RunContext, now: Optional[float] = None) -> dict:
    wf = _block(ctx, status="in_progress", conclusion=None, started_at=iso_now(now))
    return {**client_payload, "workflow": _strip_completed_only(wf)}


def completed_body(
    client_payload: dict,
    ctx: RunContext,
    conclusion: str,
    now: Optional[float] = None,
    test_results: Any = None,
    artifact_url: Optional[str] = None,
    started_at: Optional[str] = None,
    failed_tests_detail: Any = None,  # any JSON value: kept as the relay keeps it or left out
    triage_verdict: Any = None,
) -> dict:
    """`failed_tests_detail`, `triage_verdict` and `test_results` may be any JSON value: each is
    sent in the form the relay keeps, or left out with one warning line; none can stop the
    callback (user_fields)."""
    if conclusion not in CONCLUSIONS:
        raise ConfigError(f"conclusion {conclusion!r} is not one of {sorted(CONCLUSIONS)}")
    results, detail, verdict = user_fields(test_results, failed_tests_detail, triage_verdict)
    wf = _block(
        ctx,
        status="completed",
        conclusion=conclusion,
        completed_at=iso_now(now),
        started_at=started_at,
        test_results=results,
        artifact_url=artifact_url,
        failed_tests_detail=detail,
        triage_verdict=verdict,
    )
    if wf.get("test_results") and wf["test_results"].get("total") is None:
        wf["test_results"].pop("total")
    return {
        **client_payload,
        "workflow": {k: v for k, v in wf.items() if v is not None or k in ("conclusion", "started_at")},
    }


def nightly_body(
    kind: str,
    upstream_sha: str,
    ctx: RunContext,
    conclusion: str,
    now: Optional[float] = None,
    test_results: Any = None,
    started_at: Optional[str] = None,
    failed_tests_detail: Any = None,  # any JSON value: kept as the relay keeps it or left out
    triage_verdict: Any = None,
) -> dict:
    """Self-report (§2.7): one completed callback, delivery_id = the tested SHA.

    It is the job's only callback, so it carries the job's `started_at` (no
    in_progress brings one to HUD); without one given, the report's own time.
    """
    if kind not in NIGHTLY_KINDS:
        raise ConfigError(f"self-report kind must be nightly or periodic, not {kind!r}")
    if started_at is not None and not (isinstance(started_at, str) and ISO_Z.fullmatch(started_at)):
        # often from the environment (CRCR_STARTED_AT): a warning, never a lost report
        log.warning(
            "started_at %.40r is not an ISO-8601 UTC time like 2026-05-04T20:48:28Z; sent the report's own",
            started_at,
        )
        started_at = None
    synthetic = {
        "event_type": kind,
        "delivery_id": upstream_sha,
        "payload": {"repository": {"full_name": "pytorch/pytorch"}, "head_sha": upstream_sha},
    }
    return completed_body(
        synthetic,
        ctx,
        conclusion,
        now,
        test_results,
        started_at=started_at or iso_now(now),
        failed_tests_detail=failed_tests_detail,
        triage_verdict=triage_verdict,
    )


def _strip_completed_only(wf: dict) -> dict:
    return {
        k: v
        for k, v in wf.items()
        if k not in ("test_results", "artifact_url", "failed_tests_detail", "triage_verdict")
    }
