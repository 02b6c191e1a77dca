"""Pure: tests that enter the run between a job's last green suite and the dispatched one.

A test that exists at the dispatched SHA but not at the last green one is *new in scope*,
not a regression: upstream added it (or reclassified it into the run). A class is renamed
where upstream's diff shows it (``diff_renames``: a hunk removing ``class Old`` and adding
``class New``, Old gone and New new): its tests keep their old ids' history and bucket
(``renamed`` maps new -> old) and are not new. Without a diff, a class that disappeared
while another with mostly the same methods appeared is taken as the rename. Test methods
are read from each file's source with ``ast`` (never imported).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Optional

Tests = dict[str, frozenset[str]]  # class -> test methods


def read_tests(text: str) -> Tests:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    return {
        node.name: frozenset(
            f.name
            for f in node.body
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name.startswith("test")
        )
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }


@dataclass(frozen=True)
class Scope:
    new: tuple[tuple[str, str], ...] = ()  # (class, test) new at the dispatched SHA
    renamed: dict[str, str] = field(default_factory=dict)  # new class -> old class
    # class -> (classification at the last green SHA, at the dispatched one): a scoped run's
    # classes that upstream's hardware classification moved into the scope (their tests are new)
    reclassified: dict[str, tuple[str, str]] = field(default_factory=dict)

    def as_json(self) -> dict:
        return {"new": [f"{c}::{t}" for c, t in self.new], "renamed": dict(sorted(self.renamed.items()))}


_CLASS = re.compile(r"class\s+([A-Za-z_][A-Za-z0-9_]*)\b")


def diff_renames(hunks: str) -> dict[str, str]:
    """{new class: old class} a `git diff` shows: within one hunk, the i-th removed
    ``class X`` line paired with the i-th added ``class Y`` line."""
    out: dict[str, str] = {}
    removed: list[str] = []
    added: list[str] = []

    def close() -> None:
        out.update({a: r for r, a in zip(removed, added) if r != a})
        removed.clear()
        added.clear()

    for line in hunks.splitlines():
        if line.startswith(("@@", "diff --git")):
            close()
        elif line.startswith(("---", "+++")):
            continue
        elif line[:1] in "-+" and line:
            m = _CLASS.match(line[1:])
            if m:
                (removed if line[0] == "-" else added).append(m.group(1))
    close()
    return out


def new_in_scope(
    old: Tests, new: Tests, overlap: float = 0.5, diff_renamed: Optional[dict[str, str]] = None
) -> Scope:
    """`diff_renamed`: the renames upstream's diff shows (diff_renames); None: no diff, guess
    them by shared methods (`overlap` of the new class's tests)."""
    gone = {c: t for c, t in old.items() if c not in new}
    if diff_renamed is not None:
        renamed = {n: o for n, o in diff_renamed.items() if n in new and n not in old and o in gone}
        return Scope(_added(old, new, renamed), renamed)
    renamed: dict[str, str] = {}
    for cls, tests in sorted(new.items()):
        if cls in old or not tests:
            continue
        best = max(gone, key=lambda g: len(gone[g] & tests), default=None)
        if best is not None and len(gone[best] & tests) >= overlap * len(tests):
            renamed[cls] = best
            del gone[best]
    return Scope(_added(old, new, renamed), renamed)


def _added(old: Tests, new: Tests, renamed: dict[str, str]) -> tuple[tuple[str, str], ...]:
    added = []
    for cls, tests in sorted(new.items()):
        before = old.get(renamed.get(cls, cls), frozenset())
        added += [(cls, t) for t in sorted(tests - before)]
    return tuple(added)


def reclassified_into(
    scope: Scope,
    old: dict[str, Optional[str]],
    new: dict[str, Optional[str]],
    tests: Tests,
    wanted: tuple[str, ...],
) -> Scope:
    """`scope` plus the classes a scoped run (`wanted` classifications) gains because upstream
    reclassified them (old/new: class -> classification at each SHA, testing/config/hwclass):
    their tests enter the run, new in scope, not regressions."""
    moved = {}
    for cls, now in new.items():
        before = old.get(scope.renamed.get(cls, cls))
        if now in wanted and before not in wanted and scope.renamed.get(cls, cls) in old:
            moved[cls] = (before or "unclassified", now)
    added = [(c, t) for c in sorted(moved) for t in sorted(tests.get(c, ())) if (c, t) not in scope.new]
    return Scope(tuple(sorted(scope.new + tuple(added))), scope.renamed, moved)
