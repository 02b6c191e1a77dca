"""Retry policy for callbacks, expressed as a urllib3 `Retry` value.

Only 429, 5xx and network errors are retried; backoff is exponential with
jitter. The client drives the loop (one transport attempt per step) so it can
tell "first attempt" from "retry" when a 400 state-transition answer arrives.
"""

from __future__ import annotations

import random

from urllib3.exceptions import ProtocolError
from urllib3.response import HTTPResponse
from urllib3.util.retry import Retry

RETRY_STATUSES = frozenset([429] + list(range(500, 600)))


class CallbackRetry(Retry):
    """urllib3 waits 0 s before the first retry; a 429 storm needs a pause
    (and spread) from the very first one, so backoff counts from retry 1."""

    def get_backoff_time(self) -> float:
        n = len(self.history)
        if n == 0:
            return 0.0
        delay = self.backoff_factor * (2 ** (n - 1))
        if self.backoff_jitter:
            delay += random.uniform(0, self.backoff_jitter)
        return float(max(0.0, min(self.backoff_max, delay)))


def default_policy(total: int = 6, backoff: float = 1.0, jitter: float = 1.0, cap: float = 30.0) -> Retry:
    return CallbackRetry(
        total=total,
        connect=total,
        read=total,
        status=total,
        other=0,
        allowed_methods=None,  # POST included: the relay's state machine makes replays safe
        status_forcelist=RETRY_STATUSES,
        backoff_factor=backoff,
        backoff_jitter=jitter,
        backoff_max=cap,
        respect_retry_after_header=True,
        raise_on_status=False,
        raise_on_redirect=False,
        redirect=0,
    )


def should_retry_status(policy: Retry, status: int) -> bool:
    return policy.is_retry("POST", status)


def after_status(policy: Retry, url: str, status: int) -> Retry:
    """Policy after one retryable status; raises urllib3 MaxRetryError when spent."""
    return policy.increment("POST", url, response=HTTPResponse(status=status, preload_content=False))


def after_network_error(policy: Retry, url: str, what: str) -> Retry:
    # Counted as a read error: the request may have reached the server.
    return policy.increment("POST", url, error=ProtocolError(what))


def backoff_seconds(policy: Retry) -> float:
    return policy.get_backoff_time()
