"""A stream of dispatches (pure reader): one JSON object a line, `{"at": T, "event": E}`.

T is when the relay dispatched it: epoch seconds or an ISO 8601 time (UTC when no zone);
E is a repository_dispatch event or its bare client_payload (crcr/dispatch/event.py); an
optional `"content": {"core": C, "suite": S}` names the commit's core and suite content (the
synthetic generator's; the simulator's reuse key reads it, else the commit). The
handler's local stream and `warehouse_tool simulate-stream` read the same file. Bad lines
never stop a replay: unknown event types, invalid payloads, events out of order and a PR
opened after it closed are each one line, skipped and counted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Optional

from crcr.callback_client.errors import ConfigError, PayloadError, one_line
from crcr.dispatch.event import Dispatch, load_dispatch


@dataclass(frozen=True)
class StreamEvent:
    at: float  # epoch seconds
    dispatch: Dispatch
    content: Optional[tuple[str, str]] = None  # (core, suite) content ids; None: key by commit


@dataclass
class Stream:
    events: list[StreamEvent] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "file:line: why", one per skipped line

    @property
    def pr_events(self) -> int:
        return sum(1 for e in self.events if e.dispatch.event_type == "pull_request")

    def arrivals(self) -> list[tuple[float, Dispatch]]:
        return [(e.at, e.dispatch) for e in self.events]

    def contents(self) -> list[Optional[tuple[str, str]]]:
        return [e.content for e in self.events]


def parse_time(raw) -> Optional[float]:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, str):
        try:
            t = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return None
        return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).timestamp()
    return None


def _one(obj, closed: set[str], last: Optional[float]) -> tuple[Optional[StreamEvent], str]:
    """(the event, "") or (None, why it is skipped)."""
    if not isinstance(obj, dict) or "event" not in obj:
        return None, 'not {"at": ..., "event": ...}'
    event = obj["event"]
    kind = (event.get("client_payload", event) if isinstance(event, dict) else {}).get("event_type")
    if kind not in ("pull_request", "push"):
        return None, f"unknown event type {str(kind)[:40]!r}"
    at = parse_time(obj.get("at"))
    if at is None:
        return None, f"at: {str(obj.get('at'))[:40]!r} is not epoch seconds or an ISO time"
    content = obj.get("content")
    if content is not None and not (
        isinstance(content, dict) and all(isinstance(content.get(k), str) for k in ("core", "suite"))
    ):
        return None, 'content: expected {"core": "...", "suite": "..."}'
    content = (content["core"], content["suite"]) if content else None
    if last is not None and at < last:
        return None, "out of order (earlier than the event before)"
    try:
        d = load_dispatch(event)
    except PayloadError as err:
        return None, one_line(str(err), 160)
    if d.event_type == "pull_request":
        key = f"{d.upstream_repo}#{d.pr_number}"
        if d.action == "opened" and key in closed:
            return None, f"PR #{d.pr_number} opened after it closed"
        if d.action == "closed":
            closed.add(key)
        elif d.action == "reopened":
            closed.discard(key)
    return StreamEvent(at, d, content), ""


def parse_stream(lines: Iterable[str], source: str) -> Stream:
    stream, closed, last = Stream(), set(), None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as err:
            stream.skipped.append(f"{source}:{n}: not JSON ({one_line(str(err), 80)}): skipped")
            continue
        event, why = _one(obj, closed, last)
        if event is None:
            stream.skipped.append(f"{source}:{n}: {why}: skipped")
            continue
        stream.events.append(event)
        last = event.at
    return stream


def read_stream(path: Path) -> Stream:
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: {getattr(err, 'strerror', None) or err}") from None
    return parse_stream(text.splitlines(), str(path))


def check_stream(stream: Stream, source: str) -> None:
    """An empty stream, or one without a PR event, is a clear one-line error."""
    if not stream.events:
        raise ConfigError(f"{source}: no dispatch to replay ({len(stream.skipped)} lines skipped)")
    if not stream.pr_events:
        raise ConfigError(f"{source}: no pull_request events: nothing for the PR gates to judge")
