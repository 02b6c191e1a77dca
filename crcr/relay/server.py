"""HTTP glue for the emulator: a ThreadingHTTPServer on 127.0.0.1.

Relay routes as the relay's local FastAPI server answers them: POST
/github/callback; a trailing slash -> 307 to the path without it; other
methods -> 405 "Method Not Allowed"; unknown paths -> 404 "Not Found".
HUD routes: GET /hud, /crcr/<owner>/<repo>, /api/crcr/results.
Emulator-only: /.well-known/jwks, /_emulator/notes (handler notes on HUD rows), /_emulator/oidc/token (an
ACTIONS_ID_TOKEN_REQUEST_URL stand-in), /_emulator/dispatch,
/_emulator/faults, /_emulator/sweep, /_emulator/state.
"""

from __future__ import annotations

import html
import json
import logging
import secrets
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Mapping, Optional
from urllib.parse import parse_qs, urlsplit

from crcr.dispatch.allowlist import Entry, parse_allowlist
from crcr.relay import faults
from crcr.relay.faults import HUD_KINDS, FaultPlan
from crcr.relay.hud import render_page, with_stale
from crcr.relay.pipeline import Relay

log = logging.getLogger("crcr.relay")
CALLBACK = "/github/callback"
MAX_BODY = 6 * 1024 * 1024  # a Lambda function URL's request limit (HUD's own 2 MB applies later)


