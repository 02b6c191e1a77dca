"""Telling a hang from a slow test: the pure judgement over samples of a running test.

A test that still makes progress past its budget is *slow*; one that makes none for a
whole window is *hung*. Progress is judged from three signals of the test's process,
sampled while it runs (``sampling.py`` takes them):

- its Python stack (a ``faulthandler`` dump of every thread, taken on a signal, which
  works while the main thread sits in native code);
- its CPU time (a kernel spinning on the host advances it; a call waiting on a device
  that never answers does not);
- its output (bytes written to its log).

Any of the three changing is progress. A native loop that spins without end looks slow,
not hung: the budget's hard limit still ends it, and it is reported as slow, never re-run
when slow again (``slow_rerun``).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

DEFAULT_WINDOW = 300.0  # seconds without progress that make a hang (Torch Spyre's stall watcher)
# A test's own window (a config's hang_window: testing/plugin/adaptation.py marks each test);
# the zygote reads it per test (zygote.py): `@pytest.mark.oot_hang_window(600)`.
HANG_WINDOW_MARK = "oot_hang_window"
SAMPLES_PER_WINDOW = 20  # detection lands within window * (1 + 1/20)
CPU_NOISE = 0.05  # share of a sampling interval of CPU that is not progress (the dump itself)

HANG, SLOW, TIMEOUT = "hang", "slow", "timeout"


@dataclass(frozen=True)
class Sample:
    at: float  # monotonic seconds
    stack: str  # the Python frames of every thread, addresses stripped
    cpu: float  # CPU seconds of the process so far
    output: int  # bytes of output so far


@dataclass(frozen=True)
class StallPolicy:
    """How long without progress is a hang; how long a test may run (its budget)."""

    window: float = DEFAULT_WINDOW
    budget: Optional[float] = None  # None: no budget, only hangs end a test
    # per unit (a test's node id): its own window, over `window` (a config's hang_window)
    windows: Mapping[str, float] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for window in (self.window, *self.windows.values()):
            if not window > 0:
                raise ValueError(f"hang window must be positive, got {window:g}")
        if self.budget is not None and not self.budget > 0:
            raise ValueError(f"time budget must be positive, got {self.budget:g}")

    def for_unit(self, key: Optional[str]) -> "StallPolicy":
        """The policy of one running unit: its own window when it has one."""
        window = self.windows.get(key, self.window) if key is not None else self.window
        return StallPolicy(window, self.budget)

    @property
    def interval(self) -> float:
        return self.window / SAMPLES_PER_WINDOW


class Watch:
    """The samples of one running test, and the judgement over them."""

    def __init__(self, policy: StallPolicy, began: float) -> None:
        self.policy = policy
        self.began = began
        self.last: Optional[Sample] = None
        self.last_progress = began
        self.moving = False  # the newest pair of samples showed progress

    def add(self, sample: Sample) -> None:
        self.moving = self.last is not None and self.progressed(self.last, sample)
        if self.last is None or self.moving:
            self.last_progress = sample.at
        self.last = sample

    def progressed(self, before: Sample, after: Sample) -> bool:
        cpu_floor = CPU_NOISE * max(after.at - before.at, 0.0)
        return (
            after.stack != before.stack or after.output != before.output or after.cpu - before.cpu > cpu_floor
        )

    def verdict(self, now: float) -> Optional[str]:
        """HANG once a whole window passed without progress; past the budget, SLOW while
        still progressing and TIMEOUT when it is not (stopped, but for less than a window:
        not proven hung); None while the test is within both."""
        if now - self.last_progress >= self.policy.window:
            return HANG
        if self.policy.budget is not None and now - self.began > self.policy.budget:
            return SLOW if self.moving else TIMEOUT
        return None

    def describe(self, kind: str, now: float) -> str:
        """SLOW and HANG; TIMEOUT is worded by the supervisor (it knows the user's timeout)."""
        if kind == HANG:
            return (
                f"hang: no progress for {now - self.last_progress:.0f}s (window {self.policy.window:g}s: "
                "stack unchanged, no CPU, no output)"
            )
        return f"slow: still making progress past its {self.policy.budget:g}s budget"


def slow_rerun(previous: Optional[str], kind: str) -> bool:
    """A slow test is re-run at most once, and never when it was slow the first time too."""
    return kind == SLOW and previous != SLOW
