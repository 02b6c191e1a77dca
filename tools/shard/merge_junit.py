"""One JUnit XML report from the several pytest processes of a shard.

Each attempt's process writes its own XML (unless it crashed before the end).
The final report keeps, per test, the <testcase> of the attempt that decided
its verdict, so properties other plugins put there survive, and adds:
  - <flakyFailure>/<flakyError> children (the Maven Surefire convention) for
    tests that failed and then passed, plus property outcome=flaky;
  - an <error> testcase for a test whose process died under it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from testing.matrix.nodeids import junit_key
from testing.results import junit
from testing.results.outcomes import FLAKY
from tools.shard.verdicts import Verdict


@dataclass(frozen=True)
class Attempt:
    """Where one attempt of one test left its traces."""

    outcome: str
    seconds: float
    xml: ET.Element | None  # its <testcase>, if the process wrote a report
    detail: str = ""  # e.g. "process killed by signal 11"
    device: str = ""  # the card it ran on, on a pool of cards (devices.py): property `device`


def index_cases(path: Path) -> dict[str, ET.Element]:
    """{"classname::name": <testcase>} of one report; {} if it is missing or torn."""
    try:
        return {c.key: c.element for c in junit.read(path)}
    except junit.JunitError:
        return {}


def case_for(nodeid: str, cases: Mapping[str, ET.Element]) -> ET.Element | None:
    return cases.get(junit_key(nodeid))


def _synthesize(nodeid: str, attempt: Attempt) -> ET.Element:
    classname, name = junit_key(nodeid).rsplit("::", 1)
    if attempt.outcome == "crashed":
        return junit.case_element(
            classname,
            name,
            "crashed",
            attempt.seconds,
            f"test process crashed: {attempt.detail}",
            f"{nodeid} was running when its pytest process died ({attempt.detail}); "
            "the remaining tests of the shard were rerun in a new process.",
        )
    if attempt.outcome in ("failed", "error", "skipped", "xfailed"):
        # the detail says why (e.g. "not run: ... restart limit"); bare outcome otherwise
        message = attempt.detail or attempt.outcome
        return junit.case_element(classname, name, attempt.outcome, attempt.seconds, message)
    return junit.case_element(classname, name, "passed", attempt.seconds)


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


def _properties_of(attempts: Sequence[Attempt]) -> ET.Element | None:
    """The <properties> another attempt's report wrote (op, dtype, ...: the same test)."""
    for attempt in attempts:
        found = attempt.xml.find("properties") if attempt.xml is not None else None
        if found is not None:
            return found
    return None


def final_case(nodeid: str, verdict: Verdict, attempts: Sequence[Attempt]) -> ET.Element:
    deciding = attempts[-1] if verdict.outcome == FLAKY else attempts[0]
    case = deciding.xml if deciding.xml is not None else _synthesize(nodeid, deciding)
    case = ET.fromstring(ET.tostring(case))  # detach from its source document
    props = _properties_of(attempts) if case.find("properties") is None else None
    if props is not None:  # e.g. it crashed first, then a rerun's report said what it tests
        case.insert(0, ET.fromstring(ET.tostring(props)))
    if deciding.device:  # the warehouse records the device of every result
        junit.set_property(case, "device", deciding.device)
    if len(attempts) > 1:
        junit.set_property(case, "attempts", ",".join(verdict.attempts))
    if verdict.outcome == FLAKY:
        junit.set_property(case, "outcome", FLAKY)
        for attempt in attempts[:-1]:
            case.append(_failure_of(attempt))
    return case
