"""The one way a command line runs: its main() inside one error handling.

    @command("select", {(SelectError, ConfigError): 2})
    def main(argv=None) -> int:
        args = parser().parse_args(argv)    # bad arguments: cliargs.Parser, one line, exit 2
        ...

A known error (a class of the mapping; the first that matches gives the exit status) is one
line on stderr, ``<prog>: error: <message>`` unless the command has always worded it
otherwise (``prefix``), and never a traceback; anything else is a bug and keeps its
traceback. Ctrl-C is ``<prog>: interrupted`` and 130 (the shell's 128 + SIGINT); a reader
that left (``cmd | head``) ends the command quietly with 141 (128 + SIGPIPE) unless told.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Callable, Mapping, Optional, TypeVar, Union

from testing.base.cliargs import EXIT_USAGE
from testing.base.errors import OotError

EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

# error class (or a tuple of them) -> exit status; the first entry that matches wins
Errors = Mapping[Union[type, tuple], int]
Main = TypeVar("Main", bound=Callable[..., Optional[int]])


def command(
    prog: str,
    errors: Errors | None = None,
    *,
    prefix: str | None = None,
    broken_pipe: int = EXIT_BROKEN_PIPE,
) -> Callable[[Main], Main]:
    """Wraps a main() (any signature) so it runs the one way; ``errors`` defaults to the
    repository's root (every error raised on purpose) with the usage status 2."""
    table = list((errors if errors is not None else {OotError: EXIT_USAGE}).items())
    known = tuple(c for classes, _ in table for c in (classes if isinstance(classes, tuple) else (classes,)))
    said = f"{prog}: error: " if prefix is None else prefix

    def wrap(main: Main) -> Main:
        @functools.wraps(main)
        def run(*args, **kwargs):
            try:
                code = main(*args, **kwargs)
                sys.stdout.flush()  # a closed pipe surfaces here, inside the handling below
                return code
            except KeyboardInterrupt:
                print(f"{prog}: interrupted", file=sys.stderr)
                return EXIT_INTERRUPTED
            except BrokenPipeError:
                _silence_stdout()
                return broken_pipe
            except known as err:
                print(f"{said}{err}", file=sys.stderr)
                return status(table, err)

        return run  # type: ignore[return-value]

    return wrap


def status(table: list, err: BaseException) -> int:
    """The exit status of the first entry whose classes `err` is one of."""
    return next(code for classes, code in table if isinstance(err, classes))


def _silence_stdout() -> None:
    # The reader left: point stdout at /dev/null so Python's own flush at exit says nothing.
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # a replaced stdout (a test's capture) has no fd
        pass
