"""Pure: a ranked budget for a change that reaches much of a leg (no I/O).

PyTorch's own target determination ranks tests and runs a top share of them per PR (25 %
by default). Here recall is per change: a change is caught when at least one selected test
fails, so when the tests a change reaches through the map cost more than a share of the
leg's recorded time, a ranked subset of them can keep catching it at a capped cost. The
policy, in order:

1. never cut: the sentinels, the tests whose own test file or config changed, the tests a
   stale map widened to (they are the change, not what it reaches);
2. cover: every changed line (every changed op) keeps the best-ranked test that executed it
   (dispatched it) and can fail the leg, even past the budget: no changed line goes
   unchecked;
3. fill, up to `share` of the leg's recorded time: round-robin over families (one generic
   test on one op or module: the generated name without its dtype), families in the order
   of their best test, so the budget spreads over ops and tests before it spends on a
   second dtype of any of them; within a family, best-ranked first;
4. rank: tests that can fail the leg first; then most specific first, i.e. the tests whose
   run through the changed functions is least shared with other tests (the sum, over the
   lines of the changed functions each test executed, of 1 / the number of tests that
   executed that line); then the quickest; then by id (deterministic).

Tests that cannot fail the leg are the ones the leg's config puts in `xfail` (a failure is
reported as expected, a pass as XPASS: neither fails the leg) or `skip` (never run). They
never satisfy the cover step: a changed line reached by an xfail test and a mandatory one
keeps the mandatory one, however much dearer (else the budget keeps a test that cannot
report the break and cuts the one that can). A line only they reach keeps none (running
them could not catch the change). `skip` tests are never chosen under a budget; `xfail`
ones only with time left after every test that can fail (they still report an XPASS, a
promotion). `xfail_strict` and `mandatory_success` tests can fail (a strict XPASS fails).

A budget that cuts says so in the selection's line (`budget 25 % ...: ran X of Y reached
tests`); `None` runs every reached test. Full-leg fallbacks (a line run at import, unmapped
code) are not budgeted: they stay full and say why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Sequence

from testing.base.errors import OotError
from testing.config.modes import Mode

DEFAULT_SHARE = 0.25  # PyTorch's target determination runs the top 25 % of tests by default
DTYPE_SUFFIX = re.compile(
    r"_(?:bfloat16|float8_e[0-9a-z]+|float\d+|u?int\d+|bool|complex\d+|half|double|long|cfloat|cdouble)$"
)


# config modes whose tests cannot fail the leg (the plugin's buckets; "" = no config decision)
CANNOT_FAIL = frozenset({Mode.xfail.value, Mode.skip.value})
NEVER_RUN = frozenset({Mode.skip.value})


def cannot_fail(mode: str) -> bool:
    return mode in CANNOT_FAIL


class BudgetError(OotError, ValueError):
    """A budget that is not a share of the leg's time."""


def parse_share(text: Optional[str]) -> Optional[float]:
    """'25%', '0.25' -> 0.25; 'off', 'none', '100%', '1' -> None (every reached test runs)."""
    if text is None:
        return DEFAULT_SHARE
    raw = text.strip().lower()
    if raw in ("off", "none", "full"):
        return None
    try:
        share = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise BudgetError(f"budget {text!r}: a share of the leg's recorded time (25%, 0.25) or off") from None
    if not 0 < share <= 1:
        raise BudgetError(f"budget {text!r}: the share must be above 0 and at most 100 %")
    return None if share == 1 else share


def family(test_id: str) -> str:
    """One generic test on one op/module: the generated name without its dtype suffix."""
    return DTYPE_SUFFIX.sub("", test_id)


