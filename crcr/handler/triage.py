"""Pure: a red leg's triage verdict (schema_version 1) from the evidence gathered for it.

The rules (crcr/README.md "Triage verdict" is the reader's copy), first match wins:

| category | when | confidence |
|---|---|---|
| infra | the leg lost a device: a card failed its health probe around the leg and was drained (`drained`, handler/devices.py); the evidence names each card | high |
| infra | a device misbehaved: a test hung, the device reported a fault, was busy or was drained (each failing test's `trouble`, testing/README.md "Hangs and sick devices") | high |
| infra | the leg failed outside its tests: timed out, killed by a signal (OOM, runner lost), no readable JUnit, or a failing exit with no failed test | high for timeout/signal/no JUnit, medium otherwise |
| flake | the failing tests, re-run at the same SHAs, all pass (`reproduced_on_retry: false`); or bisection's culprit passes when re-run | high on retry, medium from bisection |
| backend | the backend moved and upstream did not; or the failure reproduces at the last green upstream too | high when upstream did not move, medium when it reproduced at last green |
| upstream | backend unchanged since this job's last green, upstream moved, the failure reproduces at the SHA and not at the last green | high: the first bad commit is known (bisection, or a one-commit range); medium: range narrowed or capped; low: not re-run |
| unknown | anything else (no last green, both moved without a check, nothing moved) | low |

On a core that is not exact (native files not applied, the overlay's import failing, or no
core diff at all), nothing is `upstream` or `backend` with high confidence: the failure may
be our core's, so high drops to medium, and the summary names what the core lacks.

`suspected_upstream` only for upstream, naming the first bad commit (and its PR
when the message names one); evidence: one entry per failing test, at most 10.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional, Sequence

from crcr.upstream.bisect import Bisection, pr_number

ANALYZER = {"name": "oot-ci triage", "version": "1"}
EXCERPT_CHARS = 400


@dataclass(frozen=True)
class Failure:
    test: str
    excerpt: str
    trouble: str = ""  # hang | device fault | device busy | infra: the device's, not the code's


@dataclass(frozen=True)
class Evidence:
    job_name: str
    conclusion: str
    failures: tuple[Failure, ...] = ()
    outside_tests: str = ""  # why the leg failed outside its tests ("" = it did not)
    outside_certain: bool = True  # timeout, signal or no JUnit (vs a bare exit code)
    has_last_green: bool = False
    backend_moved: bool = False
    upstream_moved: bool = False
    upstream_range: str = ""  # "<last green>..<sha>"
    retry_failing: Optional[tuple[str, ...]] = (
        None  # tests failing again on retry at the SHA; None = not re-run
    )
    at_last_green_failing: Optional[bool] = None  # reproduces at the last green upstream; None = not checked
    bisection: Optional[Bisection] = None
    range_commits: int = 0  # first-parent commits in last-green..SHA
    log_url: str = ""  # http(s) link to the job's logs, when there is one
    beyond_upstream: bool = False  # upstream's range cannot change what the leg ran (bazel runner)
    core_gap: str = ""  # what the leg's core lacks (Exactness.gap_line()); "" = the core is exact
    drained: tuple[str, ...] = ()  # probe lines of the cards the leg lost ("spyre:0: wrong result: ...")


def _evidence(e: Evidence) -> list[dict]:
    link = {"log_url": e.log_url} if e.log_url else {}
    cards = [{"job": e.job_name, "excerpt": line[:EXCERPT_CHARS], **link} for line in e.drained]
    return (cards + _test_evidence(e))[:10]


def _test_evidence(e: Evidence) -> list[dict]:
    if not e.failures and e.outside_tests:  # a leg that failed outside its tests: the job itself
        return [
            {"job": e.job_name, "excerpt": e.outside_tests, **({"log_url": e.log_url} if e.log_url else {})}
        ]
    out = []
    for f in e.failures[:10]:
        item = {"job": e.job_name, "test": f.test}
        if f.excerpt.strip():
            item["excerpt"] = f.excerpt.strip()[:EXCERPT_CHARS]
        if e.log_url:
            item["log_url"] = e.log_url
        out.append(item)
    return out


def decide(e: Evidence) -> tuple[str, str, str]:
    """(category, confidence, summary) by the rules above, capped on an inexact core."""
    category, confidence, summary = _decide(e)
    if not e.core_gap:
        return category, confidence, summary
    if category in ("upstream", "backend") and confidence == "high":
        confidence = "medium"
    return category, confidence, f"{summary}; {e.core_gap}"


def _decide(e: Evidence) -> tuple[str, str, str]:
    n = len(e.failures)
    if e.drained:  # what ran on a card that failed its probe is the card's, not the code's
        return (
            "infra",
            "high",
            f"lost {len(e.drained)} device(s), drained after failing a health probe: {'; '.join(e.drained)}",
        )
    sick = [f for f in e.failures if f.trouble]
    if sick:  # a device fault is never upstream's, the backend's code's or a flake
        kinds = ", ".join(sorted({f.trouble for f in sick}))
        return (
            "infra",
            "high",
            f"device trouble in {len(sick)} of {n} failing tests ({kinds}): {sick[0].excerpt}",
        )
    if e.outside_tests:
        return (
            "infra",
            "high" if e.outside_certain else "medium",
            f"failed outside its tests: {e.outside_tests}",
        )
    if e.retry_failing is not None and n and not e.retry_failing:
        return "flake", "high", f"all {n} failing tests passed when re-run at the same SHAs"
    b = e.bisection
    if b is not None and b.status == "flake":
        return "flake", "medium", f"the failure did not hold on re-run during bisection: {b.reason}"
    if e.has_last_green and e.backend_moved and not e.upstream_moved:
        return "backend", "high", "the backend moved since this job's last green; upstream did not"
    if e.at_last_green_failing:
        return (
            "backend",
            "medium",
            f"the failure reproduces at the last green upstream too ({e.upstream_range})",
        )
    if e.has_last_green and not e.backend_moved and e.upstream_moved:
        where = f"only upstream moved since this job's last green ({e.upstream_range})"
        if e.retry_failing is None:
            return "upstream", "low", where + "; the failure was not re-run"
        if b is not None and b.status == "found":
            return "upstream", "high", f"{where}; {b.line()}"
        if e.range_commits == 1:
            return "upstream", "high", f"{where}; the range is one commit"
        detail = b.line() if b is not None else "not bisected"
        return "upstream", "medium", f"{where}; {detail}"
    why = (
        "no green result recorded for this job yet"
        if not e.has_last_green
        else "both the backend and upstream moved"
        if e.backend_moved
        else "upstream moved, but nothing it changed reaches this leg (no re-run, no bisection)"
        if e.beyond_upstream
        else "nothing moved since the last green"
    )
    return "unknown", "low", why


def suspect(e: Evidence) -> Optional[dict]:
    b = e.bisection
    culprit = b.culprit if b is not None and b.status == "found" else None
    if culprit is None:
        return None
    out = {"commit": culprit.sha, "reason": f"first bad commit by bisection: {culprit.subject}"}
    pr = pr_number(culprit.subject)
    if pr:
        out["pr"] = pr
    return out


def verdict(e: Evidence, now: Optional[float] = None) -> dict:
    category, confidence, summary = decide(e)
    failing = ", ".join(f.test.rsplit("::", 1)[-1] for f in e.failures[:3])
    more = f" (+{len(e.failures) - 3} more)" if len(e.failures) > 3 else ""
    flipped = len(e.failures) - len(e.retry_failing or ()) if e.retry_failing else 0
    if flipped:  # some failing tests passed on retry: flaky, left out of the bisection
        summary += f"; {flipped} of {len(e.failures)} failing tests passed on retry (flaky)"
    out = {
        "schema_version": 1,
        "category": category,
        "confidence": confidence,
        "summary": f"{e.job_name}: {summary}" + (f". Failing: {failing}{more}" if failing else ""),
        "analyzer": dict(ANALYZER),
        "analyzed_at": time.strftime(
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime(now if now is not None else time.time())
        ),
    }
    if _evidence(e):
        out["evidence"] = _evidence(e)
    if category == "upstream" and suspect(e):
        out["suspected_upstream"] = suspect(e)
    if e.retry_failing is not None and e.failures:
        out["reproduced_on_retry"] = bool(e.retry_failing)
    return out


def failures_of(
    tests: Sequence[str], excerpts: dict[str, str], troubles: Optional[dict[str, str]] = None
) -> tuple[Failure, ...]:
    return tuple(Failure(t, excerpts.get(t, ""), (troubles or {}).get(t, "")) for t in tests)
