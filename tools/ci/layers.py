"""No arrow back up: lower rooms never import higher ones (DESIGN.md "Data flow").

    python3 tools/ci/layers.py [ROOT]      # ROOT: the workspace (default: the current directory)

Rooms, lowest first: testing/ and backend/ (its package is torch_spyre), then crcr/, then
tools/. Every .py file under a room is read with ast; an import whose top-level name is a
higher room's (`import tools.x`, `from crcr import y`, also inside functions) is reported
as `file:line: ...`, and the exit status is 1. So is a string that names a higher room's
module (`"tools.shard.plugin"`, `"-p crcr.relay"`, `"crcr.callback_client.__main__:main"`): a module loaded by
name (`pytest -p`, `python -m`, importlib, an entry point) is an arrow up all the same.
Docstrings may name anything (they explain, they load nothing), and paths (`tools/shard/...`,
data a pipeline above writes for a reader below) are not module names. Imports within a
room, of a lower room, or of anything else (the standard library, torch, pytest...) are fine. Every BUILD.bazel of a
room must also keep its package private by default (no `default_visibility` public): the
public surface is listed target by target (each room's README, "Bazel targets").
No circle either: modules of the rooms that import each other in a circle (at any depth,
lazy imports inside functions included: a lazy import hides a circle from Python, not from a
reader) are reported as `layers: import circle: a -> b -> a`.
Inside a room, its packages are floors too (SUBROOMS): in crcr/ the callback client is lowest
(it imports nothing of crcr outside itself), then dispatch/, upstream/ and warehouse/, then
relay/, then handler/ on top; a module importing (or naming) a higher floor's module is
reported as `file:line: ... a higher floor`. A module may have a floor of its own (the
warehouse's command line renders the relay's HUD); a room's tests sit on top.
Exit 2: ROOT is not a workspace (no room found there).
"""

from __future__ import annotations

import ast
import graphlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

# room directory -> (rank, the top-level import names it provides)
ROOMS = {
    "backend": (0, ("torch_spyre",)),
    "testing": (0, ("testing",)),
    "crcr": (1, ("crcr",)),
    "tools": (2, ("tools",)),
}
RANK_OF_IMPORT = {name: rank for rank, names in ROOMS.values() for name in names}


# A dotted module name, optionally with an entry point's `:attr` (a token of a string).
MODULE_NAME = re.compile(r"^([A-Za-z_]\w*)(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?$")
_QUOTES = "`'\"(),;"


