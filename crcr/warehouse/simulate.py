"""A clearly labelled SIMULATED history, so a newcomer sees every panel filled:
`--simulate-days 30` writes that many days of dispatches for the repo `simulated/oot-ci`
with every row marked `simulated = 1` (never counted in real L3 numbers; the page labels it).

Seeded (the same history every time for the same days and seed): a few flaky tests, one
upstream regression (one op in float16 fails from one commit on), two xfail_strict tests
that start passing (promotion candidates), lognormal queue and run times, rare time-outs
and re-runs.
"""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path
from typing import Iterator, Optional

from crcr.warehouse.records import LegRecord, LegReport, TestRecord
from testing.results.outcomes import Outcome

REPO = "simulated/oot-ci"
OPS = ("add", "mul", "sub", "div", "exp", "log", "sin", "matmul", "sum", "mean", "norm.nuc", "where")
DTYPES = ("float32", "float16", "bfloat16", "int32")
MODULES = ("nn.Linear", "nn.Conv2d", "nn.LayerNorm", "nn.Flatten", "nn.ReLU", "nn.Embedding")
FLAKY = {
    ("op_consistency", "matmul", "bfloat16"),
    ("op_consistency", "exp", "float16"),
    ("module_consistency", "nn.Conv2d", ""),
}
REGRESSION = ("div", "float16")  # fails from REGRESSION_DAY on
PROMOTED = {("norm.nuc", "float32"), ("norm.nuc", "float16")}  # xfail_strict that starts passing
REGRESSION_DAY, PROMOTION_DAY = 0.6, 0.8  # fractions of the simulated span
PER_DAY = 3
DAY = 86400


def _sha(*parts: object) -> str:
    return hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()


def promotion_rule(workspace: Optional[Path]) -> str:
    """The config line of the norm.nuc xfail_strict entry, so the diff panel has a real diff."""
    path = Path("configs/spyre/op_consistency.yaml")
    try:
        lines = (workspace / path).read_text().splitlines() if workspace else []
    except OSError:
        return ""
    for i, line in enumerate(lines):
        if re.search(r"ops:\s*\[norm\.nuc\]", line):
            start = next((j for j in range(i, -1, -1) if lines[j].lstrip().startswith("- ")), i)
            return f"{path}:{start + 1}"
    return ""


def _op_tests(rng: random.Random, frac: float, rule: str) -> list[TestRecord]:
    out = []
    for op in OPS:
        for dt in DTYPES:
            name = f"test_matches_cpu_{op.replace('.', '_')}_spyre_{dt}"
            outcome, msg, test_rule = Outcome.PASSED, "", ""
            if (op, dt) in PROMOTED or op == "norm.nuc":
                test_rule = rule
                passing = (op, dt) in PROMOTED and frac >= PROMOTION_DAY
                outcome = Outcome.XPASSED_STRICT if passing else Outcome.XFAILED
            elif (op, dt) == REGRESSION and frac >= REGRESSION_DAY:
                outcome, msg = (
                    Outcome.FAILED,
                    "AssertionError: Tensor-likes are not close! (simulated regression)",
                )
            elif ("op_consistency", op, dt) in FLAKY and rng.random() < 0.3:
                outcome, msg = Outcome.FAILED, "AssertionError: mismatch 1 / 64 (simulated flake)"
            elif dt == "int32" and op in ("exp", "log", "sin"):
                outcome = Outcome.SKIPPED
            out.append(
                TestRecord(
                    f"testing.suites.test_op_consistency.TestOpConsistencySPYRE::{name}",
                    "testing/suites/test_op_consistency.py",
                    "TestOpConsistency",
                    name,
                    outcome,
                    round(rng.lognormvariate(-1.5, 0.8), 3),
                    op,
                    dt,
                    "",
                    msg,
                    test_rule,
                )
            )
    return out


def _module_tests(rng: random.Random) -> list[TestRecord]:
    out = []
    for module in MODULES:
        for dt in ("float32", "float16"):
            name = f"test_forward_{module.replace('.', '_')}_spyre_{dt}"
            flake = ("module_consistency", module, "") in FLAKY and rng.random() < 0.25
            out.append(
                TestRecord(
                    f"testing.suites.test_module_consistency.TestModuleConsistencySPYRE::{name}",
                    "testing/suites/test_module_consistency.py",
                    "TestModuleConsistency",
                    name,
                    Outcome.FAILED if flake else Outcome.PASSED,
                    round(rng.lognormvariate(-1.0, 0.6), 3),
                    "",
                    dt,
                    module,
                    "RuntimeError: worker timed out (simulated flake)" if flake else "",
                )
            )
    return out


