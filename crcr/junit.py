"""Test counts from JUnit XML (pytest's --junitxml, Bazel's test.xml)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from crcr.errors import ConfigError


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
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            failed += 1
        elif "skipped" in tags:
            skipped += 1
        else:
            passed += 1
    return Counts(passed, failed, skipped)


def parse_junit(paths: Iterable[Path]) -> Counts:
    total = Counts()
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as err:
            raise ConfigError(f"{path}: not readable JUnit XML ({err})") from None
        total = total + count_cases(root)
    return total
