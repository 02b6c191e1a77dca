"""Run the relay/HUD emulator in the foreground: python -m crcr.relay --port 8787."""

from __future__ import annotations

import errno
import os
import sys

from crcr.callback_client.errors import CrcrError
from crcr.dispatch.allowlist import Entry, parse_allowlist
from crcr.relay.faults import FaultPlan
from crcr.relay.server import DEFAULT_ALLOWLIST, RelayEmulator
from testing.results.cliargs import Parser, fail, fraction, port, user_path, workspace_dir


def warehouse_spec(given):
    """The warehouse to show on /hud; None from the emulator wheel, which has no warehouse."""
    try:
        from crcr.warehouse.backends import describe
    except ImportError:
        return None
    return describe(given, os.environ)


def main(argv=None) -> int:
    p = Parser(prog="crcr-relay", description=__doc__)
    p.add_argument("--port", type=port, default=0, help="TCP port on 127.0.0.1 (default 0: any free one)")
    p.add_argument("--allowlist", type=user_path, help="allowlist.yml (default: a built-in sample)")
    p.add_argument(
        "--repo",
        action="append",
        default=[],
        help="print an Actions request token for this repo (added at L2 if not allowlisted)",
    )
    p.add_argument("--fault-rate", type=fraction, default=0.0, help="share of requests answered with a fault")
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
            workspace=workspace_dir(),
        )
    except CrcrError as err:
        return fail("crcr-relay", str(err))
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            return fail("crcr-relay", f"port {args.port} is in use on 127.0.0.1 (--port 0 picks a free one)")
        return fail("crcr-relay", f"cannot listen on 127.0.0.1:{args.port}: {err.strerror}")
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
