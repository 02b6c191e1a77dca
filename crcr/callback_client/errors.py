"""One exception root for everything crcr raises on purpose, below the repository's
(testing/base/errors.py: ``OotError``).

Errors are one line by construction: `str(err)` never contains a newline, so a
CLI can print it as-is and a log line stays a line. A bad setting (CLI arguments, allowlist,
plan input) is the ground floor's ``ConfigError``, defined once for every room: ``KNOWN``
names both, for the places that report whatever crcr raised on purpose.
"""

from __future__ import annotations

from testing.base.errors import ConfigError, OotError, one_line

__all__ = [
    "KNOWN",
    "CallbackRejected",
    "ConfigError",
    "CrcrError",
    "DeliveryPending",
    "PayloadError",
    "RelayError",
    "TokenError",
    "TokenRefused",
    "TransportError",
    "one_line",
]


class CrcrError(OotError):
    """Root of all crcr errors."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


class PayloadError(CrcrError, ValueError):
    """A dispatch payload or callback body failed validation."""


class TokenError(CrcrError):
    """An OIDC token could not be minted or is unusable."""


class TokenRefused(TokenError):
    """The token endpoint refused our credentials (401/403): no callback was sent with them,
    and the same credentials cannot succeed on a retry or a later replay."""

    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(message)


class TransportError(CrcrError):
    """The request may or may not have reached the server (network, timeout, dropped reply)."""


class RelayError(CrcrError):
    """The relay answered with a non-success status."""

    def __init__(self, status: int, detail: str):
        self.status = status
        self.detail = one_line(detail)
        super().__init__(f"relay answered {status}: {self.detail}")


class CallbackRejected(RelayError):
    """A permanent 4xx: retrying the same body cannot succeed."""


class DeliveryPending(CrcrError):
    """Retries are exhausted; the callback stays in the outbox for the next start."""


# Everything crcr raises on purpose: its own errors and a bad setting.
KNOWN = (CrcrError, ConfigError)
