"""The relay's callback pipeline (§2.3), independent of HTTP.

`Relay.callback(auth_header, raw_body)` returns (status, json) exactly as the
real relay would answer; the server only adds transport faults around it.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from crcr.allowlist import Entry, level_of
from crcr.relay.hud import HudRejected, HudStore, row_from_callback
from crcr.relay.issuer import AuthFailed, Issuer
from crcr.relay.ratelimit import SlidingWindow
from crcr.relay.state import Rejected, StateStore

NIGHTLY = ("nightly", "periodic")
ZOMBIE_TIMEOUT = 21600.0  # seconds in_progress before the sweeper times a job out


class HudDown(Exception):
    """Injected: HUD 5xx after retries (the relay answers 500)."""


@dataclass
class Relay:
    allowlist: dict[str, Entry]
    issuer: Issuer = field(default_factory=Issuer)
    limiter: SlidingWindow = field(default_factory=SlidingWindow)
    state: StateStore = field(default_factory=StateStore)
    hud: HudStore = field(default_factory=HudStore)

    def __post_init__(self) -> None:
        self.dispatches: list[dict] = []
        self.check_runs: list[dict] = []
        self.counters: dict[str, int] = {}
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
        with self._lock:
            self.dispatches.append({"repo": repo, "delivery_id": delivery, "at": time.time(),
                                    "event_type": client_payload.get("event_type")})
        return 200, {"ok": True, "state": "DISPATCHED"}

    # -- callback side ------------------------------------------------------------------
    def callback(self, auth_header: Optional[str], raw: bytes, hud_down: bool = False) -> tuple[int, dict]:
        status, answer = self._callback(auth_header, raw, hud_down)
        self._count(f"{status}")
        return status, answer

    def _callback(self, auth_header: Optional[str], raw: bytes, hud_down: bool) -> tuple[int, dict]:
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            return 400, {"detail": "invalid JSON body"}
        if not isinstance(body, dict):
            return 400, {"detail": "body must be a JSON object"}
        if not auth_header or not auth_header.startswith("Bearer "):
            return 401, {"detail": "missing bearer token"}
        try:
            repo = self.issuer.verify(auth_header[len("Bearer "):].strip())
        except AuthFailed as err:
            return 401, {"detail": f"OIDC verification failed: {err}"}
        level = level_of(self.allowlist, repo)
        if level < 2:
            return 200, {"ok": True, "status": "ignored"}
        if not self.limiter.allow(repo):
            return 429, {"detail": f"rate limit exceeded for {repo}"}
        wf = body.get("workflow")
        if not isinstance(wf, dict):
            return 400, {"detail": "missing field: workflow"}
        if body.get("event_type") in NIGHTLY:
            return self._self_report(body, wf, repo, level, hud_down)
        for name, value in (("delivery_id", body.get("delivery_id")), ("workflow.status", wf.get("status")),
                            ("workflow.run_id", wf.get("run_id")), ("workflow.name", wf.get("name"))):
            if value in (None, ""):
                return 400, {"detail": f"missing field: {name}"}
        if wf["status"] not in ("in_progress", "completed"):
            return 400, {"detail": f"invalid workflow.status {wf['status']!r}"}
        try:
            run_id = str(int(str(wf["run_id"])))
        except ValueError:
            return 400, {"detail": "workflow.run_id is not an integer"}
        try:
            t = self.state.apply(str(body["delivery_id"]), repo, run_id, str(wf.get("run_attempt") or "1"),
                                 wf.get("job_name") or None, wf["status"])
        except Rejected as err:
            return 400, {"detail": str(err)}
        if level >= 3:
            self._check_run(body, wf, repo, level)
        return self._forward(body, repo, level, {"queue_time": t.queue_time, "execution_time": t.execution_time},
                             wf["status"], hud_down)

    def _self_report(self, body: dict, wf: dict, repo: str, level: int, hud_down: bool) -> tuple[int, dict]:
        if wf.get("status") != "completed":
            return 400, {"detail": "nightly/periodic reports accept only status completed"}
        if not body.get("delivery_id") or not wf.get("name"):
            return 400, {"detail": "missing field: delivery_id or workflow.name"}
        return self._forward(body, repo, level, {}, "completed", hud_down)

    def _forward(self, body: dict, repo: str, level: int, metrics: dict, status: str,
                 hud_down: bool) -> tuple[int, dict]:
        # State is already saved here: a client retrying after this 500 gets a 400 duplicate.
        if hud_down:
            return 500, {"detail": "HUD unavailable: result not saved; retry or ignore"}
        try:
            self.hud.upsert(row_from_callback(body, repo, level, metrics))
        except HudRejected as err:
            return 400, {"detail": f"HUD: {err}"}
        return 200, {"ok": True, "status": status}

    def _check_run(self, body: dict, wf: dict, repo: str, level: int) -> None:
        """L3 with a ciflow/crcr/<device> label, or L4: record the upstream check run (§2.6)."""
        payload = body.get("payload") if isinstance(body.get("payload"), dict) else {}
        pr = payload.get("pull_request") if isinstance(payload.get("pull_request"), dict) else {}
        head = (pr.get("head") or {}).get("sha") if isinstance(pr.get("head"), dict) else None
        if not head:
            return
        device = self.allowlist[repo].device
        labels = {l.get("name") for l in pr.get("labels") or [] if isinstance(l, dict)}
        if level == 3 and f"ciflow/crcr/{device}" not in labels:
            return
        title = "In progress" if wf.get("status") == "in_progress" else str(wf.get("conclusion") or "").capitalize()
        with self._lock:
            self.check_runs.append({"head_sha": head, "name": f"crcr/{repo}/{wf.get('name')}/{wf.get('job_name')}",
                                    "title": title, "details_url": wf.get("url"),
                                    "external_id": f"{wf.get('run_id')}:{pr.get('number')}"})

    def sweep(self, timeout: float = ZOMBIE_TIMEOUT) -> int:
        """The relay's sweeper: stale in_progress jobs end as completed/timed_out in HUD."""
        stale = set(self.state.sweep(timeout))
        swept = 0
        for row in self.hud.rows():
            key = (row["delivery_id"], row["downstream_repo"], str(row["run_id"]), str(row["run_attempt"]))
            if row.get("status") == "in_progress" and (key + (row["job_name"],) in stale or key in stale):
                self.hud.upsert(dict(row, status="completed", conclusion="timed_out"))
                swept += 1
        return swept

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {"dispatches": list(self.dispatches), "check_runs": list(self.check_runs),
                    "counters": dict(self.counters),
                    "transitions": [{"key": list(t.key), "status": t.status, "queue_time": t.queue_time,
                                     "execution_time": t.execution_time} for t in self.state.transitions]}
