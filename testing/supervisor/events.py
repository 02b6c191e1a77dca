"""The supervisor's typed events: what a child reports and what its supervisor concludes.

One JSON object a line (``{"e": <kind>, ...fields}``), written by the child before
and after each unit of work, so that when the child dies the supervisor knows
exactly which unit it was running. Every user (pytest isolation, the shard
runner, select's tracing) speaks this one protocol; payloads are theirs.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Optional, Union


@dataclass(frozen=True)
class Planned:
    """The child's work list, in run order (before any Begin). ``info`` per key is optional."""

    keys: list[str]
    info: dict[str, Any] = field(default_factory=dict)
    kind = "planned"


@dataclass(frozen=True)
class Begin:
    """The child is about to run ``key`` (sent before the work starts: the crash culprit)."""

    key: str
    info: dict[str, Any] = field(default_factory=dict)
    kind = "begin"


@dataclass(frozen=True)
class Payload:
    """User data (a pytest report, a trace); the supervisor passes it through untouched."""

    data: dict[str, Any]
    kind = "payload"


@dataclass(frozen=True)
class End:
    """``key`` finished (whatever its outcome)."""

    key: str
    info: dict[str, Any] = field(default_factory=dict)
    kind = "end"


@dataclass(frozen=True)
class Finished:
    """The child reached its normal end: keys still pending were left out on purpose (-x)."""

    kind = "finished"


@dataclass(frozen=True)
class Crashed:
    """Supervisor's verdict: the child died (or was killed) while ``key`` ran."""

    key: str
    why: str
    tail: str = ""
    info: dict[str, Any] = field(default_factory=dict)
    trouble: str = "crash"  # crash | hang | slow | timeout (stall.py tells hang from slow)
    kind = "crashed"


@dataclass(frozen=True)
class NotRun:
    """Supervisor's verdict: these keys never ran (the restart limit was reached)."""

    keys: list[str]
    reason: str
    kind = "not_run"


Event = Union[Planned, Begin, Payload, End, Finished, Crashed, NotRun]
_KINDS = {cls.kind: cls for cls in (Planned, Begin, Payload, End, Finished, Crashed, NotRun)}


def encode(event: Event) -> str:
    return json.dumps({"e": event.kind, **asdict(event)}) + "\n"


def decode(line: Union[str, bytes]) -> Optional[Event]:
    """One line back into its event; None for anything that is not one (a stray print)."""
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    cls = _KINDS.get(obj.pop("e", None)) if isinstance(obj, dict) else None
    if cls is None:
        return None
    try:
        return cls(**obj)
    except TypeError:
        return None


class Writer:
    """The child's end of the stream: one line per event, flushed, so a death loses nothing sent."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def send(self, event: Event) -> None:
        data = encode(event).encode("utf-8")
        while data:
            data = data[os.write(self._fd, data) :]
