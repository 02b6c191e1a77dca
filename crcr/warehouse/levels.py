"""A backend's CRCR level history: the source of its L3 tenure and of the level it held at a
given time (pure; read once into a typed value).

The file (named by `--level-history`, or `$OOT_LEVEL_HISTORY`) names its repo on its first
line, then holds one dated entry a line, oldest first, `#` starting a comment:

    repo acme/oot-ci
    2026-08-01 L1                                  # allowlisted at L1 from this day (UTC)
    2026-09-01 L2
    2026-11-01 L3
    2026-11-20 demoted until 2026-11-25            # a temporary demotion while at L3
    2026-12-01 demoted until ongoing               # the demotion PR is still open

A temporary demotion (HUD's demotionStatus.ts, the relay's utils/demotion.py) leaves the
allowlist level at L3; it is written with its end, or `until ongoing`: a demotion without
an end, an overlapping or future entry and an unknown level are each one line, file:line.

Tenure follows HUD (torchci/lib/crcr/l3Readiness.ts, `tenureInfoFromRow`): days from when
the repo first reached L2, "cumulative ... not reset by later promotions": now - the first
L2 entry's day. No history, or one that never reached L2, is "no tenure data" (HUD: a
missing or invalid `l2_since` gives no tenure, so the gate is not judged).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from crcr.callback_client.errors import ConfigError

LEVELS = ("L1", "L2", "L3", "L4")
DAY = 86400
ONGOING = "ongoing"
ENV = "OOT_LEVEL_HISTORY"

_REPO = re.compile(r"^repo\s+([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)$")
_ENTRY = re.compile(r"^(\S+)\s+(\S+)(?:\s+(.*))?$")
_UNTIL = re.compile(r"^until\s+(\S+)$")


@dataclass(frozen=True)
class Demotion:
    start: float  # epoch seconds (UTC midnight)
    end: Optional[float]  # None: ongoing
    line: int


@dataclass(frozen=True)
class Entry:
    level: str
    since: float
    line: int


@dataclass(frozen=True)
class LevelHistory:
    source: str
    repo: str
    entries: tuple[Entry, ...]
    demotions: tuple[Demotion, ...]

    def l2_since(self) -> Optional[float]:
        """When the repo first reached L2 (HUD's `l2_since`), None if it never did."""
        return next((e.since for e in self.entries if e.level == "L2"), None)

    def tenure_days(self, now: float) -> Optional[float]:
        since = self.l2_since()
        return None if since is None else (now - since) / DAY

    def level_at(self, when: float) -> Optional[str]:
        """The allowlist level at `when` (None before the first entry)."""
        held = [e.level for e in self.entries if e.since <= when]
        return held[-1] if held else None

    def current(self) -> Optional[Entry]:
        return self.entries[-1] if self.entries else None

    def on_temporary_demotion(self, now: float) -> bool:
        return any(d.start <= now and (d.end is None or now < d.end) for d in self.demotions)


def _day(text: str, where: str) -> float:
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{where}: {text!r} is not a date (YYYY-MM-DD)") from None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp()


def parse_level_history(text: str, source: str, now: float) -> LevelHistory:
    repo = ""
    entries: list[Entry] = []
    demotions: list[Demotion] = []
    last = float("-inf")  # every entry and demotion starts no earlier than the one before it ends
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{source}:{number}"
        if not repo:
            named = _REPO.match(line)
            if not named:
                raise ConfigError(f"{where}: the first line must name the repo ('repo owner/name')")
            repo = named.group(1)
            continue
        m = _ENTRY.match(line)
        if not m:
            raise ConfigError(
                f"{where}: expected 'YYYY-MM-DD L1..L4' or 'YYYY-MM-DD demoted until YYYY-MM-DD|ongoing'"
            )
        start = _day(m.group(1), where)
        if start > now:
            raise ConfigError(f"{where}: {m.group(1)} is in the future")
        if start < last:
            raise ConfigError(f"{where}: {m.group(1)} overlaps the entry before it (entries go oldest first)")
        if m.group(2) == "demoted":
            demotion = _demotion(m.group(3) or "", start, entries, where, number, now)
            demotions.append(demotion)
            last = float("inf") if demotion.end is None else demotion.end
            continue
        if m.group(2) not in LEVELS or m.group(3):
            raise ConfigError(
                f"{where}: unknown level {line.split(None, 1)[1]!r} (expected one of {', '.join(LEVELS)})"
            )
        if entries and entries[-1].level == m.group(2):
            raise ConfigError(f"{where}: already at {m.group(2)} since line {entries[-1].line}")
        entries.append(Entry(m.group(2), start, number))
        last = start
    if not repo:
        raise ConfigError(f"{source}:1: empty level history (expected 'repo owner/name', then dated entries)")
    return LevelHistory(source, repo, tuple(entries), tuple(demotions))


def _demotion(rest: str, start: float, entries: list[Entry], where: str, number: int, now: float) -> Demotion:
    m = _UNTIL.match(rest.strip())
    if not m:
        raise ConfigError(
            f"{where}: a demotion without an end (write 'until YYYY-MM-DD' or 'until {ONGOING}')"
        )
    if not entries or entries[-1].level != "L3":
        raise ConfigError(f"{where}: a temporary demotion needs the repo at L3 (CRCR demotes only L3 repos)")
    if m.group(1) == ONGOING:
        return Demotion(start, None, number)
    end = _day(m.group(1), where)
    if end > now:
        raise ConfigError(f"{where}: {m.group(1)} is in the future (an open demotion is 'until {ONGOING}')")
    if end <= start:
        raise ConfigError(f"{where}: the demotion ends ({m.group(1)}) before it starts")
    return Demotion(start, end, number)


def read_level_history(path: Path, now: float) -> LevelHistory:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(
            f"{path}: cannot read the level history ({getattr(err, 'strerror', None) or err})"
        ) from None
    return parse_level_history(text, str(path), now)


def given_histories(path: Optional[Path], env: Mapping[str, str], now: float) -> dict[str, LevelHistory]:
    """repo -> its level history: `path` (--level-history), else $OOT_LEVEL_HISTORY, else none.
    Every command line that shows the L3 standing (the warehouse tool, the relay emulator,
    the handler's HUD) reads it here, once, at its entry."""
    path = path or (Path(env[ENV]) if env.get(ENV) else None)
    if path is None:
        return {}
    history = read_level_history(path, now)
    return {history.repo: history}
