"""Harness drift: a test file that imports a name the harness in use lacks.

Upstream's test files move with upstream's harness (``torch/testing/_internal``): a file of a
newer commit can import a name the core in use does not have yet
(``from torch.testing._internal.common_methods_invocations import binary_ufuncs_and_refs``
against 2.13.0). That is neither the backend's error nor a test result: the file's collection
becomes a skip saying ``harness drift: <file> needs <name>``, listed in the summary
(``harness_drift``), the terminal and JUnit, so a leg that has one is neutral, never green and
never red (crcr/handler reads the summary).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

NAME = "oot-drift"
HARNESS = r"torch\.testing\._internal(?:\.\w+)*"
# the two ways a missing harness name shows at import
PATTERNS = (
    re.compile(rf"cannot import name '(?P<name>\w+)' from '(?P<module>{HARNESS})'"),
    re.compile(rf"module '(?P<module>{HARNESS})' has no attribute '(?P<name>\w+)'"),
)


@dataclass(frozen=True)
class Drift:
    file: str  # as pytest names it (relative to the rootdir)
    name: str
    module: str

    def line(self) -> str:
        return f"harness drift: {self.file} needs {self.name} (from {self.module})"

    def as_json(self) -> dict:
        return {"file": self.file, "name": self.name, "module": self.module, "line": self.line()}


LINE = re.compile(rf"harness drift: (?P<file>\S+) needs (?P<name>\w+) \(from (?P<module>{HARNESS})\)")


def find(file: str, text: str) -> Optional[Drift]:
    """The drift behind an import failure's text, None for any other failure."""
    for pattern in PATTERNS:
        m = pattern.search(text)
        if m:
            return Drift(file, m["name"], m["module"])
    return None


class DriftCollector:
    """A test module whose import fails on a missing harness name: a skip naming the drift
    (its message is the drift's line, which is all a replayed report needs: of_report)."""

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector):
        report = yield
        if report.failed and isinstance(collector, pytest.Module):
            drift = find(report.nodeid or _named(collector), str(report.longrepr or ""))
            if drift is not None:
                report.outcome = "skipped"
                report.longrepr = (str(collector.path), 0, drift.line())
        return report


def _named(collector: pytest.Collector) -> str:
    """A module outside the rootdir has no node id (`check` collects the checkout's files from
    the workspace): its path in the checkout (TORCH_ROOT), else as given."""
    root = getattr(collector.config.option, "oot_upstream_root", None)
    path = Path(collector.path)
    if root and path.resolve().is_relative_to(Path(root).resolve()):
        return path.resolve().relative_to(Path(root).resolve()).as_posix()
    return str(path)


def of_report(report) -> Optional[Drift]:
    """The drift a skipped collect report carries (DriftCollector), else None."""
    longrepr = report.longrepr
    text = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else ""
    m = LINE.fullmatch(text)
    return Drift(m["file"], m["name"], m["module"]) if report.skipped and m else None
