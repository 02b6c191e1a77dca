"""The two kinds of child a supervisor runs: a fork of this process, or a fresh interpreter;
and stopping a child's whole process group (``stop_group``, ``stop_process_group``).

Both hand the supervisor the read end of a pipe carrying the child's events
and a log of its output (the tail goes into crash reports).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import faulthandler
import os
import signal
import subprocess
import sys
import time
import traceback
from typing import Callable, Optional, Union

from testing.supervisor import sampling

ENV_FD = "OOT_EVENTS_FD"  # a spawned child writes its events to this inherited fd
CHILD_FAILED = 70  # the forked function raised (EX_SOFTWARE)


def tail(path: Optional[str], lines: int = 15) -> str:
    if not path:
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


class Forked:
    """``run(fd)`` in a fork of this process, its stdout/stderr appended to ``log_path``.

    The one way anything here forks: the pytest zygote's children and the fork server's
    (forkserver.py). The child has its own process group, so killing the group ends
    whatever it started too. It never returns into the caller: it leaves with ``os._exit``
    (no atexit handlers, no buffered files of the parent flushed twice). ``as_fresh``: the
    child starts as a fresh interpreter would (stdin from /dev/null, SIGINT and SIGTERM as
    Python sets them, the log written anew), for forks that stand in for a new process."""

    def __init__(self, run: Callable[[int], int], log_path: str, as_fresh: bool = False) -> None:
        self.log_path = log_path
        self.stack_path = log_path + ".stacks"  # sampling.take reads the child's dumps here
        self.cpu = 0.0  # the child's CPU seconds, once it is reaped
        self.fd, w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            self._child(run, w, as_fresh)
        os.close(w)
        self._status: Optional[int] = None

    def _child(self, run: Callable[[int], int], w: int, as_fresh: bool) -> None:
        code = CHILD_FAILED
        try:
            os.setpgid(0, 0)  # the watchdog kills the test's own subprocesses with it
            os.close(self.fd)
            if as_fresh:
                _as_fresh_interpreter()
            flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if as_fresh else os.O_APPEND)
            log = os.open(self.log_path, flags, 0o644)
            os.dup2(log, 1)
            os.dup2(log, 2)
            os.close(log)
            if faulthandler.is_enabled():  # tracebacks of a crash belong in this child's log
                faulthandler.enable(file=sys.__stderr__ or sys.stderr)
            sampling.arm(self.stack_path)
            code = run(w)
        except BaseException:
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass
            os._exit(code)

    def _reap(self, flags: int) -> Optional[int]:
        if self._status is None:
            pid, status, usage = os.wait4(self.pid, flags)
            if pid:
                self._status = os.waitstatus_to_exitcode(status)
                self.cpu = usage.ru_utime + usage.ru_stime
        return self._status

    def poll(self) -> Optional[int]:
        return self._reap(os.WNOHANG)

    def wait(self) -> int:
        status = self._reap(0)
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        return status

    def kill(self) -> None:
        for target in (
            lambda: os.killpg(self.pid, signal.SIGKILL),
            lambda: os.kill(self.pid, signal.SIGKILL),
        ):
            try:
                target()
                return
            except OSError:
                continue

    def tail(self, lines: int = 15) -> str:
        return tail(self.log_path, lines)


def _as_fresh_interpreter() -> None:
    """In a fork: stdin and the signals a new `python` process starts with."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


class Spawned:
    """A fresh interpreter running ``cmd``; it writes events to the fd named in
    ``$OOT_EVENTS_FD`` (``cmd`` may also be a function of that fd, to name it in an
    argument), or with ``events_on_stdout`` to its stdout. Output goes to
    ``log_path`` (None: inherited, e.g. into Bazel's test log)."""

    def __init__(
        self,
        cmd: Union[list[str], Callable[[int], list[str]]],
        env: dict[str, str],
        cwd: Optional[str],
        log_path: Optional[str],
        stdin_text: Optional[str] = None,
        events_on_stdout: bool = False,
    ) -> None:
        self.log_path = log_path
        self.fd, w = os.pipe()
        cmd = cmd(w) if callable(cmd) else cmd
        env = dict(env) if events_on_stdout else dict(env, **{ENV_FD: str(w)})
        log = open(log_path, "ab") if log_path else None
        try:
            self.proc = subprocess.Popen(
                cmd,
                env=env,
                cwd=cwd,
                pass_fds=() if events_on_stdout else (w,),
                stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                stdout=w if events_on_stdout else log,
                stderr=log if log else None,
                start_new_session=True,
            )
        finally:
            if log:
                log.close()
            os.close(w)
        self.pid = self.proc.pid
        if stdin_text is not None:
            self.proc.stdin.write(stdin_text.encode("utf-8"))
            self.proc.stdin.close()

    def poll(self) -> Optional[int]:
        return self.proc.poll()

    def wait(self) -> int:
        status = self.proc.wait()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        return status

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass

    def tail(self, lines: int = 15) -> str:
        return tail(self.log_path, lines)


def stop_group(proc: subprocess.Popen, grace: float, first: int = signal.SIGTERM) -> Optional[int]:
    """Stop a child started in its own session and everything it started (a bazel client and
    its server, a pytest and its workers): `first` (SIGTERM; SIGINT for a bazel client, which
    then cancels its server's command) to the group, `grace` seconds to end, then SIGKILL.
    Its exit status; None when it had already ended."""
    if proc.poll() is not None:
        return None
    for sig in (first, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:  # the group ended between the poll and the signal
            break
        try:
            return proc.wait(timeout=grace if sig == first else None)
        except subprocess.TimeoutExpired:
            continue
    return proc.wait()


def stop_process_group(pgid: int, grace: float = 10.0) -> None:
    """Stop a process group that is not our child's Popen (a fork server's run): SIGTERM,
    `grace` seconds for it to end, then SIGKILL; returns once the group is gone or killed."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait
        while time.monotonic() < end:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


def inherited_events_fd(environ=os.environ) -> Optional[int]:
    """In a spawned child: the events fd, taken out of the environment so the
    child's own subprocesses do not write into it."""
    value = environ.pop(ENV_FD, None)
    if not value:
        return None
    fd = int(value)
    os.set_inheritable(fd, False)
    return fd
