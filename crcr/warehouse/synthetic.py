"""A synthetic dispatch stream for the capacity simulator: JSONL lines crcr/dispatch/stream.py reads.

Seeded, so the same arguments give the same stream. Defaults, each with its source or stated
as our assumption:
- PRs opened: 60 a weekday, 15 a weekend day (assumption: the order of pytorch/pytorch's
  public PR numbers, about 1,500-2,000 a month, most on weekdays);
- hour of day: a weekday profile peaking 14-22 UTC, US working hours (assumption), flat at weekends;
- syncs per PR: geometric, mean 3 after the open, 0.5-12 h apart (assumption);
- landing: 60 % of PRs land, 2-48 h after their last sync (assumption), at the last synced
  head (GitHub's `closed` + merged carries the PR's head SHA), followed by the push to main;
  the other 40 % close without landing;
- labels: 10 % of PRs carry the gating label (assumption; the reference repo's
  `ciflow/crcr/...` label is opt-in, downstream-practice.md §2).
Nightlies are not dispatches (the backend's own cron; crcr-nightly.yml) and are left out.

Each line also carries `content`: what the commit's core and suite are, as opaque ids, for the
simulator's content reuse key (crcr/dispatch/reuse_key.py; a webhook stream has none, and
its legs are keyed by commit). Drawn from its own seeded generator (the events stay those of
the same seed without it), under these assumptions:
- a PR's commits change the core's Python (`torch/**.py`) with probability 0.6 each, its
  test files with 0.1; a later commit that changes neither keeps the PR's content;
- a sync rebases onto main's tip with probability 0.3 (main's core since then comes in);
- the base wheel is the nightly of the day the commit's base was taken (main's commits: their
  own day); a landed PR moves main's core (suite) when its content changed it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

from crcr.dispatch.gating import DEFAULT_LABEL

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DAY, HOUR = 86400, 3600
# share of a weekday's PRs opened in each UTC hour (peaks over US working hours)
WEEKDAY_HOURS = [1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 7, 8, 8, 8, 8, 7, 6, 5, 3, 2]


@dataclass(frozen=True)
class Rates:
    prs_weekday: float = 60.0
    prs_weekend: float = 15.0
    mean_syncs: float = 3.0
    land_share: float = 0.6
    label_share: float = 0.1
    label: str = DEFAULT_LABEL
    core_share: float = 0.6  # a PR commit changes the core's Python
    suite_share: float = 0.1  # ... the suite's test files
    rebase_share: float = 0.3  # a sync rebases onto main's tip

    def describe(self) -> str:
        return (
            f"{self.prs_weekday:g} PRs a weekday, {self.prs_weekend:g} a weekend day, {self.mean_syncs:g} syncs "
            f"each, {self.land_share:.0%} land, {self.label_share:.0%} labelled {self.label}; commits change the core "
            f"{self.core_share:.0%}, the suite {self.suite_share:.0%}, syncs rebase {self.rebase_share:.0%} "
            "(crcr/warehouse/synthetic.py)"
        )


def _sha(*parts) -> str:
    return hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()


def _templates() -> tuple[dict, dict]:
    pr = json.loads((EXAMPLES / "pull_request_synchronize.json").read_text())["client_payload"]
    push = json.loads((EXAMPLES / "push_ciflow_tag.json").read_text())["client_payload"]
    return pr, push


def _pr_payload(template: dict, n: int, action: str, sha: str, labels, merged: bool, seq: int) -> dict:
    cp = copy.deepcopy(template)
    cp["delivery_id"] = f"syn-{n}-{seq}"
    p = cp["payload"]
    p["action"] = action
    p["number"] = n
    pr = p["pull_request"]
    pr.update(number=n, merged=merged, labels=[{"name": x} for x in labels])
    pr["head"]["sha"] = sha
    return cp


def _push_payload(template: dict, sha: str, before: str, seq: int) -> dict:
    cp = copy.deepcopy(template)
    cp["delivery_id"] = f"syn-push-{seq}"
    cp["payload"].update(ref="refs/heads/main", after=sha, before=before)
    return cp


def _opened_at(rng: random.Random, day_start: float) -> float:
    hour = rng.choices(range(24), WEEKDAY_HOURS)[0]
    return day_start + hour * HOUR + rng.random() * HOUR


def generate(days: int, start: float, seed: int = 0, rates: Rates = Rates()) -> list[str]:
    """The stream's JSONL lines, in arrival order: `days` days from `start` (epoch seconds)."""
    rng = random.Random(seed)
    pr_t, push_t = _templates()
    events: list[tuple[float, dict]] = []
    n = 200000
    for day in range(days):
        day_start = start + day * DAY
        weekend = (int(day_start // DAY) + 3) % 7 >= 5  # 1970-01-01 was a Thursday
        count = _poisson(rng, rates.prs_weekend if weekend else rates.prs_weekday)
        for _ in range(count):
            n += 1
            at = day_start + rng.random() * DAY if weekend else _opened_at(rng, day_start)
            labels = [rates.label] if rng.random() < rates.label_share else []
            syncs = int(rng.expovariate(1 / rates.mean_syncs)) if rates.mean_syncs > 0 else 0
            sha = _sha("pr", seed, n, 0)
            events.append((at, _pr_payload(pr_t, n, "opened", sha, labels, False, 0)))
            for s in range(1, syncs + 1):
                at += rng.uniform(0.5, 12) * HOUR
                sha = _sha("pr", seed, n, s)
                events.append((at, _pr_payload(pr_t, n, "synchronize", sha, labels, False, s)))
            at += rng.uniform(2, 48) * HOUR
            lands = rng.random() < rates.land_share
            events.append((at, _pr_payload(pr_t, n, "closed", sha, labels, lands, syncs + 1)))
            if lands:
                events.append((at + 60, _push_payload(push_t, _sha("main", seed, n), sha, n)))
    events.sort(key=lambda e: e[0])
    contents = _contents(events, random.Random(f"content-{seed}"), rates)
    return [
        json.dumps({"at": round(at, 3), "event": cp, "content": c}) for (at, cp), c in zip(events, contents)
    ]


def _contents(events: list[tuple[float, dict]], rng: random.Random, rates: Rates) -> list[dict]:
    """Each event's core and suite content ids, in arrival order (the module's assumptions)."""
    main = {"core": 0, "suite": 0}
    prs: dict[int, dict] = {}
    fresh = iter(range(1, 1 << 62))
    out = []
    for at, cp in events:
        p, day = cp["payload"], int(at // DAY)
        if cp["event_type"] == "push":
            out.append({"core": f"{day}/{main['core']}/", "suite": f"{main['suite']}/"})
            continue
        pr = prs.setdefault(p["number"], {"own_core": "", "own_suite": ""})
        if p["action"] == "opened" or (p["action"] == "synchronize" and rng.random() < rates.rebase_share):
            pr.update(day=day, core=main["core"], suite=main["suite"])
        if p["action"] in ("opened", "synchronize"):
            if rng.random() < rates.core_share:
                pr["own_core"] = str(next(fresh))
            if rng.random() < rates.suite_share:
                pr["own_suite"] = str(next(fresh))
        elif p["pull_request"]["merged"]:  # landed: main's next commit carries its changes
            main["core"] += bool(pr["own_core"])
            main["suite"] += bool(pr["own_suite"])
        out.append(
            {
                "core": f"{pr['day']}/{pr['core']}/{pr['own_core']}",
                "suite": f"{pr['suite']}/{pr['own_suite']}",
            }
        )
    return out


def _poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method (means here are small)."""
    limit, k, p = pow(2.718281828459045, -mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1
