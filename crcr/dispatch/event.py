"""Pure decisions on a validated dispatch: what was pushed, should we run.

`load_dispatch` turns raw JSON (a repository_dispatch event or a bare
client_payload) into a frozen `Dispatch`; `decide` says run or skip and why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Optional

from crcr.callback_client.errors import PayloadError, one_line
from crcr.callback_client.models import ClientPayload, PullRequestEvent, PushEvent, parse
from crcr.callback_client.refs import ZERO_SHA

RUN_ACTIONS = frozenset({"opened", "reopened", "synchronize"})
LANDED_LABEL = "Merged"
_CIFLOW_TAG = re.compile(r"^refs/tags/ciflow/[A-Za-z0-9_./-]+/(\d+)$")
MAX_PAYLOAD_BYTES = 64 * 1024  # GitHub's client_payload cap (§1.3)


@dataclass(frozen=True)
class Dispatch:
    client_payload: dict  # echoed verbatim in every callback
    event_type: str
    delivery_id: str
    upstream_repo: str
    sha: str  # what to test: head.sha (PR) or after (push)
    ref: str
    pr_number: Optional[int]
    base_sha: Optional[str]
    action: Optional[str]
    landed: bool
    deleted: bool
    labels: tuple[str, ...]
    title: str

    @property
    def change_base(self) -> str:
        """Where the dispatched change starts: the PR's base, else the push's `before` ("" unknown)."""
        return str(self.base_sha or (self.client_payload.get("payload") or {}).get("before") or "")


@dataclass(frozen=True)
class Decision:
    run: bool
    reason: str


def unwrap_event(event: Any) -> Any:
    """A repository_dispatch event carries the relay's payload under client_payload."""
    if isinstance(event, dict) and "client_payload" in event:
        return event["client_payload"]
    return event


def _from_pr(cp: ClientPayload) -> Dispatch:
    ev = parse(PullRequestEvent, cp.payload, "payload")
    pr = ev.pull_request
    labels = tuple(label.name for label in pr.labels)
    return Dispatch(
        client_payload=cp.model_dump(mode="json"),
        event_type=cp.event_type,
        delivery_id=cp.delivery_id,
        upstream_repo=ev.repository.full_name,
        sha=pr.head.sha,
        ref=pr.head.ref,
        pr_number=pr.number,
        base_sha=pr.base.sha,
        action=ev.action,
        landed=bool(pr.merged) or LANDED_LABEL in labels,
        deleted=False,
        labels=labels,
        title=pr.title,
    )


def _from_push(cp: ClientPayload) -> Dispatch:
    ev = parse(PushEvent, cp.payload, "payload")
    if not ev.deleted and ev.after == ZERO_SHA:
        raise PayloadError("payload.after: all-zero SHA on a push that is not a deletion")
    tag = _CIFLOW_TAG.match(ev.ref)
    return Dispatch(
        client_payload=cp.model_dump(mode="json"),
        event_type=cp.event_type,
        delivery_id=cp.delivery_id,
        upstream_repo=ev.repository.full_name,
        sha=ev.after,
        ref=ev.ref,
        pr_number=int(tag.group(1)) if tag else None,
        base_sha=None,
        action=None,
        landed=False,
        deleted=ev.deleted,
        labels=(),
        title="",
    )


def load_dispatch(raw: Any) -> Dispatch:
    """Validate a dispatch (event or bare client_payload); PayloadError on any problem."""
    cp = parse(ClientPayload, unwrap_event(raw), "client_payload")
    size = len(json.dumps(cp.model_dump(mode="json")).encode())
    if size > MAX_PAYLOAD_BYTES:
        raise PayloadError(f"client_payload is {size} bytes, over GitHub's {MAX_PAYLOAD_BYTES}")
    return _from_pr(cp) if cp.event_type == "pull_request" else _from_push(cp)


def load_dispatch_text(text: str | bytes, source: str) -> Dispatch:
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise PayloadError(f"{source}: not JSON: {one_line(str(err), 120)}") from None
    return load_dispatch(raw)


def decide(d: Dispatch) -> Decision:
    if d.event_type == "push":
        if d.deleted:
            return Decision(False, f"push deletes {d.ref}: nothing to test")
        return Decision(True, f"push {d.ref} at {d.sha[:12]}")
    if d.action in RUN_ACTIONS:
        return Decision(True, f"PR #{d.pr_number} {d.action} at {d.sha[:12]}")
    if d.action == "closed":
        if d.landed:
            return Decision(True, f"PR #{d.pr_number} landed: post-land run at {d.sha[:12]}")
        return Decision(False, f"PR #{d.pr_number} closed without landing")
    return Decision(False, f"PR action {d.action!r} is not one the relay dispatches")
