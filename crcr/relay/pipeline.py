"""The relay's callback pipeline (§2.3), independent of HTTP.

`Relay.callback(auth_header, raw_body)` returns (status, json) as the real
relay's callback Lambda answers, step by step in its order:

1. body: empty -> `{}`; not JSON -> 400 "Invalid JSON body" (before auth);
2. OIDC -> 401 (issuer.py);
3. level < L2 -> 200 `ignored` (whatever the body is);
4. rate limit -> 429 (refused requests count too);
5. nightly/periodic -> the same required fields, completed only, straight to HUD;
6. required fields: `delivery_id`, `workflow.status`, `workflow.run_id` (parsed
   with `int()`), `workflow.run_attempt` (default 1, `int()`), `workflow.name`;
   missing or mistyped -> 400 "callback body missing required field: ...";
   a value `int()` refuses ("abc", "") -> 500, as the relay's uncaught
   ValueError; a body that is not an object -> 500 likewise;
7. no DISPATCHED record -> 400; unknown status -> 400; state machine -> 400;
8. L3+ check run (best effort), zombie tracking via the stored in_progress;
9. HUD forward: HUD 4xx -> that status back; 5xx/timeouts retried
   (`HudLink`), then 500 — the state is saved by then (step 7).
"""

from __future__ import annotations

import copy
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from crcr.callback_client.verdict_rules import relay_keeps
from crcr.dispatch.allowlist import Entry, level_of
from crcr.relay.hud import HudRejected, HudStore, hud_record
from crcr.relay.issuer import AuthFailed, Issuer
from crcr.relay.ratelimit import SlidingWindow
from crcr.relay.state import Rejected, StateStore, state_key

NIGHTLY = frozenset({"nightly", "periodic"})
ZOMBIE_TIMEOUT = 21600.0  # seconds in_progress before the sweeper times a job out
INTERNAL = {"detail": "Internal server error"}
HUD_REASONS = {400: "Bad Request", 413: "Payload Too Large", 422: "Unprocessable Entity"}


class Answer(Exception):
    """A non-200 answer decided inside the pipeline (the relay's HTTPException)."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


@dataclass
class HudLink:
    """The relay's HUD client: `retries` (HUD_MAX_RETRIES, 3) after the first
    attempt, waiting backoff * 1, 2, 4 s; an attempt against a slow HUD takes
    `slow_attempt` s before it fails. Tests scale these down."""

    retries: int = 3
    backoff: float = 1.0
    slow_attempt: float = 3.0
    sleep: Callable[[float], None] = time.sleep

    def waits(self) -> list[float]:
        return [self.backoff * 2**i for i in range(self.retries)]


def hud_exhausted_detail(rate_per_min: int) -> str:
    """The relay's 500 text once every HUD attempt got a 5xx (its utils/hud.py; the wait
    is 60 // RATE_LIMIT_PER_MIN seconds, 0 at the default 100)."""
    return (
        "An internal failure occurred. Your update was not saved, but the CI run is still valid. "
        f"You can attempt progressive retries after {60 // rate_per_min} seconds or ignore this failure."
    )


def parse_callback(body: dict) -> tuple[Any, Any, int, int, Any, Any]:
    """(delivery_id, status, run_id, run_attempt, workflow name, job_name), the relay's way."""
    try:
        delivery = body["delivery_id"]
        wf = body["workflow"]
        status = wf["status"]
        run_id = int(wf["run_id"])  # ValueError ("abc") is not caught: the relay answers 500
        run_attempt = int(wf.get("run_attempt", 1))
        name = wf["name"]
        job_name = wf.get("job_name")
    except (KeyError, TypeError) as exc:
        raise Answer(400, f"callback body missing required field: {exc}") from None
    return delivery, status, run_id, run_attempt, name, job_name


def pr_head_sha(body: dict) -> str:
    # Same chain as the relay: a non-object payload/pull_request raises (-> 500).
    pr = (body.get("payload") or {}).get("pull_request") or {}
    return (pr.get("head") or {}).get("sha", "")


