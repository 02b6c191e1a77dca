"""What every command line of the repository shares: paths where the user stands, and bad
values as one line with exit status 2.

Under ``bazel run`` a program starts in its runfiles tree; Bazel names the directory the
user ran it from ``BUILD_WORKING_DIRECTORY`` and the checkout ``BUILD_WORKSPACE_DIRECTORY``.
One rule: a path the user types is read against the first (``--event e.json`` means the
e.json beside them), a default that belongs to the repository against the second. Outside
Bazel both are the current directory.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from pathlib import Path
from typing import Mapping, NoReturn

EXIT_USAGE = 2


def working_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where the user stands (``bazel run`` or not)."""
    return Path(env.get("BUILD_WORKING_DIRECTORY") or os.getcwd())


def workspace_dir(env: Mapping[str, str] = os.environ) -> Path:
    """The checkout, for defaults that live in it (``bazel run``), else the current directory."""
    return Path(env.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd())


def user_path(text: str | os.PathLike) -> Path:
    """A path as the user typed it, made absolute against where they stand; ``~`` expanded."""
    path = Path(text).expanduser()
    return path if path.is_absolute() else working_dir() / path


def port(text: str) -> int:
    """A TCP port: 1..65535, or 0 for any free one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is out of range (0..65535; 0 = any free port)")
    return value


def positive_int(text: str) -> int:
    return _int_at_least(text, 1)


def non_negative_int(text: str) -> int:
    return _int_at_least(text, 0)


def _int_at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
    return value


def positive_float(text: str) -> float:
    value = _float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def fraction(text: str) -> float:
    """A share in [0, 1]."""
    value = _float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be within 0..1, got {text}")
    return value


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error (argparse prints the whole usage first); subparsers
    made from it are of this class too. A mistyped option is named first, with the closest
    real one: argparse would otherwise blame whatever it met next (`--evnt e.json` reads as
    an invalid choice 'e.json' of a positional)."""

    def parse_known_args(self, args=None, namespace=None):
        self._argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        unknown = self._unknown_option()
        if unknown:
            message = unknown
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")

    def _unknown_option(self) -> str:
        """'unknown option --x (closest: --y)' for the first option no parser of this command
        knows ('' when there is none)."""
        known = self._all_options()
        for arg in getattr(self, "_argv", []):
            if arg == "--":
                break
            name = arg.split("=", 1)[0]
            if not name.startswith("--") or name in known:
                continue
            if self.allow_abbrev and any(k.startswith(name) for k in known):
                continue  # a prefix argparse expands (or calls ambiguous itself)
            near = difflib.get_close_matches(
                name, sorted(k for k in known if k.startswith("--")), n=1, cutoff=0.7
            )
            return f"unknown option {name}" + (f" (closest: {near[0]})" if near else "")
        return ""

    def _all_options(self) -> set[str]:
        """Option strings of this parser and of every subcommand below it."""
        found = set(self._option_string_actions)
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    found |= (
                        sub._all_options() if isinstance(sub, Parser) else set(sub._option_string_actions)
                    )
        return found
