"""The one crash-restart supervisor: run a child, follow its events, survive its death.

A child (a forked copy of a pre-imported process, or a fresh interpreter) runs
keyed units of work and reports ``Begin(key)`` before each. When it dies with a
key in flight (segfault, abort, ``os._exit``, the watchdog's kill), the
supervisor emits ``Crashed(key)`` and launches the next child, which skips every
key already done. After ``max_restarts`` deaths the keys never run are emitted
as ``NotRun`` rather than dropped. Users supply ``launch`` (how to start a child
for the current progress) and ``sink`` (what to do with each event).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import dataclasses
import os
import selectors  # not `select`: tools/select shadows that name under some sys.paths
import signal
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol

from testing.supervisor import events, sampling
from testing.supervisor.events import Begin, Crashed, End, Event, Finished, NotRun, Planned
from testing.supervisor.stall import TIMEOUT, StallPolicy, Watch

MAX_RESTARTS = 200
RESTART, STOP, GIVE_UP = "restart", "stop", "give_up"


class Child(Protocol):
    """A running child: its event stream's read end and how to wait for / kill it."""

    fd: int
    # optional: pid (its process group's id), stack_path (where it dumps its stacks on
    # sampling.DUMP_SIGNAL), log_path; with them a stall policy tells hangs from slow tests

    def poll(self) -> Optional[int]: ...
    def wait(self) -> int: ...  # exit status; negative: killed by that signal
    def kill(self) -> None: ...
    def tail(self, lines: int = 15) -> str: ...


@dataclass
class Progress:
    planned: Optional[list[str]] = None  # the first child's work list
    info: dict = field(default_factory=dict)  # per planned key (e.g. a test's location)
    done: set[str] = field(default_factory=set)
    inflight: Optional[str] = None
    inflight_info: dict = field(default_factory=dict)
    since: float = 0.0
    finished: bool = False  # the current child reached its normal end
    restarts: int = 0
    status: Optional[int] = None  # the last child's exit status

    def remaining(self) -> Optional[list[str]]:
        """Planned keys not done, in order; None when no child said what it would run."""
        if self.planned is None:
            return None
        return [k for k in self.planned if k not in self.done]

    def observe(self, event: Event) -> None:
        if isinstance(event, Planned) and self.planned is None:
            self.planned, self.info = list(event.keys), dict(event.info)
        elif isinstance(event, Begin):
            self.inflight, self.inflight_info, self.since = event.key, event.info, time.monotonic()
        elif isinstance(event, End):
            self.done.add(event.key)
            self.inflight = None
        elif isinstance(event, Finished):
            self.finished = True


def describe_exit(status: int) -> str:
    if status < 0:
        try:
            return f"signal {-status} ({signal.Signals(-status).name})"
        except ValueError:
            return f"signal {-status}"
    return f"exit code {status}"


def next_step(progress: Progress, crashed: bool, max_restarts: int) -> str:
    """After a child's exit: start another, stop, or give up on what is left (pure)."""
    if progress.finished:
        return STOP
    remaining = progress.remaining()
    if remaining is None and not crashed:
        return STOP  # died before saying what it would run: the caller reports that
    if remaining is not None and not remaining:
        return STOP
    return GIVE_UP if progress.restarts >= max_restarts else RESTART


def watchdog_limit(timeout: float) -> float:
    """Kill a unit this long after its Begin: later than the in-process timeout
    (pytest-timeout) so that one reports a hang in Python code first."""
    return timeout * 1.25 + 2


