"""Typed values the warehouse stores: a leg (who ran what, where, when, how it ended) and
its test results, read once from the leg's JUnit through testing.results.

The handler reads a leg's JUnit once (crcr.callback_client.junit.read_report); `leg_report` turns that
reading into the warehouse's rows. A truncated or invalid file makes the report
`incomplete`, and an incomplete report never makes a leg pass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional

from testing.results import junit
from testing.results.outcomes import Outcome, tally

COMPLETE, INCOMPLETE = "complete", "incomplete"


@dataclass(frozen=True)
class TestRecord:
    __test__ = False  # not a pytest class

    test_id: str
    file: str
    cls: str
    name: str
    outcome: Outcome
    duration: float = 0.0
    op: str = ""
    dtype: str = ""
    module: str = ""
    message: str = ""
    rule: str = ""
    classname: str = ""  # JUnit's dotted classname (test_id's first half)
    device: str = ""  # the card that produced it, when its JUnit says (the shard runner's pool)
    capability: str = (
        ""  # schema 6: the capability answered unsupported that skipped it (testing/plugin/gating.py)
    )


@dataclass(frozen=True)
class LegReport:
    """Every test case of one leg, and whether its JUnit files were whole."""

    tests: tuple[TestRecord, ...] = ()
    problems: tuple[str, ...] = ()  # "path:line: not readable JUnit XML (...)" per broken file

    @property
    def complete(self) -> bool:
        return not self.problems

    @property
    def status(self) -> str:
        return COMPLETE if self.complete else INCOMPLETE

    def tally(self) -> tuple[int, int, int]:
        """(passed, failed, skipped) as a callback counts them."""
        kinds = [tally(t.outcome) for t in self.tests]
        return kinds.count("passed"), kinds.count("failed"), kinds.count("skipped")

    def failing(self) -> list[TestRecord]:
        """Every test a callback counts as failed (testing.results.outcomes.tally)."""
        return [t for t in self.tests if tally(t.outcome) == "failed"]


@dataclass(frozen=True)
class LegRecord:
    """One leg as the warehouse keeps it. Times are epoch seconds (UTC)."""

    repo: str
    delivery_id: str
    job_name: str
    run_id: str
    run_attempt: int
    upstream_sha: str
    backend_sha: str
    started_at: float
    finished_at: float
    conclusion: str
    event_type: str = ""
    pr_number: int = 0
    feature: str = ""
    core_version: str = ""
    core_overlay: str = ""
    runner: str = ""
    level: str = ""
    queued_at: Optional[float] = None  # the dispatch reached us (the queue's start; None unknown)
    status: str = "completed"  # or "in_progress": the row the job's in_progress callback makes
    # as the relay reports them; ingest takes both from the leg's in_progress row when it has one
    queue_time: Optional[float] = None
    execution_time: Optional[float] = None
    leg_seconds: Optional[float] = None  # the handler's own time running the leg (no set-up)
    device: str = ""  # the card its results come from ("" = not pinned to one)
    results_note: str = ""
    triage_verdict: Optional[dict] = None  # issue 21: the relay-validated verdict
    bisection: Optional[dict] = None  # issue 21: first bad upstream commit and its range
    simulated: bool = False
    reuse_key: str = ""  # schema 5: the inputs a green leg may be reused for ("" = not reusable)
    reused_from: str = ""  # the source leg's leg_key when this leg's result was reused
    report: LegReport = field(default_factory=LegReport)

    @property
    def key(self) -> str:
        return "/".join((self.repo, self.delivery_id, self.run_id, str(self.run_attempt), self.job_name))

    def json_or_none(self, value: Optional[dict]) -> Optional[str]:
        return None if value is None else json.dumps(value, sort_keys=True)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def _seconds(raw: Optional[str]) -> float:
    try:
        return max(0.0, float(raw)) if raw else 0.0
    except ValueError:
        return 0.0


def test_record(case: junit.Case) -> TestRecord:
    props = case.properties
    classname = case.classname
    # the module path of the class: reports written before the plugin kept `__wrapped__` name its
    # wrapper in xunit1's `file`, so the class path is the one that holds for every report
    file = classname.rsplit(".", 1)[0].replace(".", "/") + ".py" if "." in classname else ""
    return TestRecord(
        test_id=case.key,
        file=file,
        cls=props.get("class") or classname.rsplit(".", 1)[-1],
        name=props.get("variant") or case.name,  # the variant name configs spell
        outcome=case.outcome,
        duration=_seconds(case.time),
        op=props.get("op", ""),
        dtype=props.get("dtype", ""),
        module=props.get("module", ""),
        message=_first_line(case.text),
        rule=props.get("rule", ""),
        classname=classname,
        device=props.get("device", ""),
        capability=props.get("capability", ""),
    )


def leg_report(report) -> LegReport:
    """The warehouse's rows of the handler's one reading of a leg's JUnit (crcr.callback_client.junit.Report)."""
    return LegReport(tuple(test_record(c) for c in report.cases), tuple(report.problems))
