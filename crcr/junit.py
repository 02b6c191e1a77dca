"""Test counts from JUnit XML (pytest's --junitxml, Bazel's test.xml), as a callback reports them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from crcr.errors import ConfigError
from testing.results import junit
from testing.results.outcomes import tally


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


def count_cases(root: ET.Element) -> Counts:
    """xfailed counts as skipped, xpassed (strict too) as passed, every failure, error or crash as failed."""
    kinds = [tally(case.outcome) for case in junit.cases_in(root)]
    return Counts(kinds.count("passed"), kinds.count("failed"), kinds.count("skipped"))


def parse_junit(paths: Iterable[Path]) -> Counts:
    total = Counts()
    for path in paths:
        try:
            root = junit.parse(path)
        except junit.JunitError as err:
            raise ConfigError(str(err)) from None
        total = total + count_cases(root)
    return total
