"""A pydantic validation error of a config, walked to file:line and its key path.

The error it becomes is the ground floor's ``ConfigError`` (testing/base/errors.py), placed
by testing.yamldoc's ``line_at``. Duck-typed, so importing this needs neither ruamel nor
pydantic.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from typing import Any, Iterable

from testing.base.errors import ConfigError, Loc
from testing.yamldoc.locate import line_at


def _is_union_tag(part: Any) -> bool:
    """pydantic inserts branch names ('str', 'OpSpec', 'function-after[...]') into locs."""
    return isinstance(part, str) and (part in ("str", "int") or part[:1].isupper() or "[" in part)


def key_path(loc: Iterable[Any], root: str = "test_suite_config.") -> str:
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif _is_union_tag(part):
            continue
        else:
            parts.append(("." if parts else "") + str(part))
    return "".join(parts).removeprefix(root)


def _best_error(errors: list[dict], tree: Any) -> dict:
    """The error to show: the first in the file, skipping 'not a str' union branches."""
    useful = [e for e in errors if e["type"] not in ("string_type", "int_type")] or errors
    return min(useful, key=lambda e: (line_at(tree, e["loc"]), -len(e["loc"])))


def _message(e: dict) -> str:
    if e["type"] == "extra_forbidden":
        return f"unknown key '{e['loc'][-1]}'"
    if e["type"] == "enum":
        return f"bad value {e.get('input')!r}: {e['msg'].lower()}"
    return e["msg"].removeprefix("Value error, ")


def validation_error(source: str, tree: Any, err: Any) -> ConfigError:
    """A pydantic ValidationError over `tree` as one line: file:line: key: message."""
    e = _best_error(err.errors(), tree)
    return ConfigError(Loc(source, line_at(tree, e["loc"])), key_path(e["loc"]), _message(e))
