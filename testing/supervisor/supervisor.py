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

import os
import selectors  # not `select`: tools/select shadows that name under some sys.paths
import signal
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol

from testing.supervisor import events
from testing.supervisor.events import Begin, Crashed, End, Event, Finished, NotRun, Planned

MAX_RESTARTS = 200
RESTART, STOP, GIVE_UP = "restart", "stop", "give_up"


class Child(Protocol):
    """A running child: its event stream's read end and how to wait for / kill it."""

    fd: int

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
) -> Progress:
    """Run children until the work is done; returns the final progress.

    ``clean_exit_finishes``: for children that never send ``Finished``, exit
    status 0 means they reached their end. ``should_stop`` is asked after each
    event (e.g. pytest's -x): true kills the child and ends the run."""
    progress = Progress()
    while True:
        child = launch(progress)
        progress.finished = False
        try:
            killed_why, stopped = _follow(child, progress, sink, timeout, decode, should_stop)
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
            sink(Crashed(key, killed_why or describe_exit(status), child.tail(), progress.inflight_info))
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
    child: Child, progress: Progress, sink, timeout, decode, should_stop
) -> tuple[Optional[str], bool]:
    """Pump one child's events to its end. Returns (the watchdog's reason if it killed
    the child, whether should_stop ended the run)."""
    buf, killed_why = b"", None
    exited_at = None
    with selectors.DefaultSelector() as selector:
        selector.register(child.fd, selectors.EVENT_READ)
        while True:
            ready = selector.select(0.5)
            if ready:
                chunk = os.read(child.fd, 1 << 16)
                if not chunk:
                    return killed_why, False
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
                        return killed_why, True
                continue
            if (
                progress.inflight
                and timeout
                and killed_why is None
                and time.monotonic() - progress.since > watchdog_limit(timeout)
            ):
                child.kill()
                killed_why = f"timeout: no result after {timeout:g}s (watchdog killed the worker)"
            # a grandchild holding the pipe open must not keep us waiting past the child's exit
            if child.poll() is not None:
                exited_at = exited_at or time.monotonic()
                if time.monotonic() - exited_at > 2.0:
                    return killed_why, False
