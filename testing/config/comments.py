"""Reasons written as YAML comments, the way Torch Spyre's configs carry them.

Torch Spyre writes why a test is skipped or xfailed as a comment: above the
entry, after ``mode: xfail``, after ``- names:``, or after a single name in the
list. ruamel.yaml keeps line numbers; these functions read the comment text
of the source lines around those positions. Pure: lines in, text out.

Nearest comment, in this order:

1. after the entry's ``mode:`` (or ``force_xfail:``/``collect:``) value;
2. the block of comment lines directly above the entry (commented-out YAML
   such as ``# - TestX::test_y`` or ``# force_xfail: true`` is not a reason);
3. after the entry's first line (``- names: # why``).

A comment after one name of a block list is that name's own reason.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Optional, Sequence

# A full-line comment that is YAML switched off, not prose.
_COMMENTED_OUT = re.compile(r"^(-\s+\S|[A-Za-z_]+:(\s+\S+)?\s*$)")
_RULER = re.compile(r"^[\W_]*$")  # '#####', '# ---', '#' alone


def eol_comment(line: str) -> Optional[str]:
    """The comment after a value on this line, if any (a '#' outside quotes, after a space)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            if not line[:i].strip():
                return None  # a full-line comment, not an end-of-line one
            return _clean(line[i + 1 :])
    return None


def _full_comment(line: str) -> Optional[str]:
    stripped = line.strip()
    return stripped[1:].strip() if stripped.startswith("#") else None


def _clean(text: str) -> Optional[str]:
    text = text.strip().strip("#").strip()
    return text if text and not _RULER.match(text) else None


def block_above(lines: Sequence[str], index: int) -> Optional[str]:
    """Comment lines directly above line `index` (0-based), joined; blank lines end the block."""
    parts: list[str] = []
    i = index - 1
    while i >= 0:
        text = _full_comment(lines[i])
        if text is None:
            break
        if not _RULER.match(text) and not _COMMENTED_OUT.match(text):
            parts.append(text.strip("#").strip())
        i -= 1
    parts = [p for p in reversed(parts) if p]
    return " ".join(parts) if parts else None


def _key_line(node: Any, key: str) -> Optional[int]:
    lc = getattr(node, "lc", None)
    if lc is None or not isinstance(node, dict) or key not in node:
        return None
    return lc.key(key)[0]


def item_reason(lines: Sequence[str], seq: Any, idx: int, keys: Iterable[str] = ("mode",)) -> Optional[str]:
    """The nearest comment of item `idx` of a ruamel sequence (see the module docstring)."""
    item = seq[idx]
    start = seq.lc.item(idx)[0]
    for key in keys:
        line = _key_line(item, key)
        if line is not None and line < len(lines):
            text = eol_comment(lines[line])
            if text:
                return text
    return block_above(lines, start) or (eol_comment(lines[start]) if start < len(lines) else None)


def name_reasons(lines: Sequence[str], entry: Any) -> dict[str, str]:
    """{name: its own comment} for the names of a block list (one name per line)."""
    names = entry.get("names") if isinstance(entry, dict) else None
    if not isinstance(names, list) or getattr(names, "lc", None) is None:
        return {}
    key_line = _key_line(entry, "names")
    out: dict[str, str] = {}
    for i, name in enumerate(names):
        line = names.lc.item(i)[0]
        if line == key_line or line >= len(lines):
            continue  # a flow list: [a, b]  # comment belongs to the entry
        text = eol_comment(lines[line])
        if text and isinstance(name, str):
            out[name] = text
    return out
