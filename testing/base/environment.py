"""Which Python environment a host command needs, said in one line before it fails.

The READMEs' `python3 -m ...` commands run in the repository's one environment (README.md
"Outside Bazel": the pinned packages and the backend wheel). Run by a python3 without it,
they ended in an import traceback deep inside a module (`No module named 'ruamel'`) and
never said what to do. An entry point that needs the pinned packages asks `require` first.
Stdlib only: it runs before anything else is importable.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Sequence

# Top-level names of the pinned packages most entry points import first.
PINNED = ("ruamel", "pydantic", "torch")
HINT = (
    "the repository's Python environment: `tools/bazel run` the command's target, or a venv with "
    'third_party/requirements_lock.txt and the backend wheel (README.md "Outside Bazel")'
)
EXIT_ENVIRONMENT = 2


def missing(modules: Sequence[str] = PINNED) -> list[str]:
    """The top-level modules this interpreter cannot import."""
    lacking = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a finder that refuses it, a broken parent
            found = False
        if not found:
            lacking.append(name)
    return lacking


def message(prog: str, modules: Sequence[str] = PINNED) -> str:
    """'' when every module imports, else the one line that says which environment is needed."""
    lacking = missing(modules)
    if not lacking:
        return ""
    return f"{prog}: needs {HINT}; {sys.executable} has no {', '.join(lacking)}"


def require(prog: str, modules: Sequence[str] = PINNED) -> None:
    """Exit with the one line (status 2) unless every module imports; nothing written before."""
    said = message(prog, modules)
    if said:
        print(said, file=sys.stderr)
        raise SystemExit(EXIT_ENVIRONMENT)
