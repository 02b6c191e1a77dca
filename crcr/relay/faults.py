"""Fault injection for the emulator: scripted faults first, then random ones.

Kinds: `5xx` (503 before processing), `429` (before processing), `drop`
(process, then close the connection without answering), `latency` (sleep
`latency` s first), and two HUD faults that strike after the relay has
saved the state, during its forward to HUD: `hud_5xx` (every HUD attempt
of that callback fails with a 5xx) and `hud_slow` (every HUD attempt takes
`hud_latency` s and fails unanswered). The relay retries HUD as it does for real
(see `HudLink` in pipeline.py) and then answers 500. `none` is a scripted
request that gets no fault (to aim a fault at a later request).
"""

from __future__ import annotations

import random
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Iterable, Optional

KINDS = ("5xx", "429", "drop", "latency", "hud_5xx", "hud_slow", "none")
HUD_KINDS = ("hud_5xx", "hud_slow")


HUD_TIMING = {"hud_retries": int, "hud_backoff": float, "hud_latency": float}


def checked(data: object) -> dict:
    """A fault configuration (POST /_emulator/faults, $CRCR_EMULATOR_FAULTS) validated whole, so a
    caller can refuse it before it starts anything; ValueError names the first problem."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    try:
        rate, latency = float(data.get("rate", 0)), float(data.get("latency", 0.05))
        timing = {name: kind(data[name]) for name, kind in HUD_TIMING.items() if name in data}
    except (TypeError, ValueError) as err:
        raise ValueError(f"not a number: {err}") from None
    kinds, script = data.get("kinds", ()), data.get("script", ())
    if isinstance(kinds, str) or isinstance(script, str):
        raise ValueError("kinds and script are lists of fault kinds")
    FaultPlan.validate(rate, tuple(kinds) + tuple(script))
    for name, value in (("latency", latency), *timing.items()):
        if value < 0:
            raise ValueError(f"{name} must be >= 0")
    return dict(data, rate=rate, latency=latency, kinds=tuple(kinds), script=tuple(script), **timing)


@dataclass
class FaultPlan:
    rate: float = 0.0
    kinds: tuple[str, ...] = ("5xx", "429", "drop", "hud_5xx")
    latency: float = 0.05
    seed: Optional[int] = None
    _script: deque = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.validate(self.rate, self.kinds)
        self._rng = random.Random(self.seed)

    @staticmethod
    def validate(rate: float, kinds: Iterable[str]) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError("fault rate must be within 0..1")
        bad = [k for k in kinds if k not in KINDS]
        if bad:
            raise ValueError(f"unknown fault kind {bad[0]!r}; known: {', '.join(KINDS)}")

    def configure(
        self,
        rate: float,
        kinds: Iterable[str],
        latency: float,
        seed: Optional[int],
        script: Iterable[str] = (),
    ) -> None:
        kinds, script = tuple(kinds), tuple(script)
        self.validate(rate, kinds + script)
        if latency < 0:
            raise ValueError("latency must be >= 0")
        with self._lock:
            self.rate, self.kinds, self.latency = rate, kinds, latency
            self._rng = random.Random(seed)
            self._script = deque(script)

    def next(self) -> Optional[str]:
        with self._lock:
            if self._script:
                kind = self._script.popleft()
                return None if kind == "none" else kind
            if self.rate and self.kinds and self._rng.random() < self.rate:
                return self._rng.choice(self.kinds)
            return None
