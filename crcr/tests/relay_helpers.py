"""What the relay emulator's tests share: a small allowlist, an emulator on a free port (with
HUD retries scaled down; conftest.py's `emu` fixture), posting callbacks and recording
dispatches."""

import json
from typing import Iterator

import requests

from crcr.dispatch.allowlist import parse_allowlist
from crcr.relay.pipeline import HudLink
from crcr.relay.server import RelayEmulator

ALLOW = parse_allowlist("""\
L1:
  - acme/onboarding
L2:
  - acme/oot
L3:
  spyre:
    acme/l3: [alice]
""")


def emulator() -> Iterator[RelayEmulator]:
    with RelayEmulator(ALLOW) as e:
        e.relay.hud_link = HudLink(backoff=0.001, slow_attempt=0.01)  # the real 1+2+4 s waits, scaled down
        yield e


def post(emu, body, token, path="/github/callback", auth=None):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    r = requests.post(
        emu.url + path,
        data=data,
        allow_redirects=False,
        timeout=5,
        headers={"Authorization": auth or f"Bearer {token}", "Content-Type": "application/json"},
    )
    return r.status_code, (r.json() if "json" in r.headers.get("Content-Type", "") else r.text)


def dispatch(emu, repo, cp):
    return requests.post(
        emu.url + "/_emulator/dispatch", json={"repo": repo, "client_payload": cp}, timeout=5
    ).status_code
