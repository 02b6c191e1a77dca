"""I/O layer: one HTTP attempt, no retries, errors translated to crcr's own.

`HttpTransport` uses requests with retries disabled (the client owns the
retry policy); `MockTransport` wraps a plain function for tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import requests
from requests.adapters import HTTPAdapter

from crcr.callback_client.errors import RelayError, TransportError

DEFAULT_TIMEOUT = 10.0  # seconds; the action's curl --max-time default


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    timeout: float = DEFAULT_TIMEOUT

    def __repr__(self) -> str:  # headers may hold a bearer token: never show them
        return f"Request({self.method} {self.url}, {len(self.body)} bytes)"


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)

    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class BaseTransport:
    def send(self, request: Request) -> Response:
        raise NotImplementedError

    def close(self) -> None:
        pass


class HttpTransport(BaseTransport):
    def __init__(self) -> None:
        self._session = requests.Session()
        adapter = HTTPAdapter(max_retries=0)  # retrying is the client's decision
        self._session.mount("http://", adapter)
        self._session.mount("https://", adapter)
        self._session.trust_env = False  # loopback relay must not go through a proxy

    def send(self, request: Request) -> Response:
        try:
            r = self._session.request(
                request.method,
                request.url,
                data=request.body,
                headers=dict(request.headers),
                timeout=request.timeout,
                allow_redirects=False,
            )
        except requests.RequestException as err:
            # Say what kind of failure, never the request (it carries the token).
            raise TransportError(f"{type(err).__name__} talking to {request.url}") from None
        return Response(r.status_code, r.content, dict(r.headers))

    def close(self) -> None:
        self._session.close()


class MockTransport(BaseTransport):
    """Calls `handler(request) -> Response`; the handler may raise TransportError."""

    def __init__(self, handler: Callable[[Request], Response]):
        self._handler = handler

    def send(self, request: Request) -> Response:
        return self._handler(request)


def fetch(
    transport: BaseTransport, method: str, url: str, payload: Any = None, timeout: float = DEFAULT_TIMEOUT
) -> Response:
    """One plain request (no auth) that must succeed: a non-2xx is a RelayError, never requests' HTTPError."""
    body = b"" if payload is None else json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"} if payload is not None else {}
    resp = transport.send(Request(method, url, headers, body, timeout))
    if not 200 <= resp.status < 300:
        raise RelayError(resp.status, f"{method} {url}: {resp.text()[:200]}")
    return resp


def fetch_json(
    transport: BaseTransport, method: str, url: str, payload: Any = None, timeout: float = DEFAULT_TIMEOUT
) -> Any:
    resp = fetch(transport, method, url, payload, timeout)
    try:
        return json.loads(resp.body)
    except ValueError:
        raise TransportError(f"{method} {url}: the answer is not JSON") from None