@dataclass(frozen=True)
class Cut:
    """What the budget did to one leg's selection."""

    share: float
    reached: int  # tests the change reached through the map (before the budget)
    kept: int  # of those, run
    reached_seconds: float
    kept_seconds: float

    def reason(self, total_seconds: float) -> str:
        cut = self.reached_seconds - self.kept_seconds
        pct = 100.0 * cut / total_seconds if total_seconds else 0.0
        return (
            f"budget {100 * self.share:.0f} % of recorded time: ran {self.kept} of {self.reached} "
            f"reached tests, ranked (cut {self.reached - self.kept}, {pct:.1f} % of recorded time)"
        )

    def as_json(self) -> dict:
        return {
            "share": self.share,
            "reached": self.reached,
            "kept": self.kept,
            "reached_seconds": round(self.reached_seconds, 4),
            "kept_seconds": round(self.kept_seconds, 4),
        }


def rank(
    candidates: Iterable[str],
    specificity: Mapping[str, float],
    seconds: Mapping[str, float],
    modes: Mapping[str, str] = {},
) -> list[str]:
    return sorted(
        candidates,
        key=lambda t: (cannot_fail(modes.get(t, "")), -specificity.get(t, 0.0), seconds.get(t, 0.0), t),
    )


def round_robin(ranked: Sequence[str]) -> list[str]:
    """Families in the order of their best test; the i-th test of every family before any i+1-th."""
    families: dict[str, list[str]] = {}
    for t in ranked:
        families.setdefault(family(t), []).append(t)
    out: list[str] = []
    depth = max((len(v) for v in families.values()), default=0)
    for i in range(depth):
        out += [tests[i] for tests in families.values() if i < len(tests)]
    return out


def apply_budget(
    reached: Iterable[str],
    fixed: Iterable[str],
    covers: Sequence[frozenset[str]],
    seconds: Mapping[str, float],
    total_seconds: float,
    share: Optional[float],
    specificity: Mapping[str, float] = {},
    modes: Mapping[str, str] = {},
) -> tuple[frozenset[str], Optional[Cut]]:
    """(the tests to run, the cut or None when the budget did not cut). `reached`: tests the
    change reached through the map; `fixed`: tests never cut; `covers`: per changed line or
    op, the tests that executed it; `modes`: each test's config mode (absent: can fail)."""
    fixed = set(fixed)
    candidates = set(reached) - fixed
    every = fixed | candidates
    limit = (share or 0.0) * total_seconds
    if share is None:
        return frozenset(every), None
    runnable = {t for t in candidates if modes.get(t, "") not in NEVER_RUN}
    if sum(seconds.get(t, 0.0) for t in every) <= limit:
        return frozenset(fixed | runnable), None
    order = rank(runnable, specificity, seconds, modes)
    position = {t: i for i, t in enumerate(order)}
    kept = set(fixed)
    for tests in covers:  # every changed line keeps one test that executed it and can fail
        can = [t for t in tests if not cannot_fail(modes.get(t, ""))]
        own = [t for t in can if t in position]
        if own and not kept.intersection(can):
            kept.add(min(own, key=position.__getitem__))
    spent = sum(seconds.get(t, 0.0) for t in kept)
    last = [t for t in order if cannot_fail(modes.get(t, ""))]
    first = order[: len(order) - len(last)]  # rank put them last
    for t in round_robin(first) + round_robin(last):
        if t not in kept and spent + seconds.get(t, 0.0) <= limit:
            kept.add(t)
            spent += seconds.get(t, 0.0)
    ran = kept & candidates
    if ran == runnable:  # every reached test that runs fits: nothing was cut (skips never run)
        return frozenset(kept), None
    return frozenset(kept), Cut(
        share,
        len(candidates),
        len(ran),
        sum(seconds.get(t, 0.0) for t in candidates),
        sum(seconds.get(t, 0.0) for t in ran),
    )


def specificity(runs: Iterable[tuple[int, Sequence[str]]]) -> dict[str, float]:
    """Per test: the sum over the changed functions' runs of lines it executed (run length,
    tests that executed it) of length / tests: high for tests on paths few others take."""
    out: dict[str, float] = {}
    for length, tests in runs:
        if tests:
            w = length / len(tests)
            for t in tests:
                out[t] = out.get(t, 0.0) + w
    return out
