"""A leg's JUnit XML (pytest's --junitxml, Bazel's test.xml) read once into a `Report`:
its cases, from which the callback's counts and failed-tests-detail are derived.

A file that cannot be read (missing, truncated, not XML) never stops a callback: it
becomes a one-line `problem` and the rest is counted. Bytes that are not UTF-8
(a test printing raw bytes into its message) are read as U+FFFD, with a problem
line, rather than losing the file.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from crcr.callback_client.errors import one_line
from crcr.callback_client.failed_tests import MAX_ENTRIES, Detail, capped, entry
from testing.results import junit
from testing.results.junit import Case
from testing.results.outcomes import tally

XML_DECL = re.compile(rb"^\s*<\?xml[^>]*\?>")


@dataclass(frozen=True)
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.skipped

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(self.passed + other.passed, self.failed + other.failed, self.skipped + other.skipped)

    def as_results(self) -> dict:
        return {"passed": self.passed, "failed": self.failed, "skipped": self.skipped, "total": self.total}


@dataclass(frozen=True)
class Report:
    """Every testcase of a leg's JUnit files, and what could not be read."""

    cases: tuple[Case, ...] = ()
    problems: tuple[str, ...] = ()  # one line per unreadable file
    files: tuple[Path, ...] = ()
    notes: tuple[str, ...] = ()  # read, but with a caveat (bytes that were not UTF-8)
    left_out: tuple[tuple[str, str], ...] = ()  # (path, why): files the plugin's configs left out

    @property
    def counts(self) -> Counts:
        """xfailed counts as skipped, xpassed (strict too) as passed, every failure, error or crash as failed."""
        kinds = [tally(c.outcome) for c in self.cases]
        return Counts(kinds.count("passed"), kinds.count("failed"), kinds.count("skipped"))

    @property
    def failures(self) -> tuple[Case, ...]:
        return tuple(c for c in self.cases if tally(c.outcome) == "failed")

    @property
    def readable(self) -> bool:
        return bool(self.files) and not self.problems

    def failed_tests_detail(self) -> Detail:
        found = self.failures
        return capped((detail_entry(c) for c in found[:MAX_ENTRIES]), len(found))


def _seconds(raw: Optional[str]) -> Optional[float]:
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def detail_entry(case: Case) -> dict:
    """{name, classname, message, stacktrace, duration}: the deciding child's `message`
    attribute and its text (pytest puts the traceback there)."""
    node = None
    if case.element is not None:
        node = next(
            (case.element.find(t) for t in ("failure", "error") if case.element.find(t) is not None), None
        )
    message = node.get("message", "") if node is not None else case.text.split("\n", 1)[0]
    trace = (node.text or "") if node is not None else case.text
    return entry(case.name, case.classname, message, trace, _seconds(case.time))


def _read_lossy(path: Path) -> Optional[ET.Element]:
    """A file whose bytes are not UTF-8: decoded with U+FFFD, declaration dropped."""
    try:
        data = XML_DECL.sub(b"", path.read_bytes())
        return ET.fromstring(data.decode("utf-8", "replace"))
    except (OSError, ET.ParseError):
        return None


def read_report(paths: Iterable[Path]) -> Report:
    cases: list[Case] = []
    problems: list[str] = []
    notes: list[str] = []
    left_out: dict[str, str] = {}
    files = tuple(Path(p) for p in paths)
    for path in files:
        try:
            root = junit.parse(path)
        except junit.JunitError as err:
            root = _read_lossy(path) if path.is_file() else None
            if root is None:
                problems.append(one_line(str(err)))
                continue
            notes.append(one_line(f"{path}: not UTF-8; read with U+FFFD for the bad bytes"))
        cases += junit.cases_in(root)
        for where, why in junit.left_out_in(root).items():
            left_out.setdefault(where, why)
    return Report(tuple(cases), tuple(problems), files, tuple(notes), tuple(sorted(left_out.items())))
