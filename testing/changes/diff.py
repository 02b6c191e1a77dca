"""Pure: `git diff -U0 --no-renames` text -> the changed files with their hunks.

Old-side line ranges say which functions of the map's version of a file a change touches;
the +/- lines themselves name ops in native_functions.yaml (`- func: name.overload(...)`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
FUNC = re.compile(r"^[-+]\s*-?\s*func:\s*([A-Za-z0-9_]+)")


class DiffError(ValueError):
    """Text that is not a git diff."""


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int  # 0: lines inserted after old_start
    lines: tuple[str, ...]  # the +/- lines


@dataclass(frozen=True)
class FileChange:
    path: str
    status: str  # A added, D deleted, M modified
    hunks: tuple[Hunk, ...] = ()

    def old_lines(self) -> list[tuple[int, int]]:
        """Inclusive old-side ranges; an insertion touches the line it follows and the next."""
        out = []
        for h in self.hunks:
            if h.old_count:
                out.append((h.old_start, h.old_start + h.old_count - 1))
            else:
                out.append((max(h.old_start, 1), h.old_start + 1))
        return out

    def func_names(self) -> tuple[str, ...]:
        """native_functions.yaml: the ops whose `func:` line a hunk adds or removes."""
        return tuple(dict.fromkeys(m.group(1) for h in self.hunks for ln in h.lines if (m := FUNC.match(ln))))


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
    start = count = 0

    def close_hunk():
        nonlocal lines
        if start or count or lines:
            hunks.append(Hunk(start, count, tuple(lines)))
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
            in_hunk = True
        elif in_hunk and raw[:1] in "+-" and not raw.startswith(("+++ ", "--- ")):
            lines.append(raw)
    if in_hunk:
        close_hunk()
    close_file()
    return files
