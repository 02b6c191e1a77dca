"""The progress journal one pytest process writes as it runs, in the supervisor's events.

One typed event a line (testing/supervisor/events.py), flushed one at a time,
so that after the process dies (a segfault, an abort, a kill) the supervisor
still knows what was selected, what finished and which test was running when
it died. The runner passes a pipe (``/dev/fd/N``) and follows it live; a file
works the same and is read back with ``read``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from testing.supervisor.events import Begin, End, Event, Finished, Planned, decode, encode


@dataclass
class JournalState:
    selected: list[str] = field(default_factory=list)
    started: list[str] = field(default_factory=list)
    finished: dict[str, tuple[str, float]] = field(default_factory=dict)  # nodeid -> (outcome, seconds)
    complete: bool = False  # the session reached its end normally

    @property
    def running(self) -> str | None:
        """The test that had started but not finished (the crash culprit)."""
        unfinished = [n for n in self.started if n not in self.finished]
        return unfinished[-1] if unfinished else None

    def remaining(self) -> list[str]:
        """Selected tests that never started, in selection order."""
        started = set(self.started)
        return [n for n in self.selected if n not in started]

    def observe(self, event: Event) -> None:
        if isinstance(event, Planned):
            self.selected = list(event.keys)
        elif isinstance(event, Begin):
            self.started.append(event.key)
        elif isinstance(event, End):
            self.finished[event.key] = (event.info["outcome"], float(event.info["seconds"]))
        elif isinstance(event, Finished):
            self.complete = True


class JournalWriter:
    def __init__(self, path: Path) -> None:
        self._out: IO[str] = open(path, "a", encoding="utf-8", buffering=1)

    def _write(self, event: Event) -> None:
        self._out.write(encode(event))
        self._out.flush()

    def selected(self, nodeids: list[str]) -> None:
        self._write(Planned(list(nodeids)))

    def start(self, nodeid: str) -> None:
        self._write(Begin(nodeid))

    def end(self, nodeid: str, outcome: str, seconds: float, detail: str = "") -> None:
        info = {"outcome": outcome, "seconds": round(seconds, 6)}
        self._write(End(nodeid, {**info, "detail": detail} if detail else info))

    def complete(self) -> None:
        self._write(Finished())
        self._out.close()


def read(path: Path) -> JournalState:
    """Replay a journal; a torn last line (death mid-write) is ignored."""
    state = JournalState()
    if not path.exists():
        return state
    for line in path.read_text(encoding="utf-8").splitlines():
        event = decode(line)
        if event is not None:
            state.observe(event)
    return state
