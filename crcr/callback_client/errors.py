"""One exception root for everything crcr raises on purpose.

Errors are one line by construction: `str(err)` never contains a newline, so a
CLI can print it as-is and a log line stays a line.
"""

from __future__ import annotations


def one_line(text: str, limit: int = 300) -> str:
    """Collapse whitespace/newlines and bound the length of a message."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class CrcrError(Exception):
    """Root of all crcr errors."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


class PayloadError(CrcrError, ValueError):
    """A dispatch payload or callback body failed validation."""


class ConfigError(CrcrError, ValueError):
    """Bad CLI arguments, allowlist or plan input."""


class TokenError(CrcrError):
    """An OIDC token could not be minted or is unusable."""


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
