"""Superseded runs (pure): a newer dispatch of the same PR cancels the older run's unfinished legs.

The key mirrors the workflow's concurrency group (cancel-in-progress): one run per upstream PR
(a `ciflow/` tag push is the PR's too: one group per tag), else one per pushed commit, so a
push to main never cancels the one before it: each is a commit HUD shows. A dispatch the gating
skips still supersedes (its workflow run joins the group all the same), and a PR's `closed`
event cancels its older runs.
"""

from __future__ import annotations

from typing import Optional, Sequence

from crcr.dispatch.event import Dispatch

CIFLOW_TAGS = "refs/tags/ciflow/"


def supersession_key(d: Dispatch) -> str:
    """The run group: the upstream PR when the event is a PR's, a ciflow tag's ref, else the commit."""
    if d.event_type == "pull_request":
        return f"{d.upstream_repo}#{d.pr_number}"
    if d.ref.startswith(CIFLOW_TAGS):
        return f"{d.upstream_repo}@{d.ref}"
    return f"{d.upstream_repo}@{d.sha}"


def superseded_at(arrivals: Sequence[tuple[float, Dispatch]]) -> list[Optional[float]]:
    """For each (arrival time, dispatch), in arrival order: when the next dispatch of the same
    group arrives (its run is cancelled then, if still unfinished); None: never superseded."""
    nxt: dict[str, float] = {}
    out: list[Optional[float]] = [None] * len(arrivals)
    for i in range(len(arrivals) - 1, -1, -1):
        at, d = arrivals[i]
        key = supersession_key(d)
        out[i] = nxt.get(key)
        nxt[key] = at
    return out


def by_whom(arrivals: Sequence[tuple[float, Dispatch]], i: int) -> Optional[Dispatch]:
    """The dispatch that supersedes arrival i (None: none does)."""
    key = supersession_key(arrivals[i][1])
    return next((d for _, d in arrivals[i + 1 :] if supersession_key(d) == key), None)
