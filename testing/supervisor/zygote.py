"""The zygote: import torch, the backend and the test modules once, fork a child per batch.

A pytest process registers ``Zygote`` before collection (``-p testing.supervisor.zygote``,
or the adaptation plugin's ``--isolate``). Configuration and collection run here
once; ``pytest_runtestloop`` then runs the tests in a forked child that streams
its progress (pytest_events.ChildStream). When the child dies, the supervisor
reports the test it was running as crashed and forks the next child, which
resumes after it: a crash costs one fork, not one interpreter start. The parent
replays the children's reports through its own hooks, so its terminal, JUnit XML
and result plugins see one ordinary run.

Where fork is unsafe (forksafety.py), the zygote hands over to ``fallback`` (the
restart mode: fresh interpreters) or, without one, runs the tests in-process.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Callable, Optional

import pytest

from testing.supervisor import forksafety, supervisor
from testing.supervisor.children import Forked, tail
from testing.supervisor.events import Writer
from testing.supervisor.pytest_events import ChildStream, Replayer, mute_replayed_hooks
from testing.supervisor.scratch import remove, scratch_dir
from testing.supervisor.stall import HANG_WINDOW_MARK, StallPolicy
from testing.supervisor.supervisor import Progress, describe_exit, supervise

PLUGIN_NAME = "oot-zygote"
Fallback = Callable[[pytest.Session, str], Optional[bool]]


class Zygote:
    def __init__(
        self,
        config: pytest.Config,
        timeout: Optional[float] = None,
        keep_going_after_collection_errors: bool = False,
        fallback: Optional[Fallback] = None,
        stall: Optional[StallPolicy] = None,
    ) -> None:
        self.config = config
        self.timeout = timeout
        self.stall = stall
        self.keep_going = keep_going_after_collection_errors
        self.fallback = fallback
        self.tmp = scratch_dir("oot-zygote-")
        self.forks = 0
        forksafety.pin_torch_threads()  # before collection: torch's pool must not start here

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Optional[bool]:
        if session.config.option.collectonly or not session.items:
            return None
        if session.testsfailed and not (
            self.keep_going or session.config.option.continue_on_collection_errors
        ):
            return None  # pytest's own loop stops the run on collection errors
        hazards = forksafety.current_hazards()
        if hazards:
            return self._unsafe(session, "; ".join(hazards))
        progress = supervise(
            lambda p: self._fork(session, p),
            Replayer(self.config, session, collection=False),
            timeout=self.timeout,
            stall=marked_windows(self.stall, session.items),
            max_restarts=supervisor.MAX_RESTARTS,
            should_stop=lambda: bool(session.shouldfail or session.shouldstop),
        )
        if progress.planned is None:
            last = os.path.join(self.tmp, f"child-{self.forks - 1}.log")
            return self._unsafe(
                session,
                f"the first forked child ended with {describe_exit(progress.status)} "
                f"before running a test: {tail(last, 3).strip() or 'no output'}",
            )
        if session.shouldfail:
            raise session.Failed(session.shouldfail)
        if session.shouldstop:
            raise session.Interrupted(session.shouldstop)
        return True

    def pytest_unconfigure(self) -> None:
        forksafety.unpin_torch_threads()
        remove(self.tmp)

    def _fork(self, session: pytest.Session, progress: Progress) -> Forked:
        todo = [item for item in session.items if item.nodeid not in progress.done]
        log = os.path.join(self.tmp, f"child-{self.forks}.log")
        self.forks += 1
        return Forked(lambda fd: self._child(todo, fd), log)

    def _child(self, todo: list, fd: int) -> int:
        """Runs in the fork: the tests of ``todo`` in order, then leaves."""
        forksafety.unpin_torch_threads()
        why = forksafety.canary()
        if why:
            print(f"zygote: {why}", file=sys.stderr)
            return forksafety.CANARY_FAILED
        stream = ChildStream(self.config, Writer(fd))
        self.config.pluginmanager.register(stream, "oot-zygote-child")
        mute_replayed_hooks(self.config, stream)
        stream.plan(todo)
        for i, item in enumerate(todo):
            item.config.hook.pytest_runtest_protocol(
                item=item, nextitem=todo[i + 1] if i + 1 < len(todo) else None
            )
        stream.finish()
        return 0

    def _unsafe(self, session: pytest.Session, why: str) -> Optional[bool]:
        forksafety.unpin_torch_threads()
        self.config.get_terminal_writer().line(f"zygote: not forking ({why})", yellow=True)
        return self.fallback(session, why) if self.fallback else None


def register(config: pytest.Config, **kwargs) -> Zygote:
    """The zygote of this process (one per process, whoever asks first)."""
    existing = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if existing is not None:
        for name, value in kwargs.items():
            setattr(existing, {"keep_going_after_collection_errors": "keep_going"}.get(name, name), value)
        return existing
    zygote = Zygote(config, **kwargs)
    config.pluginmanager.register(zygote, PLUGIN_NAME)
    return zygote


def stall_policy(config: pytest.Config) -> StallPolicy:
    """Hangs told from slow tests in every forked child: --oot-hang-window, else
    $OOT_HANG_WINDOW (the shard runner's --hang-window), else the default."""
    window = getattr(config.option, "oot_hang_window", None) or os.environ.get("OOT_HANG_WINDOW")
    try:
        return StallPolicy(window=float(window)) if window else StallPolicy()
    except ValueError as err:
        raise pytest.UsageError(f"OOT_HANG_WINDOW={window!r}: {err}") from None


def marked_windows(stall: Optional[StallPolicy], items) -> Optional[StallPolicy]:
    """The policy with each test's own window (its `oot_hang_window` mark: a config's
    hang_window, stall.HANG_WINDOW_MARK) over the run's."""
    if stall is None:
        return None
    windows = {}
    for item in items:
        mark = item.get_closest_marker(HANG_WINDOW_MARK)
        if mark is not None and mark.args:
            windows[item.nodeid] = float(mark.args[0])
    return dataclasses.replace(stall, windows=windows) if windows else stall


def _timeout(config: pytest.Config) -> Optional[float]:
    return getattr(config.option, "oot_timeout", None) or getattr(config.option, "timeout", None) or None


# `-p testing.supervisor.zygote`: this module is then a plugin (the shard runner loads it).
@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # an xdist-style worker runs its tests itself
        register(config, timeout=_timeout(config), stall=stall_policy(config))