def pr_labels(body: dict) -> set[str]:
    # As strict as the relay: a label that is not an object raises (-> 500, L3+ only).
    pr = (body.get("payload") or {}).get("pull_request") or {}
    return {label.get("name", "") for label in (pr.get("labels") or [])}


def check_run_title(status: str, conclusion: Any) -> str:
    if status != "completed":
        return "In progress"
    return str(conclusion).capitalize() if conclusion else "Completed"


@dataclass
class Relay:
    allowlist: dict[str, Entry]
    issuer: Issuer = field(default_factory=Issuer)
    limiter: SlidingWindow = field(default_factory=SlidingWindow)
    state: StateStore = field(default_factory=StateStore)
    hud: HudStore = field(default_factory=HudStore)
    hud_link: HudLink = field(default_factory=HudLink)

    def __post_init__(self) -> None:
        self.dispatches: list[dict] = []
        self.check_runs: list[dict] = []
        self.dispatch_jobs: dict[tuple, dict] = {}  # (head_sha, repo) -> {workflow:job -> summary}
        self.check_run_wanted: set[tuple] = set()
        self.forwards: dict[str, dict] = {}  # per job: what the relay recorded and whether HUD confirmed it
        self.counters: dict[str, int] = {}
        self.verdict_drops: list[str] = []  # the relay's log lines for dropped verdicts
        self._lock = threading.Lock()

    def _count(self, what: str) -> None:
        with self._lock:
            self.counters[what] = self.counters.get(what, 0) + 1

    # -- dispatch side (what the relay's webhook Lambda records) ----------------------
    def dispatch(self, repo: str, client_payload: dict) -> tuple[int, dict]:
        delivery = client_payload.get("delivery_id") if isinstance(client_payload, dict) else None
        if not isinstance(delivery, str) or not delivery:
            return 400, {"detail": "client_payload.delivery_id is required"}
        if not self.state.record_dispatch(delivery, repo):
            return 409, {"detail": f"duplicate DISPATCHED for {delivery} {repo}"}
        level = level_of(self.allowlist, repo)
        head = ((client_payload.get("payload") or {}).get("pull_request") or {}).get("head") or {}
        entry = self.allowlist.get(repo)
        try:
            labelled = entry is not None and f"ciflow/crcr/{entry.device}" in pr_labels(client_payload)
        except (AttributeError, TypeError):
            return 400, {"detail": "client_payload.payload.pull_request.labels are not objects"}
        with self._lock:
            if head.get("sha") and (level >= 4 or (level == 3 and labelled)):
                self.check_run_wanted.add((head["sha"], repo))
            self.dispatches.append(
                {
                    "repo": repo,
                    "delivery_id": delivery,
                    "at": time.time(),
                    "event_type": client_payload.get("event_type"),
                }
            )
        return 200, {"ok": True, "state": "DISPATCHED"}

    # -- callback side ------------------------------------------------------------------
    def callback(
        self, auth_header: Optional[str], raw: bytes, hud_fault: Optional[str] = None
    ) -> tuple[int, dict]:
        status, answer = self._callback(auth_header, raw, hud_fault)
        self._count(f"{status}")
        return status, answer

    def _callback(self, auth_header: Optional[str], raw: bytes, hud_fault: Optional[str]) -> tuple[int, dict]:
        try:
            body = json.loads(raw) if raw else {}
        except RecursionError:
            return 500, INTERNAL
        except ValueError:
            return 400, {"detail": "Invalid JSON body"}
        try:
            repo = self.issuer.verify_header(auth_header)
            return 200, self._handle(body, repo, hud_fault)
        except AuthFailed as err:
            return 401, {"detail": str(err)}
        except Answer as err:
            return err.status, {"detail": err.detail}
        except Exception:  # noqa: BLE001 - the relay's catch-all: anything unexpected is a 500
            return 500, INTERNAL

    def _handle(self, body: Any, repo: str, hud_fault: Optional[str]) -> dict:
        level = level_of(self.allowlist, repo)
        if level < 2:
            return {"ok": True, "status": "ignored"}
        if not self.limiter.allow(repo):
            raise Answer(429, f"rate limit exceeded for {repo}")
        if body.get("event_type", "") in NIGHTLY:  # AttributeError for a non-object body -> 500
            return self._self_report(body, repo, level, hud_fault)
        delivery, status, run_id, run_attempt, name, job_name = parse_callback(body)
        self._sanitize_verdict(body, repo)
        if self.state.dispatched_at(delivery, repo) is None:
            raise Answer(400, "callback rejected: no matching dispatch record")
        if status not in ("in_progress", "completed"):
            raise Answer(400, f"unknown callback status: {status!r}")
        stored = self._envelope(body, repo, level) if status == "in_progress" else None
        try:
            t = self.state.apply(delivery, repo, run_id, run_attempt, job_name, status, stored)
        except Rejected:
            raise Answer(
                400,
                f"callback rejected: invalid state transition delivery_id={delivery} "
                f"repo={repo} status={status}",
            ) from None
        key = state_key(delivery, repo, run_id, run_attempt, job_name)
        if level >= 3:
            self._check_run(body, repo, level, status, run_id, name, job_name)
        metrics = {"queue_time": t.queue_time, "execution_time": t.execution_time}
        self._forward(key, self._envelope(body, repo, level, metrics), status, hud_fault)
        return {"ok": True, "status": status}

    def _self_report(self, body: dict, repo: str, level: int, hud_fault: Optional[str]) -> dict:
        delivery, status, run_id, run_attempt, name, job_name = parse_callback(body)
        self._sanitize_verdict(body, repo)
        if status != "completed":
            raise Answer(400, f"nightly/periodic callbacks must have status 'completed', got {status!r}")
        key = f"{body.get('event_type')}:{delivery}:{repo}:{run_id}:{run_attempt}:{job_name}"
        self._forward(key, self._envelope(body, repo, level), status, hud_fault)
        return {"ok": True, "status": status}

    def _sanitize_verdict(self, body: dict, repo: str) -> None:
        """The relay's step after the field parser, on both paths: `workflow.triage_verdict`
        replaced by what its validator keeps, the key removed when that is nothing (an
        explicit null too); a dropped verdict never fails the callback. `failed_tests_detail`
        passes through untouched: the relay never reads it."""
        wf = body.get("workflow")
        if not isinstance(wf, dict) or "triage_verdict" not in wf:
            return
        kept, why = relay_keeps(wf["triage_verdict"])
        if kept is None:
            del wf["triage_verdict"]
            if why:
                self._count("verdict_dropped")
                with self._lock:
                    self.verdict_drops.append(f"dropped invalid triage_verdict from repo={repo}: {why}")
        else:
            wf["triage_verdict"] = kept

    @staticmethod
    def _envelope(body: dict, repo: str, level: int, metrics: Optional[dict] = None) -> dict:
        return {
            "trusted": {
                "ci_metrics": metrics or {"queue_time": None, "execution_time": None},
                "verified_repo": repo,
                "downstream_repo_level": f"L{level}",
            },
            "untrusted": {"callback_payload": body},
        }

    # -- HUD forward ------------------------------------------------------------------------
    def _forward(self, key: str, envelope: dict, status: str, hud_fault: Optional[str]) -> None:
        """POST to HUD with the relay's retries; the state is already saved when this fails."""
        self._note(key, envelope, status, confirmed=False)
        link = self.hud_link
        for attempt, wait in enumerate([0.0] + link.waits()):
            if attempt:
                link.sleep(wait)
            if hud_fault == "hud_5xx":
                continue
            if hud_fault == "hud_slow":
                link.sleep(link.slow_attempt)
                continue
            try:
                record = hud_record(envelope)
            except HudRejected as err:
                raise Answer(
                    err.status,
                    f"HUD rejected callback: HTTP {err.status}: "
                    f"{HUD_REASONS.get(err.status, 'Client Error')}",
                ) from None
            self.hud.upsert(record)
            self._note(key, envelope, status, confirmed=True)
            return
        if hud_fault == "hud_slow":
            # the relay re-raises its last URLError (unreachable, timed out): its catch-all 500
            raise Answer(500, INTERNAL["detail"])
        raise Answer(500, hud_exhausted_detail(self.limiter.limit))

    def _note(self, key: str, envelope: dict, status: str, confirmed: bool) -> None:
        cb = envelope["untrusted"]["callback_payload"]
        wf = cb.get("workflow") or {}
        pr = (cb.get("payload") or {}).get("pull_request") if isinstance(cb.get("payload"), dict) else None
        with self._lock:
            self.forwards[key] = {
                "repo": envelope["trusted"]["verified_repo"],
                "delivery_id": cb.get("delivery_id"),
                "job_name": wf.get("job_name"),
                "event_type": cb.get("event_type"),
                "pr_number": pr.get("number") if isinstance(pr, dict) else None,
                "run_attempt": wf.get("run_attempt"),
                "relay_state": status,
                "hud_confirmed": confirmed,
            }

    def stale_jobs(self, repo: Optional[str] = None) -> list[dict]:
        """Jobs whose latest relay record HUD never confirmed (HUD 5xx/slow/4xx after the state save)."""
        with self._lock:
            return [
                dict(f)
                for f in self.forwards.values()
                if not f["hud_confirmed"] and (repo is None or f["repo"] == repo)
            ]

    # -- L3/L4 upstream check runs --------------------------------------------------------------
    def _check_run(
        self, body: dict, repo: str, level: int, status: str, run_id: int, name: Any, job_name: Any
    ) -> None:
        """Cache the job; create a check run when wanted (L4; L3 with its label or the dispatch flag)."""
        head = pr_head_sha(body)
        if not head:
            return
        conclusion = (body.get("workflow") or {}).get("conclusion")
        details = f"https://github.com/{repo}/actions/runs/{run_id}"
        device = self.allowlist[repo].device
        with self._lock:
            self.dispatch_jobs.setdefault((head, repo), {})[f"{name}:{job_name}"] = {
                "status": status,
                "conclusion": conclusion,
                "job_url": details,
                "run_id": str(run_id),
            }
            wanted = (
                level >= 4
                or bool(device and f"ciflow/crcr/{device}" in pr_labels(body))
                or (head, repo) in self.check_run_wanted
            )
            if wanted:
                self.check_runs.append(
                    {
                        "head_sha": head,
                        "name": f"crcr/{repo}/{name}/{job_name}",
                        "status": status,
                        "conclusion": conclusion if status == "completed" else None,
                        "title": check_run_title(status, conclusion),
                        "details_url": details,
                        "external_id": str(run_id),
                    }
                )

    # -- zombies -------------------------------------------------------------------------------
    def sweep(self, timeout: float = ZOMBIE_TIMEOUT) -> int:
        """The sweeper (§2.8): jobs in_progress too long become completed/timed_out in HUD,
        from the envelope stored at in_progress; only a confirmed HUD write closes the state."""
        swept = 0
        for key, rec in self.state.expired_in_progress(timeout):
            if rec.envelope is None:
                continue
            envelope = copy.deepcopy(rec.envelope)
            envelope["trusted"]["ci_metrics"] = {
                "queue_time": None,
                "execution_time": max(0.0, round(time.time() - rec.at, 3)),
            }
            wf = envelope["untrusted"]["callback_payload"]["workflow"]
            wf.update(
                status="completed",
                conclusion="timed_out",
                completed_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            )
            try:
                self.hud.upsert(hud_record(envelope))
            except HudRejected:
                continue
            self._note(key, envelope, "completed", confirmed=True)
            self.state.close_zombie(key)
            swept += 1
        return swept

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "dispatches": list(self.dispatches),
                "check_runs": list(self.check_runs),
                "counters": dict(self.counters),
                "stale": [dict(f) for f in self.forwards.values() if not f["hud_confirmed"]],
                "verdict_drops": list(self.verdict_drops),
                "transitions": [
                    {
                        "key": list(t.key),
                        "status": t.status,
                        "queue_time": t.queue_time,
                        "execution_time": t.execution_time,
                    }
                    for t in self.state.transitions
                ],
            }
