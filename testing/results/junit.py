"""JUnit XML, read and written one way (pytest's --junitxml, Bazel's test.xml, the shard report).

Reading: every ``<testcase>`` becomes a ``Case`` whose outcome is decided here, once:
  <failure>/<error>/<skipped> child, first found in that order, else passed;
  <skipped type="pytest.xfail"> is xfailed; a failure saying ``XPASS(strict)`` is
  xpassed_strict; an error whose process died (a ``crash`` property, or crash words in
  its text) is crashed, unless it says it was never run (``not_run``); a property
  ``outcome`` naming an outcome wins (the writer's way to keep ``xpassed``, which JUnit
  has no element for, and an error whose message reads like a crash).
Writing: ``case_element`` per outcome, ``report`` around them, ``write`` atomically.
"""

from __future__ import annotations

import io
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from testing.base import atomic
from testing.base.errors import OotError
from testing.results.outcomes import XPASS_STRICT_MARK as XPASS_STRICT
from testing.results.outcomes import Outcome

# Words a dying test process leaves in an <error>: signals, aborts, worker deaths.
CRASH_TEXT = re.compile(
    r"Fatal Python error|Segmentation fault|SIGSEGV|SIGABRT|core dumped|worker .*(died|crashed)|"
    r"exit code -?\d+|Aborted|crashed",
    re.I,
)
# How the supervisor's NotRun reason starts (pytest quotes it inside 'failed on setup with "..."').
NOT_RUN = "not run: "
_XFAIL_TYPE = "pytest.xfail"
_SKIP_TYPE = "pytest.skip"
_NAMES = frozenset(o.value for o in Outcome)


class JunitError(OotError, ValueError):
    """A JUnit file that cannot be read; ``line`` is set when the XML itself is broken."""

    def __init__(self, path: str | os.PathLike, detail: str, line: Optional[int] = None):
        self.path, self.detail, self.line = Path(path), detail, line
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: not readable JUnit XML ({detail})")


@dataclass(frozen=True)
class Case:
    classname: str
    name: str
    outcome: Outcome
    time: Optional[str]  # the raw attribute: callers decide what a bad number means
    text: str = ""  # the deciding child's message and body
    properties: dict = field(default_factory=dict)
    element: Optional[ET.Element] = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        """``classname::name``: how one report's testcases are matched with another's."""
        return f"{self.classname}::{self.name}"

    @property
    def file(self) -> Optional[str]:
        return None if self.element is None else self.element.get("file")


def parse(path: str | os.PathLike) -> ET.Element:
    """The document's root element; JunitError for a missing or broken file."""
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as err:
        raise JunitError(path, str(err), err.position[0]) from None
    except OSError as err:
        raise JunitError(path, str(err)) from None


def properties_of(element: ET.Element) -> dict[str, str]:
    return {p.get("name"): p.get("value") or "" for p in element.iter("property")}


def outcome_of(element: ET.Element, props: Optional[dict] = None) -> tuple[Outcome, str]:
    """(outcome, the deciding child's message and text) of one <testcase>."""
    props = properties_of(element) if props is None else props
    outcome, text = Outcome.PASSED, ""
    for tag in ("failure", "error", "skipped"):
        node = element.find(tag)
        if node is None:
            continue
        text = "\n".join(filter(None, [node.get("message", ""), node.text or ""]))
        if tag == "skipped":
            outcome = Outcome.XFAILED if "xfail" in node.get("type", "") else Outcome.SKIPPED
        elif "XPASS(strict)" in text:
            outcome = Outcome.XPASSED_STRICT
        elif "crash" in props or (tag == "error" and CRASH_TEXT.search(text)):
            outcome = Outcome.CRASHED
        else:
            outcome = Outcome.FAILED if tag == "failure" else Outcome.ERROR
        break
    if outcome is Outcome.CRASHED and ("not_run" in props or NOT_RUN in text):
        outcome = Outcome.ERROR  # never run after the restart limit: not a crash of its own
    recorded = props.get("outcome", "")
    if recorded in _NAMES:
        outcome = Outcome(recorded)
    return outcome, text


