"""A small AST mutator for the selection benchmark: one minimal textual change inside one
function of a torch/**/*.py file (the rest of the file byte-for-byte the same, so the diff
touches only that function, as a real one-line upstream change would).

Operators: arithmetic (+ <-> -, * -> +, / -> *), comparison (< <-> >=, > <-> <=, == <-> !=,
is <-> is not, in <-> not in), constant (int n -> n + 1, True <-> False), return value
(`return x` -> `return None`), removed statement (-> `pass`).
"""

from __future__ import annotations

import ast
import copy
import difflib
import random
from dataclasses import dataclass
from typing import Iterator, Optional

from testing.changes.diff import FileChange, Hunk

ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.Div: ast.Mult}
COMPARE = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


@dataclass(frozen=True)
class Mutant:
    path: str  # torch/...
    function: str
    kind: str
    line: int
    original: str
    mutated: str

    def change(self) -> FileChange:
        """The mutant as the diff a dispatch would carry (old-side hunks)."""
        a, b = self.original.splitlines(), self.mutated.splitlines()
        hunks = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
            if tag != "equal":
                lines = tuple(f"-{x}" for x in a[i1:i2]) + tuple(f"+{x}" for x in b[j1:j2])
                hunks.append(Hunk(i1 + 1 if i2 > i1 else i1, i2 - i1, lines))
        return FileChange(self.path, "M", tuple(hunks))

    def describe(self) -> str:
        return f"{self.path}:{self.line} {self.function} ({self.kind})"


def _find(tree: ast.AST, start: int, end: int) -> Optional[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if first == start and node.end_lineno == end:
                return node
    return None


def _sites(fn: ast.AST) -> Iterator[tuple[str, ast.AST, ast.AST]]:
    """(kind, node, replacement node) for every mutable spot in the function's own body."""
    for node in ast.walk(fn):
        if node is not fn and isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            continue  # nested defs belong to their own function
        if isinstance(node, ast.BinOp) and type(node.op) in ARITH:
            yield "arithmetic", node, ast.BinOp(node.left, ARITH[type(node.op)](), node.right)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARE:
            yield "comparison", node, ast.Compare(node.left, [COMPARE[type(node.ops[0])]()], node.comparators)
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            yield "constant", node, ast.Constant(not node.value)
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            yield "constant", node, ast.Constant(node.value + 1)
        elif (
            isinstance(node, ast.Return)
            and node.value is not None
            and not (isinstance(node.value, ast.Constant) and node.value.value is None)
        ):
            yield "return", node, ast.Return(ast.Constant(None))
    body = getattr(fn, "body", [])
    for stmt in body:
        if (
            len(body) > 1
            and isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign))
            and not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        ):
            yield "remove", stmt, ast.Pass()


def _splice(source: str, node: ast.AST, text: str) -> str:
    """Replace the node's exact source segment (ast offsets are UTF-8 byte columns)."""
    lines = source.encode("utf-8").splitlines(keepends=True)
    head = b"".join(lines[: node.lineno - 1]) + lines[node.lineno - 1][: node.col_offset]
    tail = lines[node.end_lineno - 1][node.end_col_offset :] + b"".join(lines[node.end_lineno :])
    return (head + text.encode("utf-8") + tail).decode("utf-8")


def mutate(
    path: str, source: str, function: str, start: int, end: int, rng: random.Random
) -> Optional[Mutant]:
    """One mutant of the function spanning start..end, or None (nothing to mutate)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    fn = _find(tree, start, end)
    if fn is None:
        return None
    sites = list(_sites(fn))
    rng.shuffle(sites)
    for kind, node, new in sites:
        text = (
            ast.unparse(copy.deepcopy(new))
            if kind not in ("arithmetic", "comparison")
            else f"({ast.unparse(new)})"
        )
        mutated = _splice(source, node, text)
        try:
            compile(mutated, path, "exec")
        except SyntaxError:
            continue
        if mutated != source:
            return Mutant(path, function, kind, node.lineno, source, mutated)
    return None
