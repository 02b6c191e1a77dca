"""The versioned timings file: per-test durations recorded from earlier runs.

Format (JSON, sorted keys so diffs stay reviewable):
    {"format": "oot-ci-timings", "version": 1,
     "tests": {"<node id or JUnit key>": seconds, ...}}

Merging uses an exponential moving average so one noisy run cannot swing a
test's weight, while a test that really got slower moves within a few runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat, ValidationError

from testing.base import atomic
from testing.base.errors import OotError

FORMAT = "oot-ci-timings"
VERSION = 1
DEFAULT_WEIGHT = 0.5  # weight of the newest observation in the moving average


class TimingsError(OotError, ValueError):
    """A timings file that cannot be used; the message names the file."""


class Timings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["oot-ci-timings"] = FORMAT
    version: Literal[1] = VERSION
    tests: dict[str, NonNegativeFloat] = Field(default_factory=dict)


def merge(
    old: Mapping[str, float], new: Mapping[str, float], weight: float = DEFAULT_WEIGHT
) -> dict[str, float]:
    """Old durations updated with new observations; unseen tests keep theirs."""
    if not 0.0 < weight <= 1.0:
        raise ValueError(f"merge weight must be in (0, 1], got {weight}")
    merged = dict(old)
    for key, seconds in new.items():
        previous = merged.get(key)
        value = seconds if previous is None else weight * seconds + (1 - weight) * previous
        merged[key] = round(value, 6)
    return merged


def prune(tests: Mapping[str, float], keep: set[str]) -> dict[str, float]:
    """Drop entries for tests that no longer exist."""
    return {k: v for k, v in tests.items() if k in keep}


def stale(tests: Mapping[str, float], observed: set[str]) -> list[str]:
    """Recorded tests that the results' own files no longer have, sorted.

    Only the files the results ran count: results of one target say nothing about the
    tests of another (the README's glob once cut 1,241 recorded tests to 76)."""
    ran = {_file(k) for k in observed}
    return sorted(k for k in tests if k not in observed and _file(k) in ran)


def _file(key: str) -> str:
    return key.split("::", 1)[0]


def load(path: Path) -> Timings:
    """The timings in `path`; a missing file is an empty record."""
    if not path.exists():
        return Timings()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise TimingsError(f"{path}:{err.lineno}: not valid JSON: {err.msg}") from None
    try:
        return Timings.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise TimingsError(f"{path}: {where}: {first['msg']}") from None


def dumps(timings: Timings) -> str:
    return json.dumps(timings.model_dump(), indent=1, sort_keys=True) + "\n"


def previous_path(path: Path) -> Path:
    return path.with_name(path.name + ".prev")


def save(path: Path, timings: Timings) -> Path | None:
    """Write atomically (a crash mid-write never leaves a truncated file), keeping the
    file's previous content in ``<name>.prev``; returns that path when there was one."""
    previous = None
    if path.exists():
        previous = atomic.write_bytes(previous_path(path), path.read_bytes())
    atomic.write_text(path, dumps(timings))
    return previous
