"""Results: JUnit properties on every adapted test, a JSON summary, promotion candidates.

Only the process that owns the run writes files: in --isolate mode that is the
controller, which sees the worker's reports replayed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Optional

import pytest

from testing.plugin import isolation
from testing.plugin.selection import Decision, Variant, marks_for

# Outcome names in the summary; 'crashed' is an ERROR whose worker died.
OUTCOMES = ("passed", "failed", "error", "crashed", "skipped", "xfailed", "xpassed", "xpassed_strict")


def attach(item: pytest.Item, v: Optional[Variant], d: Decision) -> None:
    """JUnit <properties> (pytest writes item.user_properties) and the summary read these."""
    props = [("bucket", d.mode.value), ("marks", ",".join(marks_for(v, d)) if v else "")]
    if d.reason:
        props.append(("reason", d.reason))
    if d.rule_loc:
        props.append(("rule", str(d.rule_loc)))
    if v is not None:
        props += [("class", v.cls), ("test", v.test), ("variant", v.name)]
        if v.op:
            props.append(("op", v.op))
        if v.dtypes:
            props.append(("dtype", ",".join(v.dtypes)))
        if v.module:
            props.append(("module", v.module))
    item.user_properties.extend(props)


def classify(report: pytest.TestReport) -> Optional[str]:
    """Outcome of one phase report, or None when the phase says nothing new."""
    props = dict(report.user_properties)
    if "crash" in props:
        return "crashed"
    if report.when == "call":
        if report.passed:
            return "xpassed" if hasattr(report, "wasxfail") else "passed"
        if report.skipped:
            return "xfailed" if hasattr(report, "wasxfail") else "skipped"
        if "[XPASS(strict)]" in str(report.longrepr):
            return "xpassed_strict"
        return "failed"
    if report.failed:
        return "error"
    if report.skipped:
        return "xfailed" if hasattr(report, "wasxfail") else "skipped"
    return None


_RANK = {o: i for i, o in enumerate(("passed", "xpassed", "xfailed", "skipped", "xpassed_strict", "failed", "error", "crashed"))}


@dataclass
class NodeResult:
    nodeid: str
    outcome: str = "passed"
    duration: float = 0.0
    props: dict = field(default_factory=dict)
    message: Optional[str] = None

    def add(self, report: pytest.TestReport) -> None:
        self.duration += getattr(report, "duration", 0.0) or 0.0
        if report.failed and self.message is None:
            self.message = _first_line(report)
        self.props.update(dict(report.user_properties))
        outcome = classify(report)
        if outcome and (report.when == "call" or _RANK[outcome] > _RANK.get(self.outcome, 0)):
            if report.when == "call" and self.outcome in ("error", "crashed"):
                return
            self.outcome = outcome


def _first_line(report: pytest.TestReport) -> str:
    """The failure's one-line reason (the crash message), for triage."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr or "")
    return text.strip().splitlines()[0][:300] if text.strip() else ""


def summarize(results: dict[str, NodeResult]) -> dict[str, Any]:
    by_bucket: dict[str, Counter] = defaultdict(Counter)
    by_op: dict[str, Counter] = defaultdict(Counter)
    by_dtype: dict[str, Counter] = defaultdict(Counter)
    tests = []
    for r in results.values():
        bucket = r.props.get("bucket", "unadapted")
        by_bucket[bucket][r.outcome] += 1
        if r.props.get("op"):
            by_op[r.props["op"]][r.outcome] += 1
        for d in filter(None, r.props.get("dtype", "").split(",")):
            by_dtype[d][r.outcome] += 1
        tests.append({
            "nodeid": r.nodeid, "outcome": r.outcome, "bucket": bucket, "duration": round(r.duration, 6),
            **{k: r.props[k] for k in ("op", "dtype", "module", "reason", "rule", "crash", "class", "variant") if k in r.props},
            **({"message": r.message} if r.message else {}),
        })
    return {
        "version": 1,
        "counts": dict(Counter(r.outcome for r in results.values())),
        "by_bucket": {k: dict(v) for k, v in sorted(by_bucket.items())},
        "by_op": {k: dict(v) for k, v in sorted(by_op.items())},
        "by_dtype": {k: dict(v) for k, v in sorted(by_dtype.items())},
        "total_duration": round(sum(r.duration for r in results.values()), 6),
        "tests": tests,
        "promotion_candidates": [t["nodeid"] for t in tests if t["outcome"] in ("xpassed", "xpassed_strict")],
    }


def write_atomic(path: str, text: str) -> None:
    """Write via a temp file + os.replace: never a half-written result."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


class Recorder:
    """Collects every report; writes the summary and the promotion report at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.results: dict[str, NodeResult] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.results.setdefault(report.nodeid, NodeResult(report.nodeid)).add(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        summary = summarize(self.results)
        opt = self.config.option
        if opt.oot_summary:
            write_atomic(opt.oot_summary, json.dumps(summary, indent=1) + "\n")
        if opt.oot_promotion:
            from testing.plugin import promotion

            promotion.write(opt.oot_promotion, summary, self.config)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        summary = summarize(self.results)
        if not summary["by_bucket"]:
            return
        tr = terminalreporter
        tr.section("buckets (oot)")
        for bucket, counts in summary["by_bucket"].items():
            tr.write_line(f"{bucket}: " + ", ".join(f"{n} {o}" for o, n in sorted(counts.items())))
        for nodeid in summary["promotion_candidates"]:
            tr.write_line(f"promotion candidate: {nodeid}")


def configure(config: pytest.Config) -> None:
    if isolation.is_worker(config):
        return
    config.pluginmanager.register(Recorder(config), "oot-recorder")
