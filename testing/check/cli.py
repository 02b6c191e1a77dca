"""The `check` command: validate configs with every rule the plugin applies.

    python3 -m testing.check [--strict] [--json] [--upstream-root PATH] [PATH ...]
    tools/bazel run //testing:check -- [--strict] [--json] [PATH ...]

PATH: config files or directories (default: the repository's configs/), resolved where the
user stands (BUILD_WORKING_DIRECTORY under `bazel run`). Exit 0 when nothing fails, 1 when a
finding fails (errors; with --strict every warning and hygiene note too), 2 on a bad
argument (one line).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Optional

from testing.base import flags
from testing.base.cliargs import Parser, working_dir
from testing.base.command import command
from testing.check import report
from testing.check.check import CheckError, check
from testing.config.features import CONFIG_DIR
from testing.config.paths import REPO_ROOT, default_roots


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="check", description="validate test-suite configs with every rule the plugin applies")
    p.add_argument("paths", nargs="*", metavar="PATH", help="config files or directories (default: configs/)")
    p.add_argument(
        "--strict", action="store_true", help="warnings and hygiene notes fail too (as //... does)"
    )
    flags.json_output(p, help="the findings as JSON on stdout")
    flags.upstream_root(p)
    return p


def _workspace() -> Path:
    """The source tree under `bazel run`, else this repository (its runfiles copy in a test)."""
    return Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or default_roots()[REPO_ROOT])


def _shown(path: str, here: Path) -> str:
    """A finding's file relative to where the user stands, when it is under it."""
    try:
        return os.path.relpath(path, here) if Path(path).resolve().is_relative_to(here.resolve()) else path
    except ValueError:
        return path


@command("check", {CheckError: 2})
def main(argv: Optional[list[str]] = None) -> int:
    args = parser().parse_args(argv)
    here, workspace = working_dir(), _workspace()
    paths = [(here / p).absolute() for p in args.paths] or [workspace / CONFIG_DIR]
    upstream = str(args.upstream_root) if args.upstream_root else None
    if upstream and not Path(upstream).is_dir():
        raise CheckError(f"--upstream-root {_shown(upstream, here)}: not a directory")

    def progress(i: int, n: int, configs) -> None:  # each set costs a collection: say which
        print(f"check: [{i}/{n}] {' + '.join(_shown(str(c), here) for c in configs)}", file=sys.stderr)

    sets, found = check(workspace, paths, upstream, progress)
    found = [
        dataclasses.replace(f, loc=dataclasses.replace(f.loc, file=_shown(f.loc.file, here))) for f in found
    ]
    shown_sets = [tuple(Path(_shown(str(c), here)) for c in s) for s in sets]
    render = report.as_json if args.json else report.text
    sys.stdout.write(render(shown_sets, found, args.strict))
    return report.exit_code(found, args.strict)


if __name__ == "__main__":
    sys.exit(main())
