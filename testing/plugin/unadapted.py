"""Test files whose device-generic tests no given config adapts: one warning per file.

A file is adapted when a config names it (``Plan.file_plan``: the lookup every decision of
the run uses, so a file is reported exactly when its tests were generated without a plan).
Such a file's tests all run as mandatory_success, filtered only by the global supported
ops and dtypes, so a directory passed with one feature's config fails in files nobody
meant to run, for no visible reason. Said as a config problem (problems.py) at the file's
first generated test: a warning, an error under ``--oot-strict``. Runs without a config
adapt nothing on purpose: nothing to say there.

Pure: no torch, no pytest (items are read by their ``cls`` and ``location``).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from testing.base.errors import Loc
from testing.plugin.planmodel import Plan
from testing.plugin.problems import Problem

KEY = "files"  # the config key that would adapt the file


@dataclass(frozen=True)
class Generated:
    """The generated tests of one file as collected: the real path the plugin decided them
    for, the path reports show (rootdir-relative), the first test's line (1-based), how many."""

    file: str
    shown: str
    line: int
    count: int


def generated_by_file(items: Iterable, file_of: Callable[[type], str]) -> list[Generated]:
    """Group generated items by the file their device class was decided for (``file_of``:
    Adapter.file_of, asked once per class)."""
    files: dict[type, str] = {}
    found: dict[str, Generated] = {}
    for item in items:
        if item.cls not in files:
            files[item.cls] = file_of(item.cls)
        file = files[item.cls]
        shown, line = item.location[0], item.location[1] + 1
        was = found.get(file)
        if was is None:
            found[file] = Generated(file, shown, line, 1)
        else:
            found[file] = Generated(file, was.shown, min(was.line, line), was.count + 1)
    return list(found.values())


def problems(plan: Plan, generated: Iterable[Generated]) -> list[Problem]:
    """One warning per file with generated tests that no config of the run names."""
    if not plan.sources:
        return []
    return [
        Problem(Loc(g.shown, g.line), KEY, message(g.count, plan.sources))
        for g in sorted(generated, key=lambda g: g.shown)
        if plan.file_plan(g.file) is None
    ]


def message(count: int, sources: Sequence[str]) -> str:
    return (
        f"no config adapts this file (configs given: {', '.join(sources)}): its {count} "
        "generated device-generic test(s) run unadapted (each one mandatory_success, filtered only "
        "by the global supported ops and dtypes); pass the config that lists this file, list it under a config's "
        "files:, or name only the files your configs list"
    )
