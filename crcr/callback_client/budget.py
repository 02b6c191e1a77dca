"""Client-side rate budget: at most `limit` callbacks per `window` seconds per repo.

The relay answers 429 past 100/min/repo (§2.9). Staying under it on our side
avoids the 429 storms other downstreams hit. With a `path`, the sliding
window is shared (under flock) by every process of this machine.
"""

from __future__ import annotations

import fcntl
import json
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Optional

from testing.base.atomic import write_json

DEFAULT_LIMIT = 90  # headroom under the relay's 100/min for clock skew and retries
WINDOW = 60.0


def wait_needed(stamps: list[float], now: float, limit: int, window: float) -> float:
    """Seconds until one more send fits in the window (0 if it fits now)."""
    live = [t for t in stamps if now - t < window]
    if len(live) < limit:
        return 0.0
    return max(0.0, sorted(live)[len(live) - limit] + window - now)


class RateBudget:
    def __init__(
        self,
        limit: int = DEFAULT_LIMIT,
        window: float = WINDOW,
        path: Optional[Path] = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if limit < 1:
            raise ValueError("rate budget limit must be >= 1")
        self.limit, self.window, self.path = limit, window, path
        self._clock, self._sleep = clock, sleep
        self._mem: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def acquire(self, repo: str) -> float:
        """Block until a send for `repo` fits; returns the seconds waited."""
        waited = 0.0
        while True:
            with self._locked() as stamps:
                now = self._clock()
                mine = [t for t in stamps.get(repo, []) if now - t < self.window]
                delay = wait_needed(mine, now, self.limit, self.window)
                if delay == 0.0:
                    stamps[repo] = mine + [now]
                    return waited
            self._sleep(delay)
            waited += delay

    @contextmanager
    def _locked(self) -> Iterator[dict]:
        with self._lock:
            if self.path is None:
                yield self._mem
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path.with_suffix(".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                try:
                    stamps = json.loads(self.path.read_text()) if self.path.exists() else {}
                except ValueError:
                    stamps = {}  # a torn file only costs us the history, not correctness
                yield stamps
                write_json(self.path, stamps, sort_keys=True, durable=True, mode=0o600)
