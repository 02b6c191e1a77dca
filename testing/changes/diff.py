"""Pure: `git diff -U0 --no-renames` text -> the changed files with their hunks.

Old-side line ranges say which functions of the map's version of a file a change touches;
the +/- lines themselves name ops in native_functions.yaml (`- func: name.overload(...)`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from testing.base.errors import OotError

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
FUNC = re.compile(r"^[-+]\s*-?\s*func:\s*([A-Za-z0-9_]+)")


class DiffError(OotError, ValueError):
    """Text that is not a git diff."""


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int  # 0: lines inserted after old_start
    lines: tuple[str, ...]  # the +/- lines
    new_start: int = 0
    new_count: int = 0  # 0: lines deleted after new_start

    def old_range(self) -> tuple[int, int]:
        """Inclusive old-side lines; an insertion touches the line it follows and the next."""
        if self.old_count:
            return self.old_start, self.old_start + self.old_count - 1
        return max(self.old_start, 1), self.old_start + 1


@dataclass(frozen=True)
class FileChange:
    path: str
    status: str  # A added, D deleted, M modified
    hunks: tuple[Hunk, ...] = ()

    def old_lines(self) -> list[tuple[int, int]]:
        """Inclusive old-side ranges, one per hunk (Hunk.old_range)."""
        return [h.old_range() for h in self.hunks]

    def func_names(self) -> tuple[str, ...]:
        """native_functions.yaml: the ops whose `func:` line a hunk adds or removes."""
        return tuple(dict.fromkeys(m.group(1) for h in self.hunks for ln in h.lines if (m := FUNC.match(ln))))


def earlier_lines(line: int, since: Sequence[Hunk]) -> tuple[int, int]:
    """A line of a file at a later commit -> its lines at an earlier one, through the diff
    earlier..later (`since`, by position): shifted past unchanged text; a line inside a
    region changed since maps to the whole region as it was (inclusive range)."""
    delta = 0
    for h in sorted(since, key=lambda h: h.new_start):
        if h.new_count and h.new_start <= line < h.new_start + h.new_count:
            return h.old_range()
        new_end = h.new_start + (h.new_count or 1)  # first line after the hunk, later side
        if line < new_end:
            break
        delta = h.old_start + (h.old_count or 1) - new_end
    return line + delta, line + delta


def rebase(change: FileChange, since: Sequence[Hunk]) -> FileChange:
    """`change`'s old-side lines renumbered onto the earlier commit (earlier_lines)."""
    hunks = []
    for h in change.hunks:
        lo, hi = h.old_range()
        spans = [earlier_lines(ln, since) for ln in range(lo, hi + 1)]
        a, b = min(x for x, _ in spans), max(y for _, y in spans)
        hunks.append(Hunk(a, b - a + 1, h.lines, h.new_start, h.new_count))
    return FileChange(change.path, change.status, tuple(hunks))


def _path(header: str) -> str:
    # "diff --git a/x b/x": paths with spaces are quoted by git; we only need b/
    parts = header.split(" b/", 1)
    if len(parts) != 2:
        raise DiffError(f"unreadable diff header: {header[:80]}")
    return parts[1].strip().strip('"')


def parse_diff(text: str) -> list[FileChange]:
    files: list[FileChange] = []
    path = status = None
    hunks: list[Hunk] = []
    lines: list[str] = []
    start = count = new_start = new_count = 0

    def close_hunk():
        nonlocal lines
        if start or count or lines:
            hunks.append(Hunk(start, count, tuple(lines), new_start, new_count))
        lines = []

    def close_file():
        nonlocal hunks
        if path is not None:
            files.append(FileChange(path, status or "M", tuple(hunks)))
        hunks = []

    in_hunk = False
    for raw in text.splitlines():
        if raw.startswith("diff --git "):
            if in_hunk:
                close_hunk()
            close_file()
            path, status, in_hunk, start, count = _path(raw), "M", False, 0, 0
        elif path is None:
            if raw.strip():
                raise DiffError(f"not a git diff: {raw[:80]}")
        elif raw.startswith("new file mode"):
            status = "A"
        elif raw.startswith("deleted file mode"):
            status = "D"
        elif (m := HUNK.match(raw)) is not None:
            if in_hunk:
                close_hunk()
            start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            new_start, new_count = int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1)
            in_hunk = True
        elif in_hunk and raw[:1] in "+-" and not raw.startswith(("+++ ", "--- ")):
            lines.append(raw)
    if in_hunk:
        close_hunk()
    close_file()
    return files
