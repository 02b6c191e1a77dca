"""Glue: does the overlaid core import? Checked once per core, before any test runs.

An overlaid Python file can need a native op the wheel lacks (`from torch._C import
_new_op`); the leg's tests would then fail on our core, not on upstream's. One child
interpreter imports torch and every overlaid module from the overlay; the modules that
fail there are imported again from the wheel alone, and a failure the wheel does not
share (or a new module failing on torch itself) is the overlay's: the leg is `inexact`
with that import named. A module missing a third-party package fails the same way on
any core and is not counted.

The leg's own test files are checked too, per leg: every `import torch...` and
`from torch... import ...` statement in them (found by parsing, never by running the file)
is executed on the overlay, and one failing there makes that leg `inexact`, naming the file
and the statement (`test/nn/test_x.py: from torch._C import
_new_op: ImportError: ...`).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Optional, Sequence

from crcr.handler.runner import child_env
from crcr.upstream.overlay import CoreDelta

MAX_MODULES = 100  # overlaid modules imported by one check (torch itself always)
TIMEOUT = 300.0
# run as `python -c CHECK mod...`: prints {module: "Error: text"} for the imports that fail
CHECK = """
import importlib, json, sys
failed = {}
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except BaseException as err:
        failed[name] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
        if name == "torch":
            break
print(json.dumps(failed))
"""

# run as `python -c STATEMENTS stmt...`: prints {statement: "Error: text"} for those that fail
STATEMENTS = """
import json, sys
failed = {}
for stmt in sys.argv[1:]:
    try:
        exec(stmt, {})
    except BaseException as err:
        failed[stmt] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
print(json.dumps(failed))
"""
MAX_STATEMENTS = 300


def overlaid_modules(delta: CoreDelta) -> list[str]:
    """torch/a/b.py -> torch.a.b (packages by their __init__), the ones a name can import."""
    out = []
    for status, path in delta.python:
        parts = path[: -len(".py")].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if status != "D" and all(p.isidentifier() for p in parts) and parts[-1] != "__main__":
            out.append(".".join(parts))
    return out[:MAX_MODULES]


def _failures(
    modules: Sequence[str], ws: Path, env: Mapping[str, str], core: Optional[Path], script: str = CHECK
) -> dict:
    try:
        done = subprocess.run(
            [sys.executable, "-P", "-c", script, *modules],  # -P: the cwd is not on the path
            cwd=ws,
            env=child_env(ws, env, core),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return {"torch": f"import check timed out after {TIMEOUT:.0f}s"}
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        tail = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return {"torch": tail}


def _environmental(error: str) -> bool:
    """A third-party package missing: the same on every core."""
    return error.startswith("ModuleNotFoundError") and "'torch" not in error


def import_error(
    delta: CoreDelta, core: Path, ws: Path, env: Mapping[str, str], wheel: Optional[Path] = None
) -> str:
    """ "" when the overlaid core imports, else "module: Error: text" for the first import the
    overlay broke; `wheel`: the base wheel's directory (None: the interpreter's own torch)."""
    failed = _failures(["torch", *overlaid_modules(delta)], ws, env, core)
    if not failed or core == wheel:
        return next((f"{n}: {e}" for n, e in failed.items() if not _environmental(e)), "")
    on_wheel = _failures(list(failed), ws, env, wheel)
    for name, error in failed.items():
        if _environmental(error) or (name in on_wheel and not on_wheel[name].startswith("ModuleNotFound")):
            continue  # fails on the wheel alone too: not the overlay's doing
        return f"{name}: {error}"
    return ""


def torch_imports(files: Sequence[Path]) -> dict[str, str]:
    """{statement: the first file holding it} for the torch imports of test files, as
    statements that can run alone (`from torch.x import a, b`, `import torch.y`)."""
    found: dict[str, str] = {}
    for path in files:
        try:
            tree = ast.parse(path.read_text(), filename=str(path))
        except (OSError, SyntaxError, ValueError):
            continue  # pytest reports a file it cannot read; nothing to check here
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level and _is_torch(node.module or ""):
                names = [a.name for a in node.names if a.name != "*"]
                stmt = f"from {node.module} import {', '.join(names)}" if names else f"import {node.module}"
            elif isinstance(node, ast.Import) and any(_is_torch(a.name) for a in node.names):
                stmt = "import " + ", ".join(a.name for a in node.names if _is_torch(a.name))
            else:
                continue
            found.setdefault(stmt, path.name)
    return dict(list(found.items())[:MAX_STATEMENTS])


def _is_torch(module: str) -> bool:
    return module == "torch" or module.startswith("torch.")


def leg_import_error(files: Sequence[Path], core: Path, ws: Path, env: Mapping[str, str]) -> str:
    """ "" when every torch import of the leg's test files works on the overlaid core, else
    "<file>: <statement>: Error: text" for the first that fails. Unlike the core's own check
    there is no comparison with the wheel alone: the tests are upstream's at the SHA, so a
    torch name they import that our core lacks (a new op of a native change) is our core's gap.
    A name the harness (torch.testing._internal) lacks is not: that is harness drift, which the
    plugin reports per file and crcr/handler/drift.py judges (neutral, never a core gap)."""
    from testing.plugin.drift import find as harness_drift

    stmts = torch_imports(files)
    if not stmts:
        return ""
    failed = _failures(list(stmts), ws, env, core, STATEMENTS)
    for stmt, error in failed.items():
        if stmt in stmts and not _environmental(error) and harness_drift(stmts[stmt], error) is None:
            return f"{stmts[stmt]}: {stmt}: {error}"
    return ""
