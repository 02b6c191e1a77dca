"""One JUnit XML report from the several pytest processes of a shard.

Each attempt's process writes its own XML (unless it crashed before the end).
The final report keeps, per test, the <testcase> of the attempt that decided
its verdict, so properties other plugins put there survive, and adds:
  - <flakyFailure>/<flakyError> children (the Maven Surefire convention) for
    tests that failed and then passed, plus property outcome=flaky;
  - an <error> testcase for a test whose process died under it.
"""

from __future__ import annotations

import os
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from tools.shard.nodeids import junit_key
from tools.shard.outcomes import Verdict


@dataclass(frozen=True)
class Attempt:
    """Where one attempt of one test left its traces."""

    outcome: str
    seconds: float
    xml: ET.Element | None  # its <testcase>, if the process wrote a report
    detail: str = ""  # e.g. "process killed by signal 11"


def index_cases(path: Path) -> dict[str, ET.Element]:
    """{"classname::name": <testcase>} of one report; {} if it is missing or torn."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return {}
    return {f"{c.get('classname', '')}::{c.get('name', '')}": c for c in root.iter("testcase")}


def case_for(nodeid: str, cases: Mapping[str, ET.Element]) -> ET.Element | None:
    return cases.get(junit_key(nodeid))


def _synthesize(nodeid: str, attempt: Attempt) -> ET.Element:
    classname, name = junit_key(nodeid).rsplit("::", 1)
    case = ET.Element("testcase", classname=classname, name=name, time=f"{attempt.seconds:.3f}")
    if attempt.outcome == "crashed":
        ET.SubElement(case, "error", message=f"test process crashed: {attempt.detail}").text = (
            f"{nodeid} was running when its pytest process died ({attempt.detail}); "
            "the remaining tests of the shard were rerun in a new process."
        )
    elif attempt.outcome in ("failed", "error"):
        ET.SubElement(case, "failure" if attempt.outcome == "failed" else "error", message=attempt.outcome)
    elif attempt.outcome in ("skipped", "xfailed"):
        ET.SubElement(case, "skipped", message=attempt.outcome)
    return case


def _property(case: ET.Element, name: str, value: str) -> None:
    props = case.find("properties")
    if props is None:
        props = ET.Element("properties")
        case.insert(0, props)
    ET.SubElement(props, "property", name=name, value=value)


def _failure_of(attempt: Attempt) -> ET.Element:
    source = None
    if attempt.xml is not None:  # (Elements without children are falsy: no `or` here)
        source = attempt.xml.find("failure")
        source = attempt.xml.find("error") if source is None else source
    tag = "flakyError" if attempt.outcome in ("error", "crashed") else "flakyFailure"
    flaky = ET.Element(
        tag, message=(source.get("message", "") if source is not None else attempt.detail or attempt.outcome)
    )
    flaky.text = source.text if source is not None else None
    return flaky


def final_case(nodeid: str, verdict: Verdict, attempts: Sequence[Attempt]) -> ET.Element:
    deciding = attempts[-1] if verdict.outcome == "flaky" else attempts[0]
    case = deciding.xml if deciding.xml is not None else _synthesize(nodeid, deciding)
    case = ET.fromstring(ET.tostring(case))  # detach from its source document
    if len(attempts) > 1:
        _property(case, "attempts", ",".join(verdict.attempts))
    if verdict.outcome == "flaky":
        _property(case, "outcome", "flaky")
        for attempt in attempts[:-1]:
            case.append(_failure_of(attempt))
    return case


def build_report(cases: Sequence[ET.Element], name: str) -> ET.ElementTree:
    def count(*tags: str) -> int:
        return sum(1 for c in cases if any(c.find(t) is not None for t in tags))

    suite = ET.Element(
        "testsuite",
        name=name,
        tests=str(len(cases)),
        failures=str(count("failure")),
        errors=str(count("error")),
        skipped=str(count("skipped")),
        time=f"{sum(float(c.get('time', 0) or 0) for c in cases):.3f}",
    )
    suite.extend(cases)
    top = ET.Element("testsuites")
    top.append(suite)
    return ET.ElementTree(top)


def write_atomic(tree: ET.ElementTree, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            tree.write(out, encoding="utf-8", xml_declaration=True)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; results are shared files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