def case_of(element: ET.Element) -> Case:
    props = properties_of(element)
    outcome, text = outcome_of(element, props)
    return Case(
        element.get("classname", ""),
        element.get("name", ""),
        outcome,
        element.get("time"),
        text,
        props,
        element,
    )


def cases_in(root: ET.Element) -> list[Case]:
    return [case_of(e) for e in root.iter("testcase")]


# A testsuite property the plugin writes per file its configs leave out: left_out.<path> = why.
LEFT_OUT = "left_out."


def left_out_in(root: ET.Element) -> dict[str, str]:
    """{path: why} of the suites' own properties (never a testcase's) naming files left out."""
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    found: dict[str, str] = {}
    for suite in suites:
        props = suite.find("properties")
        for p in props.iter("property") if props is not None else ():
            name = p.get("name") or ""
            if name.startswith(LEFT_OUT) and len(name) > len(LEFT_OUT):
                found.setdefault(name[len(LEFT_OUT) :], p.get("value") or "")
    return found


def read(path: str | os.PathLike) -> list[Case]:
    """Every testcase of one file, in document order."""
    return cases_in(parse(path))


def read_all(paths: Iterable[str | os.PathLike]) -> list[Case]:
    return [case for path in paths for case in read(path)]


# ---------------------------------------------------------------- writing


def case_element(
    classname: str,
    name: str,
    outcome: str,
    seconds: float = 0.0,
    message: str = "",
    text: Optional[str] = None,
) -> ET.Element:
    """A <testcase> that ``outcome_of`` reads back as ``outcome``."""
    o = Outcome(outcome)
    case = ET.Element("testcase", classname=classname, name=name, time=f"{seconds:.3f}")
    child = None
    if o is Outcome.XPASSED_STRICT:
        child = ET.SubElement(
            case,
            "failure",
            message=message if XPASS_STRICT in message else f"{XPASS_STRICT} {message}".strip(),
        )
    elif o is Outcome.FAILED:
        child = ET.SubElement(case, "failure", message=message or o.value)
    elif o in (Outcome.ERROR, Outcome.CRASHED):
        child = ET.SubElement(case, "error", message=message or o.value)
        crash_words = CRASH_TEXT.search(f"{message}\n{text or ''}")
        if o is Outcome.CRASHED and not crash_words:
            set_property(case, "crash", message or "crashed")
        elif o is Outcome.ERROR and crash_words:  # e.g. "not run: the worker died ...": still an error
            set_property(case, "outcome", o.value)
    elif o in (Outcome.SKIPPED, Outcome.XFAILED):
        kind = _XFAIL_TYPE if o is Outcome.XFAILED else _SKIP_TYPE
        child = ET.SubElement(case, "skipped", type=kind, message=message or o.value)
    elif o is Outcome.XPASSED:
        set_property(case, "outcome", o.value)
    if child is not None and text:
        child.text = text
    return case


def set_property(case: ET.Element, name: str, value: str) -> None:
    """Add a <property> to the testcase's <properties> (created first, where JUnit wants it)."""
    props = case.find("properties")
    if props is None:
        props = ET.Element("properties")
        case.insert(0, props)
    ET.SubElement(props, "property", name=name, value=value)


def report(cases: Sequence[ET.Element], name: str) -> ET.ElementTree:
    """<testsuites><testsuite name=...> with the usual counts around ``cases``."""

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


def write(path: str | os.PathLike, tree: ET.ElementTree) -> Path:
    """The report, written whole or not at all."""
    buf = io.BytesIO()
    tree.write(buf, encoding="utf-8", xml_declaration=True)
    return atomic.write_bytes(path, buf.getvalue())
