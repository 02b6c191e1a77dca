"""The selection a leg runs (`pytest -p testing.plugin --oot-only FILE`): test ids and whole
files, with real paths. The plugin consults it before instantiation, like its other filters.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional

from testing.base.atomic import write_json
from testing.base.errors import OotError
from testing.changes.changemap import rooted


class OnlyError(OotError, ValueError):
    pass


@dataclass(frozen=True)
class Only:
    tests: frozenset[tuple[str, str, str]]  # (real file path, generic class, generated name)
    files: frozenset[str]  # real paths whose every test runs

    def keeps(self, file: str, cls: str, name: str) -> bool:
        return file in self.files or (file, cls, name) in self.tests

    def may_have(self, file: str, cls: str, test: str) -> bool:
        """Could any selected variant come from generic test `test` of `cls`?"""
        if file in self.files:
            return True
        return any(
            f == file and c == cls and (n == test or n.startswith(test + "_")) for f, c, n in self.tests
        )


def split_id(test_id: str) -> tuple[str, str, str]:
    parts = test_id.split("::")
    if len(parts) != 3:
        raise OnlyError(f"test id {test_id!r} is not file::Class::name")
    return parts[0], parts[1], parts[2]


def resolve(tests: Iterable[str], files: Iterable[str], roots: Mapping[str, Optional[Path]]) -> dict:
    """Rooted ids (the map's) -> the JSON a leg passes to the plugin (real paths)."""
    out_tests = []
    for tid in sorted(tests):
        f, c, n = split_id(tid)
        path = rooted(f, roots)
        if path:
            out_tests.append(f"{path}::{c}::{n}")
    out_files = sorted(p for p in (rooted(f, roots) for f in files) if p)
    return {"tests": out_tests, "files": out_files}


def write_only(path: Path, doc: dict) -> Path:
    return write_json(path, doc)


def read_only(path: str) -> Only:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        tests = frozenset(split_id(t) for t in doc["tests"])
        files = frozenset(os.path.realpath(f) for f in doc["files"])
    except FileNotFoundError:
        raise OnlyError(f"--oot-only {path}: no such file") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise OnlyError(f"--oot-only {path}: not a selection ({err})") from None
    return Only(frozenset((os.path.realpath(f), c, n) for f, c, n in tests), files)
