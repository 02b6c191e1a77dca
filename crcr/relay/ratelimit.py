"""Relay-side limit: a 60 s sliding window per verified repo (§2.3 step 3).

Like the relay's Redis sorted set, every request is added to the window
first and the request is refused when the count is then over the limit, so
refused requests keep counting: a client that hammers stays locked out.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from typing import Callable

LIMIT_PER_MIN = 100


class SlidingWindow:
    def __init__(
        self, limit: int = LIMIT_PER_MIN, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ):
        self.limit, self.window, self._clock = limit, window, clock
        self._hits: dict[str, deque] = defaultdict(deque)
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        with self._lock:
            now, hits = self._clock(), self._hits[key]
            hits.append(now)
            while hits and now - hits[0] >= self.window:
                hits.popleft()
            return len(hits) <= self.limit
