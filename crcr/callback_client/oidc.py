"""OIDC tokens for the relay: minted from GitHub Actions or given.

Tokens are secrets: they are registered with the log redactor the moment
they exist and never appear in an error message.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Mapping, Optional
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import jwt

from crcr.callback_client.errors import TokenError, TokenRefused
from crcr.callback_client.transport import BaseTransport, HttpTransport, Request

AUDIENCE = "pytorch-cross-repo-ci-relay"
REFRESH_MARGIN = 60.0  # seconds of validity we want left when we use a token


class Redactor(logging.Filter):
    """Replaces every registered secret in log records with ***."""

    secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        if any(s in msg for s in self.secrets):
            for s in self.secrets:
                msg = msg.replace(s, "***")
            record.msg, record.args = msg, ()
        return True


REDACTOR = Redactor()
log = logging.getLogger("crcr")
log.addFilter(REDACTOR)


def register_secret(value: str) -> None:
    if value:
        Redactor.secrets.add(value)


def expires_at(token: str) -> Optional[float]:
    """The token's `exp`, read without verification (we only schedule a refresh)."""
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return None
    exp = claims.get("exp")
    return float(exp) if isinstance(exp, (int, float)) else None


class TokenProvider:
    def token(self) -> str:
        raise NotImplementedError

    def invalidate(self) -> None:
        pass


class StaticToken(TokenProvider):
    def __init__(self, value: str):
        if not value or any(c.isspace() for c in value):
            raise TokenError("given token is empty or contains whitespace")
        register_secret(value)
        self._value = value

    def token(self) -> str:
        return self._value


def _with_audience(url: str, audience: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "audience"]
    return urlunsplit(parts._replace(query=urlencode(query + [("audience", audience)])))


class ActionsOidcToken(TokenProvider):
    """GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=... with the request token (§2.1)."""

    def __init__(
        self,
        request_url: str,
        request_token: str,
        audience: str = AUDIENCE,
        transport: Optional[BaseTransport] = None,
        clock=time.time,
    ):
        if not request_url or not request_token:
            raise TokenError(
                "ACTIONS_ID_TOKEN_REQUEST_URL/_TOKEN are not set: "
                "the job needs `permissions: id-token: write`"
            )
        register_secret(request_token)
        self._url, self._request_token, self._audience = request_url, request_token, audience
        self._transport = transport or HttpTransport()
        self._clock = clock
        self._cached: Optional[str] = None

    def invalidate(self) -> None:
        self._cached = None

    def token(self) -> str:
        if self._cached:
            exp = expires_at(self._cached)
            if exp is None or exp - self._clock() > REFRESH_MARGIN:
                return self._cached
        self._cached = self._mint()
        return self._cached

    def _mint(self) -> str:
        req = Request(
            "GET",
            _with_audience(self._url, self._audience),
            {"Authorization": f"bearer {self._request_token}", "Accept": "application/json"},
        )
        resp = self._transport.send(req)
        if resp.status in (401, 403):
            raise TokenRefused(
                resp.status,
                f"OIDC token request answered {resp.status}: ACTIONS_ID_TOKEN_REQUEST_TOKEN was refused",
            )
        if resp.status != 200:
            raise TokenError(f"OIDC token request answered {resp.status}")
        try:
            value = json.loads(resp.body)["value"]
        except (ValueError, KeyError, TypeError):
            raise TokenError("OIDC token response has no `value`") from None
        if not isinstance(value, str) or not value:
            raise TokenError("OIDC token response has an empty `value`")
        register_secret(value)
        return value


def provider_from_env(
    env: Mapping[str, str],
    given: Optional[str] = None,
    audience: str = AUDIENCE,
    transport: Optional[BaseTransport] = None,
) -> TokenProvider:
    """A given token wins; else mint from the Actions environment."""
    if given:
        return StaticToken(given)
    if env.get("CRCR_TOKEN"):
        return StaticToken(env["CRCR_TOKEN"])
    return ActionsOidcToken(
        env.get("ACTIONS_ID_TOKEN_REQUEST_URL", ""),
        env.get("ACTIONS_ID_TOKEN_REQUEST_TOKEN", ""),
        audience,
        transport,
    )
