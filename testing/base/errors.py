"""The exception root of the repository and the one error every room shares: a bad setting.

Every error a command line reports on purpose derives from ``OotError`` (testing's classes
directly, tools' through ``tools.errors.ToolsError``, crcr's through ``CrcrError``), so the
command runner (command.py) turns any of them into one line and an exit status, never a
traceback. ``ConfigError`` is defined here once: a YAML document's problem at file:line
(testing/yamldoc, the config contract, the CRCR allowlist) or a setting with no file (a flag,
an environment variable: crcr's arguments and plan inputs).
"""

from __future__ import annotations

from dataclasses import dataclass


def one_line(text: str, limit: int = 300) -> str:
    """Whitespace and newlines collapsed, the length bounded: a message a log keeps as a line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class OotError(Exception):
    """Root of every error raised on purpose: a bad input or environment, said in one line."""


@dataclass(frozen=True)
class Loc:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class ConfigError(OotError, ValueError):
    """A bad setting, one line. From a document: ``ConfigError(loc, key, message)`` reads
    ``file:line: key: message``; from a flag or a variable (no file): ``ConfigError(message)``,
    whitespace collapsed and bounded like every crcr error. A ValueError too (crcr's callers
    catch it as one)."""

    def __init__(self, where: Loc | str, key: str = "", message: str | None = None) -> None:
        if message is None:  # no file: the text is the whole message
            super().__init__(one_line(str(where)))
            self.loc, self.key, self.problem = None, "", str(where)
            return
        super().__init__(f"{where}: {key}: {message}" if key else f"{where}: {message}")
        self.loc = where
        self.key = key
        self.problem = message