class _Handler(BaseHTTPRequestHandler):
    server_version = "crcr-relay-emulator/1"
    emulator: "RelayEmulator"  # set on the subclass made per server

    def log_message(self, fmt: str, *args) -> None:  # request lines never include headers
        log.debug("%s %s", self.address_string(), fmt % args)

    # -- helpers ----------------------------------------------------------
    def _send(
        self, status: int, obj, ctype: str = "application/json", headers: Optional[dict] = None
    ) -> None:
        data = obj.encode() if isinstance(obj, str) else json.dumps(obj).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout) while the relay was still working

    def _relay_route(self, path: str) -> bool:
        """Answer what the relay's router answers for its own paths; False if not one of them.
        A body sent along is left unread, so these answers close the connection."""
        if path == CALLBACK:
            if self.command != "POST":
                self.close_connection = True
                self._send(405, {"detail": "Method Not Allowed"}, headers={"Allow": "POST"})
                return True
            return False
        if path == CALLBACK + "/":  # Starlette's redirect_slashes
            host = self.headers.get("Host") or "%s:%s" % self.server.server_address[:2]
            query = urlsplit(self.path).query
            self.close_connection = True
            self._send(
                307,
                "",
                "text/plain",
                {"Location": f"http://{host}{CALLBACK}" + (f"?{query}" if query else "")},
            )
            return True
        return False

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
        raw_path = urlsplit(self.path).path
        if self._relay_route(raw_path):
            return
        if raw_path == CALLBACK:
            return self._callback()
        path = raw_path.rstrip("/")
        body = self._body()
        if body is None:
            return
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            return self._send(400, {"detail": "invalid JSON body"})
        if path == "/_emulator/dispatch" and isinstance(data, dict):
            return self._send(
                *self.emulator.relay.dispatch(str(data.get("repo", "")), data.get("client_payload") or {})
            )
        if path == "/_emulator/sweep" and isinstance(data, dict):
            try:
                timeout = float(data.get("timeout", 21600))
            except (TypeError, ValueError):
                return self._send(400, {"detail": "timeout must be a number"})
            return self._send(200, {"ok": True, "timed_out": self.emulator.relay.sweep(timeout)})
        if path == "/_emulator/notes" and isinstance(data, dict):
            hits = self.emulator.relay.hud.annotate(
                str(data.get("delivery_id", "")), str(data.get("job_name", "")), str(data.get("note", ""))
            )
            return self._send(200 if hits else 404, {"ok": bool(hits), "rows": hits})
        if path == "/_emulator/faults" and isinstance(data, dict):
            try:
                self.emulator.configure_faults(data)
            except (TypeError, ValueError) as err:
                return self._send(400, {"detail": str(err)})
            return self._send(200, {"ok": True})
        self._send(404, {"detail": "Not Found"})

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if self._relay_route(parts.path):
            return
        path, query = parts.path.rstrip("/") or "/", parse_qs(parts.query)
        relay = self.emulator.relay
        if path == "/.well-known/jwks":
            return self._send(200, relay.issuer.jwks)
        if path == "/_emulator/oidc/token":
            return self._mint(query)
        if path == "/api/crcr/results":
            repo = (query.get("repo") or [None])[0]
            return self._send(200, {"rows": relay.hud.rows(repo), "stale": relay.stale_jobs(repo)})
        if path == "/_emulator/state":
            return self._send(200, relay.snapshot())
        if path in ("/", "/hud", "/crcr"):
            rows = with_stale(relay.hud.rows(), relay.stale_jobs())
            return self._send(200, self.emulator.page(rows), "text/html; charset=utf-8")
        if path.startswith("/crcr/") and path.count("/") == 3:
            repo = path[len("/crcr/") :]
            rows = with_stale(relay.hud.rows(repo), relay.stale_jobs(repo))
            return self._send(200, self.emulator.page(rows, f"CRCR HUD: {repo}"), "text/html; charset=utf-8")
        self._send(404, {"detail": "Not Found"})

    def do_PUT(self) -> None:
        if not self._relay_route(urlsplit(self.path).path):
            self._send(404, {"detail": "Not Found"})

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
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:  # the local server decodes before the Lambda code runs
            return self._send(500, "Internal Server Error", "text/plain; charset=utf-8")
        status, answer = self.emulator.relay.callback(
            self.headers.get("Authorization"), body, hud_fault=fault if fault in HUD_KINDS else None
        )
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

    def __init__(
        self,
        allowlist: Optional[dict[str, Entry]] = None,
        port: int = 0,
        faults: Optional[FaultPlan] = None,
        relay: Optional[Relay] = None,
        warehouse: Optional[str] = None,
        workspace: Optional[Path] = None,
        levels: Optional[Mapping] = None,
    ):
        """`warehouse`: a --warehouse spec; the HUD page then shows its panels below the grid.
        `levels`: repo -> its level history (crcr/warehouse/levels.py), for the L3 panel."""
        self.relay = relay or Relay(
            allowlist if allowlist is not None else parse_allowlist(DEFAULT_ALLOWLIST)
        )
        self.faults = faults or FaultPlan()
        self._request_tokens: dict[str, str] = {}
        handler = type("Handler", (_Handler,), {"emulator": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._server.daemon_threads = True
        self._thread: Optional[threading.Thread] = None
        self.workspace = workspace
        self.levels = dict(levels or {})
        self.warehouse = None
        self.warehouse_error = ""
        self._panels: Optional[tuple] = None  # (warehouse version, rendered panels)
        self._page_lock = threading.Lock()
        if warehouse:
            from crcr.callback_client.errors import KNOWN
            from crcr.warehouse.backends import open_warehouse

            try:
                self.warehouse = open_warehouse(warehouse)
            except KNOWN as err:  # the relay works without it; the page says why it has no panels
                self.warehouse_error = str(err)

    def page(self, rows: list[dict], title: str = "CRCR HUD (local emulator)") -> str:
        """The HUD page: the grid of `rows`, and the warehouse panels when there is one."""
        if self.warehouse is None:
            note = f'<p class="stale">results warehouse unavailable: {html.escape(self.warehouse_error)}</p>'
            return render_page(rows, title, note if self.warehouse_error else "")
        from crcr.relay.hud_rows import joined, rows_of
        from crcr.relay.panels import PageContext, head_assets, recent_legs, render_panels, version

        # one render at a time, reused until a leg is ingested; one embedded session for both
        with self._page_lock, self.warehouse.exclusive():
            seen = version(self.warehouse)
            if self._panels is None or self._panels[0] != seen:
                ctx = PageContext(workspace=self.workspace, levels=self.levels)
                self._panels = (seen, render_panels(self.warehouse, ctx), recent_legs(self.warehouse, ctx))
            _, panels, legs = self._panels
        # before any job reports to this relay, the grid shows the warehouse's recent legs
        return render_page(joined(rows, legs) if rows else rows_of(legs), title, panels, head_assets())

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def configure_faults(self, data: dict) -> None:
        """POST /_emulator/faults: transport faults plus the relay's HUD retry timing."""
        data = faults.checked(data)
        self.faults.configure(data["rate"], data["kinds"], data["latency"], data.get("seed"), data["script"])
        link = self.relay.hud_link
        for name, attr in (
            ("hud_retries", "retries"),
            ("hud_backoff", "backoff"),
            ("hud_latency", "slow_attempt"),
        ):
            if name in data:
                setattr(link, attr, data[name])

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
