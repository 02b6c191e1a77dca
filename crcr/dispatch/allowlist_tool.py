"""Allowlist helper for pytorch/pytorch's .github/allowlist.yml.

    allowlist_tool print --repo acme/oot-ci --level L3 --device spyre --oncall alice
    allowlist_tool print --repo acme/oot-ci --all-levels --device spyre --oncall alice
    allowlist_tool validate allowlist.yml --repo acme/oot-ci --expect-level L2

`print` emits the YAML to paste (and checks it parses as the relay would);
`validate` parses a whole file like the relay and reports our repo's level.
"""

from __future__ import annotations

import sys

from crcr.callback_client.errors import KNOWN, ConfigError
from crcr.dispatch.allowlist import LEVELS, parse_allowlist, render_entry
from testing.base.cliargs import Parser, user_path
from testing.base.command import command

WHAT_LEVEL_MEANS = {
    "L1": "dispatch only; callbacks answered 200 ignored",
    "L2": "dispatch + HUD rows",
    "L3": "+ non-blocking upstream check runs with label ciflow/crcr/<device>",
    "L4": "+ check runs always; failing/running checks block @pytorchbot merge",
}


def _oncalls(values: list[str]) -> tuple[str, ...]:
    return tuple(h.strip() for v in values for h in v.split(",") if h.strip())


def cmd_print(args) -> int:
    levels = LEVELS if args.all_levels else (args.level,)
    if not levels[0]:
        raise ConfigError("pass --level L1..L4 or --all-levels")
    for level in levels:
        snippet = render_entry(
            args.repo, level, _oncalls(args.oncall), args.device if level == "L3" else None
        )
        entry = parse_allowlist(snippet, f"generated {level} entry")[args.repo]  # what the relay would read
        print(f"# {level}: {WHAT_LEVEL_MEANS[level]}")
        print(snippet, end="")
        if entry.device:
            print(f"# -> device {entry.device}, oncalls {', '.join(entry.oncalls) or 'none'}")
    return 0


def cmd_validate(args) -> int:
    try:
        text = args.file.read_text()
    except OSError as err:
        raise ConfigError(f"{args.file}: {err.strerror}") from None
    entries = parse_allowlist(text, str(args.file))
    counts = {lvl: sum(e.level == lvl for e in entries.values()) for lvl in LEVELS}
    print(f"{args.file}: ok, " + ", ".join(f"{lvl}={n}" for lvl, n in counts.items()))
    if args.repo:
        entry = entries.get(args.repo)
        if entry is None:
            near = [r for r in entries if r.lower() == args.repo.lower()]
            hint = f" (casing differs: {near[0]}; the relay matches exactly)" if near else ""
            raise ConfigError(f"{args.repo} is not in {args.file}{hint}")
        print(
            f"{args.repo}: {entry.level}"
            + (f" device {entry.device}" if entry.device else "")
            + (f" oncalls {', '.join(entry.oncalls)}" if entry.oncalls else "")
        )
        if args.expect_level and entry.level != args.expect_level:
            raise ConfigError(f"{args.repo} is {entry.level}, expected {args.expect_level}")
    return 0


@command("allowlist_tool", {KNOWN: 2}, prefix="allowlist_tool: ")
def main(argv=None) -> int:
    p = Parser(prog="allowlist_tool", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pr = sub.add_parser("print")
    pr.add_argument("--repo", required=True)
    pr.add_argument("--level", choices=LEVELS)
    pr.add_argument("--all-levels", action="store_true")
    pr.add_argument("--device", help="L3 device key, e.g. spyre")
    pr.add_argument("--oncall", action="append", default=[], help="GitHub handle (repeat or comma-separate)")
    va = sub.add_parser("validate")
    va.add_argument("file", type=user_path)
    va.add_argument("--repo")
    va.add_argument("--expect-level", choices=LEVELS)
    args = p.parse_args(argv)
    return cmd_print(args) if args.cmd == "print" else cmd_validate(args)


if __name__ == "__main__":
    sys.exit(main())
