"""CallbackClient: base URL, token, retry policy, rate budget and outbox.

Delivery is at-least-once from the outbox, made exactly-once by the relay's
state machine: a 400 state-transition answer to a body we may already have
sent (a retry, or a replay after a crash) means the relay has it.

Only a 200 proves HUD has the row too: the relay saves its state *before*
forwarding to HUD, so the 400 duplicate that follows a 500 (HUD down) or a
client timeout (HUD slow, the relay still retrying it) says nothing about
HUD. Such a callback counts as delivered (the relay refuses any resend) but
its outcome is RECORDED_HUD_UNCONFIRMED, and callers must say so loudly.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Callable, Optional

from urllib3.exceptions import MaxRetryError
from urllib3.util.retry import Retry

from crcr.callback_client import retry as retries
from crcr.callback_client.budget import RateBudget
from crcr.callback_client.errors import CallbackRejected, DeliveryPending, TokenRefused, TransportError
from crcr.callback_client.oidc import TokenProvider
from crcr.callback_client.outbox import Item, Outbox
from crcr.callback_client.transport import DEFAULT_TIMEOUT, BaseTransport, HttpTransport, Request, Response

log = logging.getLogger("crcr.callback_client.client")
CALLBACK_PATH = "/github/callback"
_ALREADY = re.compile(r"state transition|replay|duplicate|already", re.I)


def callback_url(base: str) -> str:
    """Accept a relay base URL or the full callback URL; strip the trailing slash."""
    base = base.rstrip("/")
    return base if base.endswith(CALLBACK_PATH) else base + CALLBACK_PATH


def relay_detail(resp: Response) -> str:
    try:
        data = json.loads(resp.body)
        if isinstance(data, dict):
            return str(data.get("detail") or data.get("status") or data)
    except ValueError:
        pass
    return resp.text()[:200]


def is_already_recorded(resp: Response) -> bool:
    return resp.status == 400 and bool(_ALREADY.search(relay_detail(resp)))


DELIVERED = "delivered"  # 200: the relay saved it and HUD accepted the row
RECORDED_HUD_UNCONFIRMED = "recorded_hud_unconfirmed"  # relay has it; HUD may not (no 200 ever seen)
IGNORED = "ignored"  # 200 "ignored": the repo is below L2
LABELS = {DELIVERED: "delivered", RECORDED_HUD_UNCONFIRMED: "recorded, HUD unconfirmed", IGNORED: "ignored"}


@dataclass(frozen=True)
class Outcome:
    result: str  # DELIVERED | RECORDED_HUD_UNCONFIRMED | IGNORED
    http_status: int
    attempts: int
    detail: str = ""

    @property
    def label(self) -> str:
        return LABELS.get(self.result, self.result)

    @property
    def hud_confirmed(self) -> bool:
        return self.result != RECORDED_HUD_UNCONFIRMED


def worst_label(outcomes) -> str:
    """One word for a job's callbacks: an unconfirmed one wins over delivered."""
    outcomes = [o for o in outcomes if o is not None]
    if not outcomes:
        return "not sent"
    bad = [o for o in outcomes if not o.hud_confirmed]
    return (bad or outcomes)[0].label


@dataclass(frozen=True)
class Guard:
    """A started job: its fallback completed in the outbox, and how the in_progress went."""

    item: Item
    started: Outcome