def history(days: int, now: float, seed: int = 0, workspace: Optional[Path] = None) -> Iterator[LegRecord]:
    """Every simulated leg, oldest first: PER_DAY dispatches a day, one leg per feature."""
    rng = random.Random(seed)
    rule = promotion_rule(workspace)
    start = now - days * DAY
    total = days * PER_DAY
    first = next((i for i in range(total) if i / max(1, total - 1) >= REGRESSION_DAY), total - 1)
    first_bad, last_good = _sha("upstream", seed, first), _sha("upstream", seed, max(0, first - 1))
    for i in range(total):
        frac = i / max(1, total - 1)
        queued = start + (i + rng.random() * 0.5) * DAY / PER_DAY
        upstream = _sha("upstream", seed, i)
        backend = _sha("backend", seed, i // (PER_DAY * 7))  # a backend release a week
        delivery = f"sim-{seed}-{i:04d}"
        queue = rng.lognormvariate(6.0, 0.7)  # median ~7 min
        legs = [("op_consistency", _op_tests(rng, frac, rule)), ("module_consistency", _module_tests(rng))]
        for first, (feature, tests) in enumerate(legs):
            exec_s = rng.lognormvariate(7.4, 0.35)  # median ~27 min
            conclusion = (
                "failure" if any(t.outcome in (Outcome.FAILED, Outcome.ERROR) for t in tests) else "success"
            )
            regressed = any("regression" in t.message for t in tests)
            attempts = [conclusion]
            if rng.random() < 0.012:
                attempts = ["timed_out"]
            elif conclusion == "failure" and not regressed and rng.random() < 0.3:
                attempts = ["failure", "success"]  # a flake re-run that went green
            verdict, bisection = _triage(tests, regressed, upstream, first_bad, last_good)
            begun = queued + queue + rng.random() * 30
            for attempt, concl in enumerate(attempts, 1):
                ran = 6 * 3600 if concl == "timed_out" else exec_s
                report = LegReport(
                    tuple(
                        t if concl != "success" or t.outcome is not Outcome.FAILED else _passed(t)
                        for t in tests
                    )
                )
                yield LegRecord(
                    repo=REPO,
                    delivery_id=delivery,
                    job_name=f"test-spyre-{feature}",
                    run_id=f"{900000 + i}",
                    run_attempt=attempt,
                    upstream_sha=upstream,
                    backend_sha=backend,
                    started_at=begun,
                    finished_at=begun + ran,
                    conclusion=concl,
                    event_type="pull_request",
                    pr_number=150000 + i,
                    feature=f"spyre-{feature}",
                    core_version="2.13.0",
                    runner="simulated",
                    level="L2",
                    queued_at=queued,
                    # the relay's per-run queue: the first job of attempt 1, and each re-run
                    # attempt's (one job here), from the same dispatch
                    queue_time=begun - queued if attempt > 1 or first == 0 else None,
                    execution_time=ran,
                    simulated=True,
                    report=report,
                    triage_verdict=verdict if concl == "failure" else None,
                    bisection=bisection if concl == "failure" else None,
                )
                begun += ran + 120


def _passed(t: TestRecord) -> TestRecord:
    from dataclasses import replace

    return replace(t, outcome=Outcome.PASSED, message="")


def _triage(tests, regressed: bool, upstream: str, first_bad: str, last_good: str):
    """The verdict and bisection issue 21 attaches to a red leg (shapes as the relay validates)."""
    if regressed:
        verdict = {
            "schema_version": 1,
            "category": "upstream",
            "confidence": "high",
            "summary": f"div float16 fails since upstream {first_bad[:10]} (simulated)",
            "suspected_upstream": {"commit": first_bad, "reason": "first bad commit by bisection"},
        }
        return verdict, {"first_bad": first_bad, "last_good": last_good, "tested": upstream, "steps": 4}
    verdict = {
        "schema_version": 1,
        "category": "flake",
        "confidence": "medium",
        "summary": "passed on retry at the same SHAs (simulated)",
    }
    return verdict, None


def write_history(wh, days: int, now: float, seed: int = 0, workspace: Optional[Path] = None) -> int:
    """Ingest the simulated history; the number of legs that were not there yet."""
    from crcr.warehouse.ingest import ingest

    with wh.exclusive():  # one embedded session for every simulated leg
        written = sum(ingest(wh, leg, settle=False) for leg in history(days, now, seed, workspace))
        wh.settle()
    return written
