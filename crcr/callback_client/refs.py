"""Pure validators for git object names and ref names (git check-ref-format rules).

These run on untrusted dispatch fields before anything else looks at them.
Validation is not what keeps us safe from shell injection (a legal ref may
contain `$`, `(` or `;`); never passing payload fields through a shell is.
"""

from __future__ import annotations

import re

_SHA = re.compile(r"[0-9a-f]{40}")
ZERO_SHA = "0" * 40
_FORBIDDEN = set("~^:?*[\\ ")
MAX_REF_LEN = 255


def check_sha(value: str) -> str:
    """Return a lowercase 40-hex SHA or raise ValueError."""
    if not isinstance(value, str) or not _SHA.fullmatch(value.lower()):
        raise ValueError("not a 40-hex commit SHA")
    return value.lower()


def ref_problem(name: str, *, full: bool) -> str | None:
    """Why `name` is not a valid git ref (None if it is).

    `full=True` wants `refs/...` (push `ref`), `full=False` allows a one-level
    branch name (a PR's `head.ref`).
    """
    if not name:
        return "empty ref"
    if len(name) > MAX_REF_LEN:
        return f"ref longer than {MAX_REF_LEN} characters"
    if full and not name.startswith("refs/"):
        return "ref must start with refs/"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return "ref contains a control character"
    bad = sorted(set(name) & _FORBIDDEN)
    if bad:
        return f"ref contains forbidden character {bad[0]!r}"
    if ".." in name or "@{" in name or name == "@":
        return "ref contains '..', '@{' or is '@'"
    if name.startswith("/") or name.endswith("/") or "//" in name:
        return "ref has an empty path component"
    if name.endswith("."):
        return "ref ends with '.'"
    for part in name.split("/"):
        if part.startswith("."):
            return "ref component starts with '.'"
        if part.endswith(".lock"):
            return "ref component ends with '.lock'"
    return None


def check_ref(value: str, *, full: bool) -> str:
    if not isinstance(value, str):
        raise ValueError("ref must be a string")
    problem = ref_problem(value, full=full)
    if problem:
        raise ValueError(problem)
    return value
