"""Two engines timed in alternating turns, each in a child process that stays alive and
answers commands over a pipe, so one machine load hits both (on a shared machine the load
moves between two sequential runs, and their ratio then says when each ran).

`rounds` times each question once on each engine per round, back to back, the first engine
alternating by round and question. The pipe: one line each way: the parent writes a command (`verb [argument]`), the child answers one JSON
object; its first line, unasked, says it is ready (after its ingest). The parent never waits
forever: every answer has a deadline, and a child that dies, stalls, answers something that is
not the JSON object asked for, or answers {"error": ...} raises ChildError (one line). A Child
is a context manager: leaving it kills the process by its PID (if still running) and reaps it.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from typing import IO, Callable, Iterable, Mapping

from tools.errors import ToolsError

QUIT_TIMEOUT = 30  # seconds a child gets to exit after `quit` before it is killed
TIMING = ("wall", "cpu", "answer")  # a `time` or `floor` answer: seconds, CPU seconds, answer


class ChildError(ToolsError):
    """A child that died, stalled or answered garbage: one line for the bench to print."""


class Child:
    def __init__(self, name: str, argv: list[str], env: Mapping[str, str]):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(env))
        self._buffer = b""
        self._reaped: tuple[int, float] | None = None  # (exit code, peak RSS in MB)

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *_) -> None:
        self.reap(timeout=0)

    def ask(self, command: str, timeout: float, keys: Iterable[str] = ()) -> dict:
        """Send `command`; its answer, which must hold `keys`."""
        try:
            self.proc.stdin.write(command.encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise self._died(command) from None
        return self.answer(command, timeout, keys)

    def answer(self, doing: str, timeout: float, keys: Iterable[str] = ()) -> dict:
        """The child's next line (its answer to `doing`): a JSON object holding `keys`."""
        line = self._line(doing, timeout)
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if isinstance(reply, dict) and "error" in reply:
            raise ChildError(f"the {self.name} child failed at {doing!r}: {reply['error']}")
        if not isinstance(reply, dict) or any(k not in reply for k in keys):
            raise ChildError(f"the {self.name} child answered garbage to {doing!r}: {line[:120]!r}")
        return reply

    def _line(self, doing: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise ChildError(f"the {self.name} child gave no answer to {doing!r} in {timeout:g} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._died(doing)
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode(errors="replace")

    def _died(self, doing: str) -> ChildError:
        code, _ = self.reap(QUIT_TIMEOUT)  # its pipe closed: it is exiting or has exited
        return ChildError(f"the {self.name} child died (exit {code}) at {doing!r}")

    def finish(self) -> float:
        """Ask the child to quit; its peak RSS in MB."""
        try:
            self.proc.stdin.write(b"quit\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # already gone: its exit code says how
        code, rss = self.reap(QUIT_TIMEOUT)
        if code != 0:
            raise ChildError(f"the {self.name} child exited with {code} when asked to quit")
        return rss

    def reap(self, timeout: float) -> tuple[int, float]:
        """Wait up to `timeout` s for the child to exit, then kill it (by its PID): its exit
        code and peak RSS (wait4's, the child's own)."""
        if self._reaped is None:
            deadline = time.monotonic() + timeout
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            while not pid and time.monotonic() < deadline:
                time.sleep(0.05)
                pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if not pid:
                self.proc.kill()
                _, status, usage = os.wait4(self.proc.pid, 0)
            self.proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait again
            for pipe in (self.proc.stdin, self.proc.stdout):
                try:
                    pipe.close()
                except BrokenPipeError:
                    pass  # unsent bytes of a child that died: nothing to deliver
            self._reaped = (self.proc.returncode, usage.ru_maxrss / 1024)
        return self._reaped


def turn(pair: tuple[Child, Child], k: int) -> tuple[Child, Child]:
    """Turn k's order: the first engine alternates, so neither always meets a load spike first."""
    return pair if k % 2 == 0 else pair[::-1]


def rounds(
    pair: tuple[Child, Child], questions: Iterable[str], repeat: int, floor_repeat: int, timeout: float
) -> dict[str, dict[str, list[dict]]]:
    """Engine -> question (and "floor") -> its timings in round order: each of `repeat` rounds
    asks `time <question>` once of each engine, back to back, the first alternating by round
    and question; then `floor` (an engine's cost of any question) `floor_repeat` times the
    same way."""
    questions = list(questions)
    runs = {c.name: {q: [] for q in (*questions, "floor")} for c in pair}
    for r in range(repeat):
        for i, q in enumerate(questions):
            for c in turn(pair, r + i):
                runs[c.name][q].append(c.ask(f"time {q}", timeout, TIMING))
    for k in range(floor_repeat):
        for c in turn(pair, k):
            runs[c.name]["floor"].append(c.ask("floor", timeout, TIMING))
    return runs


def spreads(a: dict[str, list[dict]], b: dict[str, list[dict]]) -> dict[str, tuple[float, float]]:
    """Question -> the lowest and highest of its turns' wall-time ratios a / b (how steady)."""
    out = {}
    for q in a:
        ratios = [x["wall"] / max(y["wall"], 1e-9) for x, y in zip(a[q], b[q])]
        out[q] = (min(ratios), max(ratios))
    return out


# ------------------------------------------------------------------ the child's side


def channel() -> IO[str]:
    """The child's reply stream: a private copy of stdout; fd 1 then points at stderr, so an
    engine's own output (a library printing) cannot corrupt the replies. Call it first."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    return out


def serve(out: IO[str], ready: dict, handlers: Mapping[str, Callable[[str], dict]]) -> None:
    """Say `ready`, then answer each command line with its handler's JSON object (a handler's
    exception as {"error": ...}) until `quit` or the end of stdin."""
    reply(out, ready)
    for line in sys.stdin:
        verb, _, argument = line.strip().partition(" ")
        if verb == "quit":
            return
        handler = handlers.get(verb)
        try:
            answer = handler(argument) if handler else {"error": f"unknown command {line.strip()!r}"}
        except Exception as err:  # noqa: BLE001 (any failure becomes the parent's one-line error)
            answer = {"error": f"{type(err).__name__}: {err}"[:300]}
        reply(out, answer)


def reply(out: IO[str], answer: dict) -> None:
    out.write(json.dumps(answer) + "\n")
    out.flush()
