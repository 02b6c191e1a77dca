"""Config problems that do not stop a run: where they are and how serious.

Torch Spyre's configs are read unchanged, so much of what a hygiene check
flags (a reason written only as a comment, an aten op name, a name listed
twice, a test upstream removed) must load. Each such finding is a Problem:

* ``warning``: shown on every run (pytest's warnings summary and
  ``--oot-summary``): something was dropped or overridden;
* ``hygiene``: shown only by ``--oot-strict``, which turns every problem into
  a file:line error (a config hygiene check for configs written here).

Pure: no torch, no pytest.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal

from testing.base.errors import Loc

Severity = Literal["warning", "hygiene", "error"]  # error: only the check (a config that does not load)


@dataclass(frozen=True)
class Problem:
    loc: Loc
    key: str
    message: str  # names the closest known names too, when there are any
    severity: Severity = "warning"
    closest: tuple[str, ...] = field(default=(), compare=False)  # the same names, for JSON

    def to_json(self) -> dict:
        return {
            "file": self.loc.file,
            "line": self.loc.line,
            "key": self.key,
            "message": self.message,
            "severity": self.severity,
            "closest": list(self.closest),
        }

    @classmethod
    def from_json(cls, data: dict) -> Problem:
        return cls(
            Loc(data["file"], data["line"]),
            data["key"],
            data["message"],
            data["severity"],
            tuple(data.get("closest", ())),
        )

    def __str__(self) -> str:
        return f"{self.loc}: {self.key}: {self.message}" if self.key else f"{self.loc}: {self.message}"


def warnings_of(problems: Iterable[Problem]) -> list[Problem]:
    """The problems every run reports (hygiene ones only matter under --oot-strict)."""
    return [p for p in problems if p.severity == "warning"]


def strict_report(problems: Iterable[Problem]) -> str:
    """One line per problem, in file:line order: the --oot-strict error text."""
    ordered = sorted(set(problems), key=lambda p: (p.loc.file, p.loc.line, p.key, p.message))
    return "\n".join(f"{p} [--oot-strict]" for p in ordered)