@dataclass(frozen=True)
class Upward:
    path: str
    line: int
    room: str
    module: str
    how: str = "imports"  # or "names" (a string holding the module's name)

    def __str__(self) -> str:
        target = self.module.split(".")[0]
        what = "imports" if self.how == "imports" else "names in a string"
        return (
            f"{self.path}:{self.line}: {self.room}/ {what} {self.module}, a higher room "
            f"({target} is above {self.room}: testing/backend < crcr < tools)"
        )


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the tree (relative ones stay inside)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants of the module, its classes and functions."""
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def named_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every dotted module name a string of the tree holds as a word
    (docstrings left out)."""
    skip = docstrings(tree)
    return [
        (node.lineno, word.split(":")[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        for word in (w.strip(_QUOTES) for w in node.value.split())
        if MODULE_NAME.match(word)
    ]


def upward_imports(source: str, path: str, room: str) -> list[Upward]:
    """The imports and the module names in strings of `source` that point to a higher room."""
    rank = ROOMS[room][0]
    tree = ast.parse(source, filename=path)
    found = [(line, module, "imports") for line, module in imported_modules(tree)]
    found += [(line, module, "names") for line, module in named_modules(tree)]
    return [
        Upward(path, line, room, module, how)
        for line, module, how in sorted(found)
        if RANK_OF_IMPORT.get(module.split(".")[0], -1) > rank
    ]


# Floors inside a room: module prefix -> rank, lowest first; the longest prefix names a module's
# floor, a module of no prefix (the room's __init__) has none. Same floor: siblings, free to import
# each other (the circle check still applies).
SUBROOMS = {
    "crcr": {
        "crcr.callback_client": 0,  # the crcr-callback wheel: nothing of crcr outside itself
        "crcr.dispatch": 1,
        "crcr.upstream": 1,
        "crcr.warehouse": 1,
        "crcr.relay": 2,  # serves the warehouse's panels, reads the allowlist
        "crcr.warehouse.__main__": 3,  # the warehouse's command line: its `page` renders the relay's HUD
        "crcr.handler": 3,
        "crcr.tests": 4,
        "crcr.warehouse.tests": 4,
    },
}


def floor(module: str, room: str) -> int | None:
    """The rank of `module` (dotted) among its room's floors, None when it is on none."""
    prefixes = [p for p in SUBROOMS.get(room, {}) if module == p or module.startswith(p + ".")]
    return SUBROOMS[room][max(prefixes, key=len)] if prefixes else None


@dataclass(frozen=True)
class UpFloor:
    path: str
    line: int
    module: str
    how: str = "imports"  # or "names" (a string holding the module's name)

    def __str__(self) -> str:
        what = "imports" if self.how == "imports" else "names in a string"
        room = self.path.split("/")[0]
        order = " < ".join(
            ", ".join(sorted(p.removeprefix(room + ".") for p, r in SUBROOMS[room].items() if r == rank))
            for rank in sorted(set(SUBROOMS[room].values()))
        )
        return f"{self.path}:{self.line}: {what} {self.module}, a higher floor of {room}/ ({order})"


def floor_imports(tree: ast.AST, room: str) -> list[tuple[int, str]]:
    """(line, module) of every import; `from pkg import sub` is `pkg.sub` when that has a floor
    of its own (the warehouse's `__main__`), else `pkg`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append(
                    (node.lineno, sub if floor(sub, room) != floor(node.module, room) else node.module)
                )
    return found


def upward_floors(source: str, path: str, room: str) -> list[UpFloor]:
    """The imports and module names in strings of `source` that point to a higher floor of its room."""
    rank = floor(module_name(path), room)
    if rank is None:
        return []
    tree = ast.parse(source, filename=path)
    found = [(line, module, "imports") for line, module in floor_imports(tree, room)]
    found += [(line, module, "names") for line, module in named_modules(tree)]
    return [
        UpFloor(path, line, module, how)
        for line, module, how in sorted(found)
        if (floor(module, room) or 0) > rank  # no floor (the room's __init__): never above
    ]


PUBLIC_DEFAULT = re.compile(r"default_visibility\s*=\s*\[[^\]]*//visibility:public")


def public_by_default(root: Path) -> list[str]:
    """BUILD files of the rooms whose package is public by default."""
    return [
        f"{path.relative_to(root).as_posix()}: package(default_visibility) is public; list the public targets instead"
        for room in ROOMS
        for path in sorted((root / room).rglob("BUILD.bazel"))
        if PUBLIC_DEFAULT.search(path.read_text(encoding="utf-8"))
    ]


def check(root: Path) -> tuple[int, list[Upward | UpFloor]]:
    """(files read, every upward import, between rooms or floors) under the rooms of the workspace `root`."""
    files, found = 0, []
    for room in ROOMS:
        for path in sorted((root / room).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            files += 1
            source = path.read_text(encoding="utf-8")
            found += upward_imports(source, rel, room) + upward_floors(source, rel, room)
    return files, found


def module_name(rel: str) -> str:
    """`crcr/handler/main.py` -> `crcr.handler.main`; a package is its `__init__`; backend/'s
    package is importable from inside the room (backend/torch_spyre -> torch_spyre)."""
    parts = rel.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts[1:] if parts[0] == "backend" else parts)


def import_edges(tree: ast.AST, modules: set[str]) -> set[str]:
    """The modules of `modules` this tree imports (`from pkg import sub` is `pkg.sub` when
    that is a module, else `pkg`)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {
                f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                for a in node.names
            }
    return found & modules


def circle(root: Path) -> list[str]:
    """One import circle among the rooms' modules (its modules in order, the first again at
    the end), or [] when there is none."""
    files = {
        module_name(p.relative_to(root).as_posix()): p for room in ROOMS for p in (root / room).rglob("*.py")
    }
    graph = {
        m: import_edges(ast.parse(p.read_text(encoding="utf-8")), set(files)) - {m} for m, p in files.items()
    }
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as err:
        return list(reversed(err.args[1]))
    return []


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path.cwd()
    if not any((root / room).is_dir() for room in ROOMS):
        print(f"layers: {root}: no room ({', '.join(ROOMS)}) there", file=sys.stderr)
        return 2
    files, found = check(root)
    public = public_by_default(root)
    loop = circle(root)
    for problem in [*map(str, found), *public] + (
        [f"layers: import circle: {' -> '.join(loop)}"] if loop else []
    ):
        print(problem)
    if found or public or loop:
        print(
            f"layers: {len(found)} upward import(s) or name(s) in {files} files, {len(public)} public package(s),"
            f" {'an' if loop else 'no'} import circle",
            file=sys.stderr,
        )
        return 1
    print(f"layers: {files} files, no upward import (testing/backend < crcr < tools), no import circle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