class CallbackClient:
    def __init__(
        self,
        base_url: str,
        tokens: TokenProvider,
        repo: str,
        *,
        outbox: Outbox,
        transport: Optional[BaseTransport] = None,
        policy: Optional[Retry] = None,
        budget: Optional[RateBudget] = None,
        timeout: float = DEFAULT_TIMEOUT,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.url = callback_url(base_url)
        self.repo = repo
        self.outbox = outbox
        self._tokens = tokens
        self._transport = transport or HttpTransport()
        self._policy = policy or retries.default_policy()
        self._budget = budget or RateBudget()
        self._timeout = timeout
        self._sleep = sleep

    # -- public -----------------------------------------------------------------
    def post(self, body: dict) -> Outcome:
        """Durably queue `body`, then deliver it."""
        return self.deliver(self.outbox.put(self.url, self.repo, body))

    def begin_job(self, in_progress: dict, guard_completed: dict) -> Guard:
        """Queue in_progress, then the fallback completed, then send.

        Both are on disk before anything is sent, in replay order: a crash at
        any point leaves in_progress (if unsent) ahead of the guard.
        """
        start = self.outbox.put(self.url, self.repo, in_progress)
        guard = self.outbox.put(self.url, self.repo, guard_completed, guard=True)
        try:
            started = self.deliver(start)
        except CallbackRejected:
            self.outbox.done(guard)  # no in_progress on record: a completed would be refused too
            raise
        return Guard(guard, started)

    def finish_job(self, guard: Guard, completed: dict) -> Outcome:
        return self.deliver(self.outbox.replace_guard(guard.item, completed))

    def flush(self) -> list[Outcome]:
        """Replay what an earlier run left in the outbox (oldest first)."""
        outcomes = []
        for item in self.outbox.pending():
            if item.is_guard:
                log.warning("delivering the fallback completed of a job whose process died")
            outcomes.append(self.deliver(item))
        return outcomes

    def close(self) -> None:
        self._transport.close()

    # -- delivery loop -------------------------------------------------------------
    def deliver(self, item: Item) -> Outcome:
        policy = self._policy
        url = item.entry.get("url", self.url)
        maybe_sent = item.entry.get("attempts", 0) > 0  # a crash may have followed a send
        refreshed = False
        while True:
            self._budget.acquire(item.entry.get("repo", self.repo))
            item.entry["attempts"] = item.entry.get("attempts", 0) + 1
            self.outbox.save(item)  # count the attempt before it can reach the relay
            try:
                resp = self._send(url, item.entry["body"])
            except TransportError as err:
                maybe_sent, why = True, str(err)
                policy = self._next(policy, item, lambda p: retries.after_network_error(p, url, why), why)
                continue
            except TokenRefused as err:
                # refused before sending: kept, it would be replayed by the next call that has a
                # good token, after what that call reports (a HUD cell stuck in_progress)
                self.outbox.bury(item, f"{err.status}: {err}")
                raise CallbackRejected(err.status, f"{err}; the callback was not sent") from None
            if 200 <= resp.status < 300:
                self.outbox.done(item)
                ignored = relay_detail(resp) == "ignored"
                return Outcome(IGNORED if ignored else DELIVERED, resp.status, item.entry["attempts"])
            if retries.should_retry_status(policy, resp.status):
                maybe_sent = maybe_sent or resp.status >= 500  # state may be saved before a 5xx
                policy = self._next(
                    policy, item, lambda p: retries.after_status(p, url, resp.status), f"HTTP {resp.status}"
                )
                continue
            if maybe_sent and is_already_recorded(resp):
                self.outbox.done(item)
                log.warning(
                    "callback recorded by the relay, HUD unconfirmed: an earlier attempt of this body "
                    "failed after the relay may have saved it (HUD 5xx or timeout); the HUD row may be stale"
                )
                return Outcome(
                    RECORDED_HUD_UNCONFIRMED, resp.status, item.entry["attempts"], relay_detail(resp)
                )
            if resp.status == 401 and not refreshed:
                refreshed = True  # an expired token is worth one fresh mint
                self._tokens.invalidate()
                continue
            self.outbox.bury(item, f"{resp.status}: {relay_detail(resp)}")
            raise CallbackRejected(resp.status, relay_detail(resp))

    def _send(self, url: str, body: dict) -> Response:
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self._tokens.token()}"}
        return self._transport.send(Request("POST", url, headers, json.dumps(body).encode(), self._timeout))

    def _next(self, policy: Retry, item: Item, step, why: str) -> Retry:
        try:
            policy = step(policy)
        except MaxRetryError:
            raise DeliveryPending(
                f"gave up after {item.entry['attempts']} attempts ({why}); "
                f"kept in outbox {item.path.name} for the next start"
            ) from None
        delay = retries.backoff_seconds(policy)
        log.info("callback attempt %d: %s; retrying in %.1fs", item.entry["attempts"], why, delay)
        self._sleep(delay)
        return policy
