"""Run the relay/HUD emulator in the foreground: python -m crcr.relay --port 8787."""

from __future__ import annotations

import errno
import os
import sys
import tempfile
import time
from pathlib import Path

from crcr.callback_client.errors import KNOWN, ConfigError
from crcr.dispatch.allowlist import Entry, parse_allowlist
from crcr.relay.faults import FaultPlan
from crcr.relay.server import DEFAULT_ALLOWLIST, RelayEmulator
from testing.base import flags
from testing.base.atomic import write_text
from testing.base.cliargs import Parser, fraction, port, user_path, workspace_dir
from testing.base.command import command


def warehouse_spec(given):
    """The warehouse to show on /hud; None from the emulator wheel, which has no warehouse."""
    try:
        from crcr.warehouse.backends import describe
    except ImportError:
        return None
    return describe(given, os.environ)


def level_histories(given) -> dict:
    """repo -> its level history for the L3 panel; none from the emulator wheel (no warehouse)."""
    try:
        from crcr.warehouse.levels import given_histories
    except ImportError:
        return {}
    return given_histories(given, os.environ, time.time())


def allowlist_of(args) -> dict:
    """The allowlist to serve (--repo entries added at L2), or a one-line ConfigError."""
    try:
        text = args.allowlist.read_text() if args.allowlist else DEFAULT_ALLOWLIST
        allowlist = parse_allowlist(text, str(args.allowlist or "built-in allowlist"))
    except OSError as err:
        raise ConfigError(f"{args.allowlist}: {err.strerror}") from None
    except ValueError as err:  # a bad entry (a ConfigError is one too: same words)
        raise ConfigError(str(err)) from None
    for repo in args.repo:
        allowlist.setdefault(repo, Entry(repo, "L2"))
    return allowlist


def listen(allowlist: dict, args, faults: FaultPlan) -> RelayEmulator:
    """The emulator bound to 127.0.0.1:--port, or a one-line ConfigError saying why not."""
    try:
        return RelayEmulator(
            allowlist,
            args.port,
            faults,
            warehouse=warehouse_spec(args.warehouse),
            workspace=workspace_dir(),
            levels=level_histories(args.level_history),
        )
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"port {args.port} is in use on 127.0.0.1 (--port 0 picks a free one)"
            ) from None
        raise ConfigError(f"cannot listen on 127.0.0.1:{args.port}: {err.strerror}") from None


def serve(emu: RelayEmulator) -> None:
    try:
        emu.serve_forever()
    except KeyboardInterrupt:  # Ctrl-C is how the emulator is stopped: no error
        pass


def token_files(args) -> dict[str, Path]:
    """repo -> the file its request token goes to: --token-file for the one --repo, else a
    private temp directory of this run (never the terminal: logs and pasted transcripts keep it)."""
    if args.token_file:
        return {args.repo[0]: args.token_file}
    if not args.repo:
        return {}
    where = Path(tempfile.mkdtemp(prefix="crcr-relay-tokens-"))  # mode 0700
    return {repo: where / (repo.replace("/", "__") + ".token") for repo in args.repo}


@command("crcr-relay", {KNOWN: 2}, prefix="crcr-relay: ")
def main(argv=None) -> int:
    p = Parser(prog="crcr-relay", description=__doc__)
    p.add_argument("--port", type=port, default=0, help="TCP port on 127.0.0.1 (default 0: any free one)")
    p.add_argument("--allowlist", type=user_path, help="allowlist.yml (default: a built-in sample)")
    p.add_argument(
        "--repo",
        action="append",
        default=[],
        help="mint an Actions request token for this repo (added at L2 if not allowlisted), "
        "written to a file (mode 0600) whose path is printed: a token is never printed",
    )
    p.add_argument("--fault-rate", type=fraction, default=0.0, help="share of requests answered with a fault")
    p.add_argument(
        "--token-file",
        type=user_path,
        help="where to write the one --repo's request token (default: a private temp directory, "
        "one file per repo): a second shell reads it with $(cat FILE)",
    )
    flags.warehouse(
        p,
        help="show this results warehouse's panels on /hud: a directory or clickhouse://host:port/db "
        "(default $OOT_WAREHOUSE, else ~/.cache/oot-ci/warehouse)",
    )
    p.add_argument(
        "--level-history",
        type=user_path,
        help="a backend's level history (crcr/warehouse/levels.py; env OOT_LEVEL_HISTORY): the L3 panel",
    )
    args = p.parse_args(argv)
    if args.token_file and len(args.repo) != 1:
        raise ConfigError("--token-file needs exactly one --repo (the token is that repository's)")
    emu = listen(allowlist_of(args), args, FaultPlan(rate=args.fault_rate))
    # a request token is not an OIDC token; it only lets a job mint one (a new one per call)
    files = token_files(args)
    for repo, path in files.items():  # before the first line: whoever waits for the URL finds them
        write_text(path, emu.request_token_for(repo) + "\n", mode=0o600)
    print(f"relay: {emu.url}/github/callback  HUD: {emu.url}/hud", flush=True)
    for repo, path in files.items():
        print(
            f"ACTIONS_ID_TOKEN_REQUEST_URL={emu.token_request_url} request token for {repo}: in {path}",
            flush=True,
        )
    serve(emu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
