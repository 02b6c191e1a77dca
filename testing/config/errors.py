"""Where a config problem is (file:line) and the error that names it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class ConfigError(Exception):
    """A config problem, rendered as one line: file:line: key: message."""

    def __init__(self, loc: Loc, key: str, message: str) -> None:
        super().__init__(f"{loc}: {key}: {message}" if key else f"{loc}: {message}")
        self.loc = loc
        self.key = key
