"""Durable outbox: every callback is on disk before it is sent.

One JSON file per pending callback, written atomically; a file is removed
only after the relay has the callback. On the next start `pending()` lists
what a crash left behind, oldest first.

A *guard* is a completed callback written ahead while a job runs (conclusion
`cancelled`), owned by the running process. A normal finish atomically
replaces it with the real completed body; if the owner dies (SIGKILL, OOM,
lost runner), the next start delivers the guard so HUD never shows the job
stuck "running".
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from testing.base.atomic import write_json


def _proc_start(pid: int) -> Optional[str]:
    """Kernel start time of `pid` (guards against pid reuse), None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return fields[19] if len(fields) > 19 else "?"


def owner_token() -> dict:
    pid = os.getpid()
    return {"pid": pid, "start": _proc_start(pid), "host": socket.gethostname()}


def owner_alive(owner: Optional[dict]) -> bool:
    if not owner or owner.get("host") != socket.gethostname():
        return False  # another machine's guard: nobody here will finish it
    start = _proc_start(int(owner.get("pid", -1)))
    return start is not None and start == owner.get("start")


@dataclass(frozen=True)
class Item:
    path: Path
    entry: dict

    @property
    def is_guard(self) -> bool:
        return self.entry.get("kind") == "guard"


class Outbox:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.dead_dir = self.root / "dead"

    def _new_path(self, prefix: str) -> Path:
        return self.root / f"{prefix}-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.json"

    def put(self, url: str, repo: str, body: dict, *, guard: bool = False) -> Item:
        entry = {
            "kind": "guard" if guard else "callback",
            "url": url,
            "repo": repo,
            "body": body,
            "attempts": 0,
            "created": time.time(),
        }
        if guard:
            entry["owner"] = owner_token()
        item = Item(self._new_path("g" if guard else "c"), entry)
        write_json(item.path, entry, sort_keys=True, durable=True, mode=0o600)
        return item

    def save(self, item: Item) -> None:
        write_json(item.path, item.entry, sort_keys=True, durable=True, mode=0o600)

    def replace_guard(self, guard: Item, body: dict) -> Item:
        """Swap the guard's body for the real completed one in one rename."""
        entry = dict(guard.entry, kind="callback", body=body)
        entry.pop("owner", None)
        item = Item(guard.path, entry)
        self.save(item)
        return item

    def done(self, item: Item) -> None:
        try:
            item.path.unlink()
        except FileNotFoundError:
            pass

    def bury(self, item: Item, reason: str) -> Path:
        """Move a permanently rejected callback aside (kept for inspection)."""
        self.dead_dir.mkdir(parents=True, exist_ok=True)
        target = self.dead_dir / item.path.name
        write_json(target, dict(item.entry, rejected=reason), sort_keys=True, durable=True, mode=0o600)
        self.done(item)
        return target

    def pending(self, *, include_live_guards: bool = False) -> list[Item]:
        if not self.root.is_dir():
            return []
        items = []
        for path in sorted(self.root.glob("[cg]-*.json"), key=lambda p: p.name[2:]):
            try:
                entry = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # atomic writes make this a foreign file; leave it alone
            item = Item(path, entry)
            if item.is_guard and owner_alive(entry.get("owner")) and not include_live_guards:
                continue
            items.append(item)
        return items

    def dead(self) -> list[Path]:
        return sorted(self.dead_dir.glob("*.json")) if self.dead_dir.is_dir() else []
