"""Taking the samples ``stall.py`` judges: a running test's Python stack, CPU time and output.

The child arms a ``faulthandler`` dump on SIGUSR2 into a file of its own (``arm``); the
supervisor signals it and reads the new dump (``take``). The dump is written from the
signal handler in C, so it shows where every thread is even while the main thread waits
inside a native call. CPU time is the sum over the child's process group (a test's own
subprocesses count), read from /proc; without /proc it reads as 0 and only the stack and
the output judge.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import faulthandler
import os
import re
import signal
import time
from pathlib import Path
from typing import IO, Optional

from testing.supervisor.stall import Sample

DUMP_SIGNAL = signal.SIGUSR2
_THREAD_ID = re.compile(r"0x[0-9a-f]+")
_armed: Optional[IO[str]] = None  # kept open for the life of the child


def arm(stack_path: str) -> bool:
    """In the child: dump every thread's stack into ``stack_path`` on DUMP_SIGNAL. False
    when the file cannot be made (a log on /dev/null): then only CPU and output judge."""
    global _armed
    try:
        _armed = open(stack_path, "a", encoding="utf-8")  # noqa: SIM115 (the handler writes to it later)
    except OSError:
        return False
    faulthandler.register(DUMP_SIGNAL, file=_armed, all_threads=True, chain=False)
    return True


def take(pid: int, stack_path: Optional[str], log_path: Optional[str], wait: float = 0.5) -> Sample:
    """One sample of the running child ``pid`` (the leader of its process group)."""
    return Sample(
        at=time.monotonic(),
        stack=_stack(pid, stack_path, wait) if stack_path else "",
        cpu=group_cpu(pid),
        output=_size(log_path),
    )


def _stack(pid: int, path: str, wait: float) -> str:
    before = _size(path)
    try:
        os.kill(pid, DUMP_SIGNAL)
    except ProcessLookupError:
        return ""
    deadline, seen = time.monotonic() + wait, before
    while time.monotonic() < deadline:
        time.sleep(0.01)
        now = _size(path)
        if now > before and now == seen:  # grown, and done growing
            break
        seen = now
    with open(path, encoding="utf-8", errors="replace") as f:
        f.seek(before)
        return _THREAD_ID.sub("0x", f.read())


def _size(path: Optional[str]) -> int:
    try:
        return os.stat(path).st_size if path else 0
    except OSError:
        return 0


def group_cpu(pgid: int) -> float:
    """CPU seconds (user + system) of every live process in group ``pgid``."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:  # fields after "pid (comm)": state ppid pgrp ...
            ticks += int(fields[11]) + int(fields[12])  # utime stime
    return ticks / os.sysconf("SC_CLK_TCK")
