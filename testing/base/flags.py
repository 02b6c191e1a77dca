"""Options several command lines share, declared once: the same flag, metavar, type and
meaning wherever it appears (a command may word the help for its own use).

Paths are read where the user stands (cliargs.user_path), under ``bazel run`` too.
"""

from __future__ import annotations

import argparse

from testing.base.cliargs import user_path

# a parser or one of its argument groups (both have add_argument)
Group = argparse.ArgumentParser


def upstream_root(p: Group, help: str = "a PyTorch checkout, for ${TORCH_ROOT} paths") -> None:
    """--upstream-root DIR (None when not given)."""
    p.add_argument("--upstream-root", type=user_path, metavar="DIR", help=help)


def upstream_checkout(p: Group, *, configs_help: str = "more feature configs (repeatable)") -> None:
    """A real upstream to work on instead of the generated fixture: --upstream-root, the
    commit it is at (--suite-sha) and the configs naming its files (--extra-configs)."""
    upstream_root(p, help="a PyTorch checkout at the suite SHA (instead of the fixture)")
    p.add_argument("--suite-sha", help="the commit --upstream-root is at (default: its git HEAD)")
    p.add_argument(
        "--extra-configs", action="append", default=[], type=user_path, metavar="DIR", help=configs_help
    )


def warehouse(
    p: Group, help: str = "a directory (embedded) or clickhouse://host:port/db (env OOT_WAREHOUSE)"
) -> None:
    """--warehouse SPEC: the results warehouse (its default is the reader's: $OOT_WAREHOUSE...)."""
    p.add_argument("--warehouse", metavar="SPEC", help=help)


def json_output(p: Group, help: str = "print JSON instead of text") -> None:
    """--json: the same answer, as JSON on stdout."""
    p.add_argument("--json", action="store_true", help=help)
