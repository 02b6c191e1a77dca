"""Pure: where each skip / xfail / xfail_strict entry came from, and which have expired.

An entry may carry ``reason``, ``since`` (upstream SHA, PR or date), ``issue`` (URL) and
``expires`` (a date or a torch version). An expired entry is a warning at its file:line
(the run goes on: the entry still applies until someone edits it); the report counts
entries without provenance (neither ``since`` nor ``issue``) and without a reason.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Optional

from testing.config.modes import Mode
from testing.plugin.plan import Plan
from testing.plugin.problems import Problem

TRACKED = (Mode.skip, Mode.xfail, Mode.xfail_strict)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def expired(expires, today: datetime.date, torch_version: str) -> bool:
    if expires is None:
        return False
    if isinstance(expires, datetime.date):
        return expires < today
    want = _version(expires)
    return _version(torch_version)[: len(want)] >= want


@dataclass(frozen=True)
class Provenance:
    entries: int  # skip / xfail / xfail_strict entries
    without_provenance: int  # neither since nor issue
    without_reason: int  # no reason key and no comment
    expired: tuple[str, ...]  # file:line of each expired entry

    def as_json(self) -> dict:
        return {
            "entries": self.entries,
            "without_provenance": self.without_provenance,
            "without_reason": self.without_reason,
            "expired": list(self.expired),
        }

    @classmethod
    def from_json(cls, data: dict) -> "Provenance":
        return cls(
            data["entries"], data["without_provenance"], data["without_reason"], tuple(data["expired"])
        )

    def line(self) -> str:
        return (
            f"oot provenance: {self.entries} skip/xfail entries, {self.without_provenance} without "
            f"provenance (since/issue), {self.without_reason} without a reason, {len(self.expired)} expired"
        )


def check(plan: Plan, today: datetime.date, torch_version: str) -> tuple[Provenance, list[Problem]]:
    entries = no_prov = no_reason = 0
    stale, problems = [], []
    seen = set()
    for fp in plan.files:
        for rule in fp.rules:
            e = rule.entry
            if e.mode not in TRACKED or rule.loc in seen:
                continue
            seen.add(rule.loc)
            entries += 1
            no_prov += e.since is None and e.issue is None
            no_reason += not rule.reason
            if expired(e.expires, today, torch_version):
                stale.append(str(rule.loc))
                problems.append(Problem(rule.loc, "expires", _expired_text(e.expires, torch_version)))
    return Provenance(entries, no_prov, no_reason, tuple(stale)), problems


def _expired_text(expires, torch_version: str) -> str:
    when = (
        f"on {expires.isoformat()}"
        if isinstance(expires, datetime.date)
        else (f"at torch {expires} (running {torch_version.split('+')[0]})")
    )
    return f"entry expired {when}: it still applies; re-check it and drop or renew it"


def today_from(env_value: Optional[str]) -> datetime.date:
    """OOT_TODAY=YYYY-MM-DD pins 'today' (reproducible runs and tests); else the real date."""
    if env_value:
        try:
            return datetime.date.fromisoformat(env_value)
        except ValueError:
            raise ValueError(f"OOT_TODAY {env_value!r}: not a date (YYYY-MM-DD)") from None
    return datetime.date.today()
