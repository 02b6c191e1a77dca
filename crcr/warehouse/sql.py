"""Literals for the SQL both backends accept (values are quoted here, never pasted raw)."""

from __future__ import annotations

from typing import Iterable


def quote(value: str) -> str:
    """A ClickHouse string literal: backslash and single quote escaped."""
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def quote_list(values: Iterable[str]) -> str:
    return "(" + ", ".join(quote(v) for v in values) + ")" if values else "('')"


def ts(epoch: float) -> str:
    """A DateTime literal from epoch seconds, independent of the server's time zone."""
    return f"toDateTime({int(epoch)})"
