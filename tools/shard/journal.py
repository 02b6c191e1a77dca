"""The progress journal one pytest process writes as it runs.

JSON lines, flushed one at a time, so that after the process dies (a
segfault, an abort, a kill) the supervisor still knows what was selected,
what finished and which test was running when it died.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO


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


class JournalWriter:
    def __init__(self, path: Path) -> None:
        self._out: IO[str] = open(path, "a", encoding="utf-8", buffering=1)

    def _write(self, **event: object) -> None:
        self._out.write(json.dumps(event) + "\n")
        self._out.flush()

    def selected(self, nodeids: list[str]) -> None:
        self._write(event="selected", nodeids=nodeids)

    def start(self, nodeid: str) -> None:
        self._write(event="start", nodeid=nodeid)

    def end(self, nodeid: str, outcome: str, seconds: float) -> None:
        self._write(event="end", nodeid=nodeid, outcome=outcome, seconds=round(seconds, 6))

    def complete(self) -> None:
        self._write(event="complete")
        self._out.close()


def read(path: Path) -> JournalState:
    """Replay a journal; a torn last line (death mid-write) is ignored."""
    state = JournalState()
    if not path.exists():
        return state
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        kind = event.get("event")
        if kind == "selected":
            state.selected = list(event["nodeids"])
        elif kind == "start":
            state.started.append(event["nodeid"])
        elif kind == "end":
            state.finished[event["nodeid"]] = (event["outcome"], float(event["seconds"]))
        elif kind == "complete":
            state.complete = True
    return state
