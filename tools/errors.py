"""The tools room's exception root, below it the repository's (testing/base/errors.py).

Every error a tool raises on purpose (a bad input, a missing file, an environment problem)
derives from ``ToolsError``, so the command runner (testing/base/command.py) reports it as
one line and an exit status. The selection pipeline's one error lives here too: it is the
room's only errors module.
"""

from __future__ import annotations

from testing.base.errors import OotError


class ToolsError(OotError):
    """Root of the errors of tools/."""


class SelectError(ToolsError):
    """A bad input or environment problem of the selection tools, reported as a single line by the CLI."""
