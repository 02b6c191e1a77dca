"""Dispatch records and the callback state machine (§1.4, §2.4).

Key: (delivery_id, verified_repo, run_id, run_attempt, job_name).
Accepted: none -> IN_PROGRESS -> COMPLETED. Everything else is rejected.
Records expire after the relay's TTL (3 days).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional

STATUS_TTL = 259200.0  # CRCR_STATUS_TTL default


class Rejected(Exception):
    """A callback the relay answers with 400."""


@dataclass(frozen=True)
class Transition:
    key: tuple
    status: str
    at: float
    queue_time: Optional[float] = None
    execution_time: Optional[float] = None


def next_state(current: Optional[str], status: str) -> str:
    """Pure transition rule; raises Rejected with the relay-style reason."""
    if status == "in_progress":
        if current is None:
            return "IN_PROGRESS"
        kind = "replay" if current == "IN_PROGRESS" else "out of order"
        raise Rejected(f"invalid state transition: {current} -> IN_PROGRESS ({kind})")
    if status == "completed":
        if current == "IN_PROGRESS":
            return "COMPLETED"
        kind = "duplicate" if current == "COMPLETED" else "out of order, no in_progress"
        raise Rejected(f"invalid state transition: {current or 'none'} -> COMPLETED ({kind})")
    raise Rejected(f"invalid workflow.status {status!r}")


def _clamp(delta: Optional[float]) -> Optional[float]:
    return None if delta is None else max(0.0, round(delta, 3))


class StateStore:
    def __init__(self, ttl: float = STATUS_TTL, clock: Callable[[], float] = time.time):
        self.ttl, self._clock = ttl, clock
        self._dispatched: dict[tuple, float] = {}
        self._states: dict[tuple, tuple[str, float]] = {}
        self.transitions: list[Transition] = []
        self._lock = threading.Lock()

    def _alive(self, stamp: float) -> bool:
        return self._clock() - stamp < self.ttl

    def record_dispatch(self, delivery_id: str, repo: str) -> bool:
        """False if this (delivery, repo) was already dispatched (duplicates are refused)."""
        with self._lock:
            stamp = self._dispatched.get((delivery_id, repo))
            if stamp is not None and self._alive(stamp):
                return False
            self._dispatched[(delivery_id, repo)] = self._clock()
            return True

    def dispatched_at(self, delivery_id: str, repo: str) -> Optional[float]:
        with self._lock:
            stamp = self._dispatched.get((delivery_id, repo))
            return stamp if stamp is not None and self._alive(stamp) else None

    def sweep(self, older_than: float) -> list[tuple]:
        """Zombies (§2.8): IN_PROGRESS for longer than `older_than` s become COMPLETED,
        so a real completed arriving later is refused like any duplicate."""
        with self._lock:
            now = self._clock()
            stale = [k for k, (state, at) in self._states.items() if state == "IN_PROGRESS" and now - at > older_than]
            for key in stale:
                self._states[key] = ("COMPLETED", now)
            return stale

    def apply(self, delivery_id: str, repo: str, run_id: str, run_attempt: str,
              job_name: Optional[str], status: str) -> Transition:
        with self._lock:
            dispatched = self._dispatched.get((delivery_id, repo))
            if dispatched is None or not self._alive(dispatched):
                raise Rejected("callback rejected: no matching dispatch record")
            key = (delivery_id, repo, run_id, run_attempt) + ((job_name,) if job_name else ())
            now = self._clock()
            prev = self._states.get(key)
            if prev and not self._alive(prev[1]):
                prev = None
            state = next_state(prev[0] if prev else None, status)
            self._states[key] = (state, now)
            if state == "IN_PROGRESS":
                t = Transition(key, state, now, queue_time=_clamp(now - dispatched))
            else:
                t = Transition(key, state, now, execution_time=_clamp(now - prev[1]))
            self.transitions.append(t)
            return t
