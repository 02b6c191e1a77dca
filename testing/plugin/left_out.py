"""Files the configs leave out, each named once with why: ``collect: false`` (its reason), a
config the test type leaves out (labels), a path or glob that matches no file.

A run that collects nothing must still say what it left out and why (an exit 5 with nothing
said hides a config's decision). The list goes in the report header's place at the end of
the log, the --oot-summary JSON (``left_out_files``) and JUnit testsuite properties
(``left_out.<path>``); reporting.py writes those. Files that fail to import are the
summary's ``collection_errors``.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import glob
from dataclasses import dataclass

from testing.plugin.planmodel import Plan


@dataclass(frozen=True)
class LeftOut:
    path: str  # as the plan resolved it (a glob stays a glob)
    reason: str
    config: str  # file:line of the entry

    def line(self) -> str:
        return f"oot: left out: {self.path}: {self.reason} ({self.config})"

    def as_json(self) -> dict:
        return {"path": self.path, "reason": self.reason, "config": self.config}


@dataclass(frozen=True)
class LeftOutFiles:
    files: tuple[LeftOut, ...]

    def as_json(self) -> list[dict]:
        return [f.as_json() for f in self.files]


def left_out_files(plan: Plan) -> LeftOutFiles:
    """Every file entry of the plan that will run nothing, once per path (the first entry's why)."""
    out: dict[str, LeftOut] = {}
    seen: set[str] = set()
    for fp in plan.files + plan.left_out:  # a config in effect first: it wins (Plan.file_plan)
        if fp.path in seen:
            continue
        seen.add(fp.path)
        if not fp.collect:
            why = f"collect: false: {fp.reason}" if fp.reason else "collect: false (no reason given)"
            out[fp.path] = LeftOut(fp.path, why, str(fp.loc))
        elif not glob.glob(fp.path):
            out[fp.path] = LeftOut(fp.path, "matches no file", str(fp.loc))
    return LeftOutFiles(tuple(out.values()))
