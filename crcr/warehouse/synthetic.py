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

    def describe(self) -> str:
        return (
            f"{self.prs_weekday:g} PRs a weekday, {self.prs_weekend:g} a weekend day, {self.mean_syncs:g} syncs "
            f"each, {self.land_share:.0%} land, {self.label_share:.0%} labelled {self.label} (crcr/warehouse/synthetic.py)"
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
    return [json.dumps({"at": round(at, 3), "event": cp}) for at, cp in events]


def _poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method (means here are small)."""
    limit, k, p = pow(2.718281828459045, -mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1
