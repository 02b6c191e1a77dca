"""Per-test durations from earlier results: JUnit XML or the plugin's JSON summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from testing.matrix.nodeids import nodeid_from_junit
from testing.results import junit
from tools.errors import ToolsError


class IngestError(ToolsError, ValueError):
    """A result file that cannot be read; the message names the file."""


def from_junit(path: Path, root: Path | None = None) -> dict[str, float]:
    """{node id (or JUnit key): seconds} for every <testcase> with a time."""
    try:
        cases = junit.read(path)
    except junit.JunitError as err:
        where = f"{path}:{err.line}" if err.line is not None else f"{path}"
        raise IngestError(f"{where}: not valid JUnit XML: {err.detail}") from None
    durations: dict[str, float] = {}
    for case in cases:
        if case.time is None:
            continue
        try:
            seconds = float(case.time)
        except ValueError:
            raise IngestError(
                f"{path}: testcase {case.name!r} has time={case.time!r}, not a number"
            ) from None
        key = nodeid_from_junit(case.classname, case.name, case.file, root)
        # A test rerun in one file (several attempts) is charged its last run.
        durations[key] = seconds
    return durations


def _records(doc: Any) -> Iterator[tuple[str, Any]]:
    """(node id, record) pairs from the summary's known layouts:
    {"tests": [{"nodeid": ..., "duration": ...}]}, {"tests": {nodeid: {...}}}
    or {"durations": {nodeid: seconds}}."""
    if isinstance(doc, dict) and isinstance(doc.get("durations"), dict):
        yield from doc["durations"].items()
        return
    tests = doc.get("tests") if isinstance(doc, dict) else None
    if isinstance(tests, dict):
        yield from tests.items()
    elif isinstance(tests, list):
        for entry in tests:
            if isinstance(entry, dict) and "nodeid" in entry:
                yield entry["nodeid"], entry


def _seconds(record: Any) -> float | None:
    if isinstance(record, (int, float)):
        return float(record)
    if isinstance(record, dict):
        for key in ("duration", "seconds", "duration_s", "time"):
            if isinstance(record.get(key), (int, float)):
                return float(record[key])
    return None


def from_summary(path: Path) -> dict[str, float]:
    """{node id: seconds} from the adaptation plugin's JSON summary."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise IngestError(f"{path}:{err.lineno}: not valid JSON: {err.msg}") from None
    if not (isinstance(doc, dict) and ("tests" in doc or "durations" in doc)):
        raise IngestError(f"{path}: no per-test durations found (expected a 'tests' or 'durations' key)")
    return {nodeid: s for nodeid, rec in _records(doc) if (s := _seconds(rec)) is not None}


def from_file(path: Path, root: Path | None = None) -> dict[str, float]:
    """Dispatch on content: XML results or a JSON summary."""
    try:
        head = path.read_text(encoding="utf-8").lstrip()[:1]
    except OSError as err:
        raise IngestError(f"{path}: cannot read: {err.strerror}") from None
    return from_junit(path, root) if head == "<" else from_summary(path)
