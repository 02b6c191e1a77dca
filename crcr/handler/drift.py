"""Glue: a leg whose test files need a newer harness than the core it ran on is neutral.

The plugin turns a test file whose import fails on a name ``torch/testing/_internal`` lacks
into ``harness drift: <file> needs <name> (from <module>)`` (testing/plugin/drift.py) in its
summary. That is neither a backend error nor a pass: the leg keeps its failures, but a leg that
would be green is ``neutral``, with each drift line in its notes and, where the nightly index
knows one, the nearest nightly whose harness has the name (the core to run it on).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional

from packaging.version import InvalidVersion, Version

from crcr.handler.core_base import CoreResolver
from crcr.handler.runner import LegResult, read_summary
from crcr.upstream.gitcmd import UpstreamError
from crcr.upstream.nightly import NoNightly

MAX_LOOKUPS = 20  # nightlies whose harness file is read for one name


def drift_of(result: LegResult) -> list[dict]:
    """The plugin's harness-drift entries of the leg (its summaries beside each JUnit)."""
    return [d for junit in result.junit for d in read_summary(junit).get("harness_drift", [])]


def defines(text: str, name: str) -> bool:
    """The harness module binds `name` at its top level (a def, a class or an assignment)."""
    return re.search(rf"^(?:def |class )?{re.escape(name)}\b\s*[(:=]", text, re.MULTILINE) is not None


def nearest_with(resolver: Optional[CoreResolver], sha: str, module: str, name: str) -> str:
    """'nightly <version> (<source>)': the newest nightly at or before `sha` whose harness has
    the name, else the oldest after it; '' when the index knows none (or there is no index)."""
    if resolver is None or not resolver.index:
        return ""
    path = module.replace(".", "/") + ".py"
    try:
        nightlies = sorted(resolver.nightlies(), key=_version)[:MAX_LOOKUPS]
        having = [n for n in nightlies if defines(resolver.source.file_at(n.source, path) or "", name)]
        before = [n for n in having if resolver.source.is_ancestor(n.source, sha)]
    except (NoNightly, UpstreamError):
        return ""
    pick = before[-1] if before else having[0] if having else None
    return f"nightly {pick.version} ({pick.source[:12]})" if pick else ""


def _version(nightly) -> Version:
    try:
        return Version(nightly.version)
    except InvalidVersion:
        return Version("0")


def judge_drift(result: LegResult, resolver: Optional[CoreResolver], sha: str) -> LegResult:
    """Drift lines into the notes; a leg that would be green is neutral."""
    found = drift_of(result)
    if not found:
        return result
    lines = []
    for d in found:
        near = nearest_with(resolver, sha, d["module"], d["name"])
        lines.append(d["line"] + (f"; nearest core with it: {near}" if near else ""))
    conclusion = "neutral" if result.conclusion == "success" else result.conclusion
    return replace(result, conclusion=conclusion, notes=result.notes + tuple(lines))
