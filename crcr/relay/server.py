"""HTTP glue for the emulator: a ThreadingHTTPServer on 127.0.0.1.

Relay routes: POST /github/callback (404 elsewhere, 405 for other methods).
HUD routes: GET /hud, /crcr/<owner>/<repo>, /api/crcr/results.
Emulator-only: /.well-known/jwks, /_emulator/notes (handler notes on HUD rows), /_emulator/oidc/token (an
ACTIONS_ID_TOKEN_REQUEST_URL stand-in), /_emulator/dispatch,
/_emulator/faults, /_emulator/sweep, /_emulator/state.
"""
from __future__ import annotations

import json
import logging
import secrets
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional
from urllib.parse import parse_qs, urlsplit

from crcr.allowlist import Entry, parse_allowlist
from crcr.relay.faults import FaultPlan
from crcr.relay.hud import render_page
from crcr.relay.pipeline import Relay

log = logging.getLogger("crcr.relay")
CALLBACK = "/github/callback"
MAX_BODY = 2 * 1024 * 1024  # HUD's body limit


class _Handler(BaseHTTPRequestHandler):
    server_version = "crcr-relay-emulator/1"
    emulator: "RelayEmulator"  # set on the subclass made per server

    def log_message(self, fmt: str, *args) -> None:  # request lines never include headers
        log.debug("%s %s", self.address_string(), fmt % args)

    # -- helpers ----------------------------------------------------------
    def _send(self, status: int, obj, ctype: str = "application/json") -> None:
        data = obj.encode() if isinstance(obj, str) else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> Optional[bytes]:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            self._send(413 if length > MAX_BODY else 400, {"detail": "bad Content-Length"})
            return None
        return self.rfile.read(length)

    def _drop(self) -> None:
        """Close the socket without a reply: the client cannot know the outcome."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # -- routes ---------------------------------------------------------------
    def do_POST(self) -> None:
        path = urlsplit(self.path).path.rstrip("/")
        if path == CALLBACK:
            return self._callback()
        body = self._body()
        if body is None:
            return
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            return self._send(400, {"detail": "invalid JSON body"})
        if path == "/_emulator/dispatch" and isinstance(data, dict):
            return self._send(*self.emulator.relay.dispatch(str(data.get("repo", "")), data.get("client_payload") or {}))
        if path == "/_emulator/sweep" and isinstance(data, dict):
            try:
                timeout = float(data.get("timeout", 21600))
            except (TypeError, ValueError):
                return self._send(400, {"detail": "timeout must be a number"})
            return self._send(200, {"ok": True, "timed_out": self.emulator.relay.sweep(timeout)})
        if path == "/_emulator/notes" and isinstance(data, dict):
            hits = self.emulator.relay.hud.annotate(str(data.get("delivery_id", "")), str(data.get("job_name", "")),
                                      str(data.get("note", "")))
            return self._send(200 if hits else 404, {"ok": bool(hits), "rows": hits})
        if path == "/_emulator/faults" and isinstance(data, dict):
            try:
                self.emulator.faults.configure(float(data.get("rate", 0)), data.get("kinds", ()),
                                               float(data.get("latency", 0.05)), data.get("seed"),
                                               data.get("script", ()))
            except (TypeError, ValueError) as err:
                return self._send(400, {"detail": str(err)})
            return self._send(200, {"ok": True})
        self._send(404, {"detail": "not found"})

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        path, query = parts.path.rstrip("/") or "/", parse_qs(parts.query)
        relay = self.emulator.relay
        if path == CALLBACK:
            return self._send(405, {"detail": "method not allowed"})
        if path == "/.well-known/jwks":
            return self._send(200, relay.issuer.jwks)
        if path == "/_emulator/oidc/token":
            return self._mint(query)
        if path == "/api/crcr/results":
            return self._send(200, {"rows": relay.hud.rows((query.get("repo") or [None])[0])})
        if path == "/_emulator/state":
            return self._send(200, relay.snapshot())
        if path in ("/", "/hud", "/crcr"):
            return self._send(200, render_page(relay.hud.rows()), "text/html; charset=utf-8")
        if path.startswith("/crcr/") and path.count("/") == 3:
            repo = path[len("/crcr/"):]
            return self._send(200, render_page(relay.hud.rows(repo), f"CRCR HUD: {repo}"), "text/html; charset=utf-8")
        self._send(404, {"detail": "not found"})

    def do_PUT(self) -> None:
        self._send(405 if urlsplit(self.path).path.rstrip("/") == CALLBACK else 404, {"detail": "not allowed"})

    do_DELETE = do_PATCH = do_PUT

    def _mint(self, query: dict) -> None:
        auth = self.headers.get("Authorization", "")
        repo = self.emulator.repo_for_request_token(auth.split(" ", 1)[1] if " " in auth else "")
        if repo is None:
            return self._send(401, {"detail": "bad request token"})
        audience = (query.get("audience") or [None])[0]
        self._send(200, {"value": self.emulator.relay.issuer.mint(repo, audience=audience)})

    def _callback(self) -> None:
        fault = self.emulator.faults.next()
        if fault == "latency":
            time.sleep(self.emulator.faults.latency)
        body = self._body()
        if body is None:
            return
        if fault == "5xx":
            return self._send(503, {"detail": "injected: service unavailable"})
        if fault == "429":
            return self._send(429, {"detail": "injected: rate limit exceeded"})
        status, answer = self.emulator.relay.callback(self.headers.get("Authorization"), body,
                                                      hud_down=fault == "hud_5xx")
        if fault == "drop":
            return self._drop()
        self._send(status, answer)


DEFAULT_ALLOWLIST = """\
L1:
  - riseproject-dev/pytorch-ci
  - google-pytorch/torch_tpu
L2:
  - TorchedHat/pytorch-redhat-ci
  - Ascend/pytorch
  - torch-spyre/torch-spyre
L3:
  crcr-test:
    pytorch/crcr-test: [oncall-a]
"""


class RelayEmulator:
    """Start with `with RelayEmulator(...) as emu:`; `emu.url` is the base URL."""

    def __init__(self, allowlist: Optional[dict[str, Entry]] = None, port: int = 0,
                 faults: Optional[FaultPlan] = None, relay: Optional[Relay] = None):
        self.relay = relay or Relay(allowlist if allowlist is not None else parse_allowlist(DEFAULT_ALLOWLIST))
        self.faults = faults or FaultPlan()
        self._request_tokens: dict[str, str] = {}
        handler = type("Handler", (_Handler,), {"emulator": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._server.daemon_threads = True
        self._thread: Optional[threading.Thread] = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def request_token_for(self, repo: str) -> str:
        """An ACTIONS_ID_TOKEN_REQUEST_TOKEN stand-in for jobs of `repo`."""
        token = secrets.token_urlsafe(24)
        self._request_tokens[token] = repo
        return token

    def repo_for_request_token(self, token: str) -> Optional[str]:
        return self._request_tokens.get(token)

    @property
    def token_request_url(self) -> str:
        return f"{self.url}/_emulator/oidc/token?api-version=2.0"

    def start(self) -> "RelayEmulator":
        self._thread = threading.Thread(target=self._server.serve_forever, name="crcr-relay", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def __enter__(self) -> "RelayEmulator":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
