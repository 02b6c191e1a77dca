"""Pure: tests that enter the run between a job's last green suite and the dispatched one.

A test that exists at the dispatched SHA but not at the last green one is *new in scope*,
not a regression: upstream added it (or reclassified it into the run). A class that
disappeared while another with mostly the same methods appeared is a rename: its tests keep
their old ids' history and bucket (``renamed`` maps new -> old) and are not new. Test
methods are read from each file's source with ``ast`` (never imported).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

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

    def as_json(self) -> dict:
        return {"new": [f"{c}::{t}" for c, t in self.new], "renamed": dict(sorted(self.renamed.items()))}


def new_in_scope(old: Tests, new: Tests, overlap: float = 0.5) -> Scope:
    gone = {c: t for c, t in old.items() if c not in new}
    renamed: dict[str, str] = {}
    for cls, tests in sorted(new.items()):
        if cls in old or not tests:
            continue
        best = max(gone, key=lambda g: len(gone[g] & tests), default=None)
        if best is not None and len(gone[best] & tests) >= overlap * len(tests):
            renamed[cls] = best
            del gone[best]
    added = []
    for cls, tests in sorted(new.items()):
        before = old.get(renamed.get(cls, cls), frozenset())
        added += [(cls, t) for t in sorted(tests - before)]
    return Scope(tuple(added), renamed)
