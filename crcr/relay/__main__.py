"""Run the relay/HUD emulator in the foreground: python -m crcr.relay --port 8787."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from crcr.allowlist import Entry, parse_allowlist
from crcr.errors import CrcrError
from crcr.relay.faults import FaultPlan
from crcr.relay.server import DEFAULT_ALLOWLIST, RelayEmulator


def warehouse_spec(given):
    """The warehouse to show on /hud; None from the emulator wheel, which has no warehouse."""
    try:
        from crcr.warehouse.backends import describe
    except ImportError:
        return None
    return describe(given, os.environ)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="crcr-relay", description=__doc__)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--allowlist", type=Path, help="allowlist.yml (default: a built-in sample)")
    p.add_argument(
        "--repo",
        action="append",
        default=[],
        help="print an Actions request token for this repo (added at L2 if not allowlisted)",
    )
    p.add_argument("--fault-rate", type=float, default=0.0)
    p.add_argument(
        "--warehouse",
        help="show this results warehouse's panels on /hud: a directory or clickhouse://host:port/db "
        "(default $OOT_WAREHOUSE, else ~/.cache/oot-ci/warehouse)",
    )
    args = p.parse_args(argv)
    try:
        text = args.allowlist.read_text() if args.allowlist else DEFAULT_ALLOWLIST
        allowlist = parse_allowlist(text, str(args.allowlist or "built-in allowlist"))
        faults = FaultPlan(rate=args.fault_rate)
        for repo in args.repo:
            allowlist.setdefault(repo, Entry(repo, "L2"))
    except OSError as err:
        print(f"crcr-relay: {args.allowlist}: {err.strerror}", file=sys.stderr)
        return 2
    except (CrcrError, ValueError) as err:
        print(f"crcr-relay: {err}", file=sys.stderr)
        return 2
    try:
        emu = RelayEmulator(
            allowlist,
            args.port,
            faults,
            warehouse=warehouse_spec(args.warehouse),
            workspace=Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or "."),
        )
    except CrcrError as err:
        print(f"crcr-relay: {err}", file=sys.stderr)
        return 2
    print(f"relay: {emu.url}/github/callback  HUD: {emu.url}/hud", flush=True)
    for repo in args.repo:  # a request token is not an OIDC token; it only lets a job mint one
        print(
            f"ACTIONS_ID_TOKEN_REQUEST_URL={emu.token_request_url} request token for {repo}: "
            f"{emu.request_token_for(repo)}",
            flush=True,
        )
    try:
        emu.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