def supervise(
    launch: Callable[[Progress], Child],
    sink: Callable[[Event], None],
    *,
    timeout: Optional[float] = None,
    max_restarts: int = MAX_RESTARTS,
    decode: Callable[[bytes], Optional[Event]] = events.decode,
    clean_exit_finishes: bool = False,
    should_stop: Callable[[], bool] = lambda: False,
    stall: Optional[StallPolicy] = None,
) -> Progress:
    """Run children until the work is done; returns the final progress.

    ``clean_exit_finishes``: for children that never send ``Finished``, exit
    status 0 means they reached their end. ``should_stop`` is asked after each
    event (e.g. pytest's -x): true kills the child and ends the run. ``stall``: sample the
    running unit (stall.py) and end it as hung after a window without progress, or as
    slow past its budget; each such end is a ``Crashed`` with that ``trouble``."""
    progress = Progress()
    while True:
        child = launch(progress)
        progress.finished = False
        try:
            killed, stopped = _follow(child, progress, sink, timeout, decode, should_stop, stall)
        except BaseException:
            child.kill()
            child.wait()
            raise
        progress.status = status = child.wait()
        if stopped:
            progress.finished = True
            return progress
        if clean_exit_finishes and status == 0:
            progress.finished = True
        crashed = progress.inflight is not None
        if crashed:
            key = progress.inflight
            why, trouble = killed or (describe_exit(status), "crash")
            sink(Crashed(key, why, child.tail(), progress.inflight_info, trouble))
            progress.done.add(key)
            progress.inflight = None
            progress.finished = False  # the key it died on cannot have been its last word
        step = next_step(progress, crashed, max_restarts)
        if step == STOP:
            return progress
        if step == GIVE_UP:
            left = progress.remaining() or []
            if left:
                sink(
                    NotRun(
                        left,
                        f"not run: the worker died {progress.restarts + 1} times "
                        f"(restart limit {max_restarts}); last: {describe_exit(status)}",
                    )
                )
                progress.done.update(left)
            return progress
        progress.restarts += 1


def _follow(
    child: Child, progress: Progress, sink, timeout, decode, should_stop, stall
) -> tuple[Optional[tuple[str, str]], bool]:
    """Pump one child's events to its end. Returns ((why, trouble) if the supervisor
    killed the child, whether should_stop ended the run)."""
    buf, killed = b"", None
    exited_at = None
    watch = _Sampler(child, stall, timeout)
    with selectors.DefaultSelector() as selector:
        selector.register(child.fd, selectors.EVENT_READ)
        while True:
            ready = selector.select(watch.tick)
            if ready:
                chunk = os.read(child.fd, 1 << 16)
                if not chunk:
                    return killed, False
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    event = decode(line)
                    if event is None:
                        continue
                    progress.observe(event)
                    sink(event)
                    if should_stop():
                        child.kill()
                        return killed, True
            if progress.inflight and killed is None:
                killed = watch.judge(progress)
                if killed is not None:
                    child.kill()
            if ready:
                continue
            # a grandchild holding the pipe open must not keep us waiting past the child's exit
            if child.poll() is not None:
                exited_at = exited_at or time.monotonic()
                if time.monotonic() - exited_at > 2.0:
                    return killed, False


class _Sampler:
    """The watchdog of one child: samples its running unit under a stall policy, or
    (without one) only bounds it by the timeout. ``judge`` says why to kill it, if so."""

    def __init__(self, child: Child, stall: Optional[StallPolicy], timeout: Optional[float]) -> None:
        if stall is not None and stall.budget is None and timeout:
            stall = dataclasses.replace(stall, budget=watchdog_limit(timeout))
        self.child, self.stall, self.timeout = child, stall, timeout
        self.pid = getattr(child, "pid", None)
        self._pace(stall)
        self.key: Optional[str] = None
        self.watch: Optional[Watch] = None
        self.sampled = 0.0

    def judge(self, progress: Progress) -> Optional[tuple[str, str]]:
        now = time.monotonic()
        if self.stall is None or self.pid is None:
            return (
                self._timed_out()
                if self.timeout and now - progress.since > watchdog_limit(self.timeout)
                else None
            )
        if self.key != progress.inflight:  # a new unit began: a new watch, under its own window
            policy = self.stall.for_unit(progress.inflight)
            self.key, self.watch = progress.inflight, Watch(policy, progress.since)
            self._pace(policy)
        if now - self.sampled >= self.interval:
            self.sampled = now
            stacks = getattr(self.child, "stack_path", None)
            self.watch.add(sampling.take(self.pid, stacks, getattr(self.child, "log_path", None)))
        kind = self.watch.verdict(time.monotonic())
        if kind == TIMEOUT:
            return self._timed_out()
        return None if kind is None else (self.watch.describe(kind, time.monotonic()), kind)

    def _pace(self, stall: Optional[StallPolicy]) -> None:
        """Sample often enough to see a budget's last seconds (a 2 s timeout under a 300 s
        window) and a short window's end (a test's own window)."""
        self.interval = (
            min(stall.interval, stall.budget / 5)
            if stall and stall.budget
            else (stall.interval if stall else 0.5)
        )
        self.tick = min(0.5, self.interval)

    def _timed_out(self) -> tuple[str, str]:
        limit = self.timeout or self.stall.budget
        return f"timeout: no result after {limit:g}s (watchdog killed the worker)", TIMEOUT
