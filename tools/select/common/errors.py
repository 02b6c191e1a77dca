"""One exception type for every user-facing failure of the selection tools."""

from __future__ import annotations


class SelectError(Exception):
    """A bad input or environment problem, reported as a single line by the CLI."""
