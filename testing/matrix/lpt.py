"""Pure shard planning: duration estimates, LPT and round-robin bucketing.

Every function here is deterministic in its inputs (ties break on node id and
shard index), so independent shard processes that collected the same tests
and read the same timings compute the same plan without talking to each other.
"""

from __future__ import annotations

import heapq
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from testing.matrix.nodeids import class_of, file_of, junit_key

# Used only when no duration at all is known: every test then weighs the same,
# and LPT degenerates to equal test counts per shard.
DEFAULT_SECONDS = 1.0


@dataclass(frozen=True)
class Estimate:
    seconds: float
    source: str  # "recorded", "class-mean", "file-mean", "median", "default"


@dataclass(frozen=True)
class Plan:
    """Shard i runs `shards[i]` (node ids in collection order)."""

    shards: tuple[tuple[str, ...], ...]
    loads: tuple[float, ...]
    estimates: Mapping[str, Estimate]

    @property
    def makespan(self) -> float:
        return max(self.loads) if self.loads else 0.0

    def shard_of(self, nodeid: str) -> int:
        for index, members in enumerate(self.shards):
            if nodeid in members:
                return index
        raise KeyError(nodeid)


def lookup(recorded: Mapping[str, float], nodeid: str) -> float | None:
    """Recorded seconds for `nodeid`, under its node id or its JUnit key."""
    if nodeid in recorded:
        return recorded[nodeid]
    return recorded.get(junit_key(nodeid))


def estimate_durations(nodeids: Sequence[str], recorded: Mapping[str, float]) -> dict[str, Estimate]:
    """Recorded duration, else the mean of known tests in the same class, else
    in the same file, else the median of all known tests of this run.

    Variants of one test (dtypes, ops) tend to share a class and cost, which
    is why the nearest group comes first.
    """
    known = {n: s for n in nodeids if (s := lookup(recorded, n)) is not None}
    by_class: dict[str, list[float]] = defaultdict(list)
    by_file: dict[str, list[float]] = defaultdict(list)
    for nodeid, seconds in known.items():
        by_class[class_of(nodeid)].append(seconds)
        by_file[file_of(nodeid)].append(seconds)
    pool = list(known.values()) or list(recorded.values())
    median = statistics.median(pool) if pool else None

    def one(nodeid: str) -> Estimate:
        if nodeid in known:
            return Estimate(known[nodeid], "recorded")
        if by_class.get(class_of(nodeid)):
            return Estimate(statistics.fmean(by_class[class_of(nodeid)]), "class-mean")
        if by_file.get(file_of(nodeid)):
            return Estimate(statistics.fmean(by_file[file_of(nodeid)]), "file-mean")
        if median is not None:
            return Estimate(median, "median")
        return Estimate(DEFAULT_SECONDS, "default")

    return {nodeid: one(nodeid) for nodeid in nodeids}


def _check(nodeids: Sequence[str], total: int) -> None:
    if total < 1:
        raise ValueError(f"shard count must be >= 1, got {total}")
    if len(set(nodeids)) != len(nodeids):
        dupes = sorted(n for n, count in Counter(nodeids).items() if count > 1)
        raise ValueError(f"duplicate node ids cannot be sharded: {dupes[:3]}")


def _plan(
    nodeids: Sequence[str], total: int, assign: Callable[[], list[int]], estimates: Mapping[str, Estimate]
) -> Plan:
    owners = assign()
    members: list[list[str]] = [[] for _ in range(total)]
    loads = [0.0] * total
    for nodeid, owner in zip(nodeids, owners):  # keeps collection order
        members[owner].append(nodeid)
        loads[owner] += estimates[nodeid].seconds
    return Plan(tuple(tuple(m) for m in members), tuple(loads), estimates)


def lpt_plan(nodeids: Sequence[str], total: int, recorded: Mapping[str, float]) -> Plan:
    """Longest processing time first: each test, longest first, goes to the
    currently least loaded shard (a 4/3-approximation of the best makespan)."""
    _check(nodeids, total)
    estimates = estimate_durations(nodeids, recorded)

    def assign() -> list[int]:
        position = {n: i for i, n in enumerate(nodeids)}
        order = sorted(nodeids, key=lambda n: (-estimates[n].seconds, n))
        heap = [(0.0, shard) for shard in range(total)]
        owners = [0] * len(nodeids)
        for nodeid in order:
            load, shard = heapq.heappop(heap)
            owners[position[nodeid]] = shard
            heapq.heappush(heap, (load + estimates[nodeid].seconds, shard))
        return owners

    return _plan(nodeids, total, assign, estimates)


def round_robin_plan(nodeids: Sequence[str], total: int, recorded: Mapping[str, float]) -> Plan:
    """Baseline: deal tests in collection order, as naive sharding does."""
    _check(nodeids, total)
    estimates = estimate_durations(nodeids, recorded)
    return _plan(nodeids, total, lambda: [i % total for i in range(len(nodeids))], estimates)


def ideal_makespan(durations: Iterable[float], total: int) -> float:
    """Perfectly even split of the total work: the denominator of the
    balance ratio. (No plan can beat max(this, longest single test).)"""
    return sum(durations) / total


def true_makespan(plan: Plan, actual: Mapping[str, float]) -> float:
    """Makespan of `plan` measured with `actual` durations, e.g. to score a
    plan made from estimates against what the tests really cost."""
    return max((sum(actual[n] for n in shard) for shard in plan.shards), default=0.0)
