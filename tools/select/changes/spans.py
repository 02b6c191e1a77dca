"""Function spans of a Python file (pure `ast`): which function holds each line.

Two views of one def: its whole span (decorators to last line) is what a diff hunk touches,
its body is what runs when it is called (the def line and decorators run at import).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

MODULE = "<module>"


@dataclass(frozen=True)
class Span:
    name: str  # qualified: Class.method, outer.inner
    start: int  # first line, decorators included
    body: int  # first line of the body
    end: int


def functions(source: str) -> list[Span]:
    """<module> first, then every def (nested ones too); [] for a file that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    n = max(1, len(source.splitlines()))
    return [Span(MODULE, 1, 1, n), *_walk(tree, "")]


def _walk(node: ast.AST, prefix: str) -> Iterator[Span]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}{child.name}"
            start = min([child.lineno] + [d.lineno for d in child.decorator_list])
            yield Span(name, start, child.body[0].lineno, child.end_lineno or child.lineno)
            yield from _walk(child, name + ".")
        elif isinstance(child, ast.ClassDef):
            yield from _walk(child, f"{prefix}{child.name}.")
        else:
            yield from _walk(child, prefix)


def body_owner(spans: list[Span]) -> list[int]:
    """line -> index of the innermost def whose body holds it (0: <module>, outside every body)."""
    n = spans[0].end if spans else 0
    owner = [0] * (n + 2)
    for i in sorted(range(1, len(spans)), key=lambda i: spans[i].body - spans[i].end):  # widest first
        for line in range(spans[i].body, min(spans[i].end, n) + 1):
            owner[line] = i
    return owner


@dataclass(frozen=True)
class Units:
    """How a file's lines group into what one line event stands for.

    A recorded line counts for its whole statement (a change on a continuation line of a call
    is a change to the call); a compound statement's unit is its header only (`if`, `for`,
    `with`, `except` lines up to its body). A def's header (the `def` line to its body:
    signature, defaults) is `signature`: it runs at import, yet what it says reaches only the
    def's callers. Decorators are units of their own (they run where the def runs)."""

    unit: dict[int, tuple[int, int]]  # line -> (first, last) line of its unit
    signature: dict[tuple[int, int], int]  # a def's header unit -> index of its Span


def units(source: str, spans: list[Span]) -> Units:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return Units({}, {})
    by_pos = {(s.start, s.body): i for i, s in enumerate(spans)}
    unit: dict[int, tuple[int, int]] = {}
    signature: dict[tuple[int, int], int] = {}
    for node in ast.walk(tree):  # outer statements first: an inner one on a shared line wins
        if isinstance(node, (ast.stmt, ast.excepthandler)):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body:
                last = max(node.lineno, body[0].lineno - 1)
            else:
                last = node.end_lineno or node.lineno
            span = (node.lineno, last)
            for line in range(span[0], span[1] + 1):
                unit[line] = span
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                i = by_pos.get((first, node.body[0].lineno))
                if i is not None:
                    signature[span] = i
            for d in getattr(node, "decorator_list", ()):
                dspan = (d.lineno, d.end_lineno or d.lineno)
                for line in range(dspan[0], dspan[1] + 1):
                    unit[line] = dspan
    return Units(unit, signature)
