"""Dispatch records and the callback state machine (§1.4, §2.4).

Records live under one string key per job, built like the relay's Redis key:
`<delivery_id>:<repo>:<run_id>:<run_attempt>[:<job_name>]`, with run_id and
run_attempt already parsed as integers (so attempt "01" and "1" are the same
job) and the dispatch record at run_id 0, run_attempt 0. Every write sets its
own 3-day TTL. Accepted: none -> IN_PROGRESS -> COMPLETED; everything else,
and any callback claiming run_id 0, is rejected.

Queue time is per run (crcr-triage-and-levels.md §c.6 and §d.4, the relay's
callback_handler.py@82739caa): dispatch -> the first in_progress of the run, carried by that
job only; the run's other jobs get null. A re-run attempt is a run of its own (its first
in_progress carries one), still measured from the original dispatch.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

STATUS_TTL = 259200.0  # CRCR_STATUS_TTL default
DISPATCH_RUN_ID = DISPATCH_RUN_ATTEMPT = 0  # the run the dispatch record is filed under


class Rejected(Exception):
    """A callback the relay answers with 400."""


@dataclass(frozen=True)
class Transition:
    key: tuple  # (delivery_id, repo, run_id, run_attempt, job_name or None)
    status: str
    at: float
    queue_time: Optional[float] = None
    execution_time: Optional[float] = None


@dataclass(frozen=True)
class Record:
    state: str
    at: float
    envelope: Optional[dict] = None  # the HUD envelope of an in_progress, for the sweeper


def state_key(delivery_id: Any, repo: str, run_id: int, run_attempt: int, job_name: Any = None) -> str:
    """One string per job; fields are formatted as they come (the relay does not escape ':')."""
    key = f"{delivery_id}:{repo}:{run_id}:{run_attempt}"
    return f"{key}:{job_name}" if job_name else key


def refusal(current: Optional[str], status: str, run_id: int) -> Optional[str]:
    """Why the relay refuses this write (None: accepted). Pure."""
    if run_id == DISPATCH_RUN_ID:
        return "run_id 0 is reserved for the dispatch record"
    if status == "IN_PROGRESS" and current is not None:
        return "replay of IN_PROGRESS"
    if status == "COMPLETED":
        if current is None:
            return "COMPLETED without prior IN_PROGRESS"
        if current == "COMPLETED":
            return "duplicate COMPLETED"
        if current != "IN_PROGRESS":
            return f"{current} -> COMPLETED"
    return None


def _clamp(delta: Optional[float]) -> Optional[float]:
    return None if delta is None else max(0.0, round(delta, 3))


class StateStore:
    def __init__(self, ttl: float = STATUS_TTL, clock: Callable[[], float] = time.time):
        self.ttl, self._clock = ttl, clock
        self._records: dict[str, Record] = {}
        self._runs_started: dict[str, float] = {}  # run attempt (key without the job) -> first in_progress
        self.transitions: list[Transition] = []
        self._lock = threading.Lock()

    def _get(self, key: str) -> Optional[Record]:
        rec = self._records.get(key)
        return rec if rec is not None and self._clock() - rec.at < self.ttl else None

    def record_dispatch(self, delivery_id: str, repo: str) -> bool:
        """False if this (delivery, repo) was already dispatched (duplicates are refused)."""
        key = state_key(delivery_id, repo, DISPATCH_RUN_ID, DISPATCH_RUN_ATTEMPT)
        with self._lock:
            if self._get(key) is not None:
                return False
            self._records[key] = Record("DISPATCHED", self._clock())
            return True

    def dispatched_at(self, delivery_id: Any, repo: str) -> Optional[float]:
        with self._lock:
            rec = self._get(state_key(delivery_id, repo, DISPATCH_RUN_ID, DISPATCH_RUN_ATTEMPT))
            return rec.at if rec else None

    def current(self, key: str) -> Optional[Record]:
        with self._lock:
            return self._get(key)

    def apply(
        self,
        delivery_id: Any,
        repo: str,
        run_id: int,
        run_attempt: int,
        job_name: Any,
        status: str,
        envelope: Optional[dict] = None,
    ) -> Transition:
        """Write IN_PROGRESS/COMPLETED; raises Rejected. The caller checked the dispatch record."""
        key = state_key(delivery_id, repo, run_id, run_attempt, job_name)
        new = "IN_PROGRESS" if status == "in_progress" else "COMPLETED"
        with self._lock:
            dispatched = self._get(state_key(delivery_id, repo, DISPATCH_RUN_ID, DISPATCH_RUN_ATTEMPT))
            prev = self._get(key)
            why = refusal(prev.state if prev else None, new, run_id)
            if why:
                raise Rejected(why)
            now = self._clock()
            self._records[key] = Record(new, now, envelope if new == "IN_PROGRESS" else None)
            parts = (delivery_id, repo, run_id, run_attempt, job_name or None)
            if new == "IN_PROGRESS":
                run = state_key(delivery_id, repo, run_id, run_attempt)
                first = now - self._runs_started.get(run, -self.ttl) >= self.ttl
                if first:
                    self._runs_started[run] = now
                queued = _clamp(now - dispatched.at) if dispatched and first else None
                t = Transition(parts, new, now, queue_time=queued)
            else:
                t = Transition(parts, new, now, execution_time=_clamp(now - prev.at))
            self.transitions.append(t)
            return t

    def expired_in_progress(self, older_than: float) -> list[tuple[str, Record]]:
        """Zombies (§2.8): jobs still IN_PROGRESS after `older_than` seconds."""
        with self._lock:
            now = self._clock()
            return [
                (k, r)
                for k, r in self._records.items()
                if r.state == "IN_PROGRESS" and now - r.at > older_than and now - r.at < self.ttl
            ]

    def close_zombie(self, key: str) -> None:
        with self._lock:
            rec = self._get(key)
            if rec is not None and rec.state == "IN_PROGRESS":
                self._records[key] = Record("COMPLETED", self._clock())
