"""Where a config problem is (file:line) and the error that names it.

The one place that turns a YAML reader's or pydantic's error into file:line: a ruamel syntax
error carries its mark, a validation error a key path that is walked through the ruamel tree
(whose nodes remember their lines). Duck-typed, so importing this needs neither ruamel nor
pydantic (problems.py uses Loc on runs that read no config).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


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
        self.problem = message


def unreadable(path: str, exc: OSError) -> ConfigError:
    return ConfigError(Loc(path, 0), "", f"cannot read config: {exc.strerror}")


class YamlSyntaxError(ConfigError):
    """Text that is not YAML; ``detail`` is the parser's own words (for callers that word it
    their way: the CRCR allowlist, tools/select's capability files)."""

    def __init__(self, loc: Loc, detail: str) -> None:
        super().__init__(loc, "", f"YAML syntax error: {detail}")
        self.detail = detail


def yaml_syntax_error(source: str, exc: Exception) -> YamlSyntaxError:
    """A ruamel YAMLError at its line (0 when ruamel gives no mark)."""
    mark = getattr(exc, "problem_mark", None)
    return YamlSyntaxError(
        Loc(source, mark.line + 1 if mark else 0), getattr(exc, "problem", None) or str(exc)
    )


def line_at(node: Any, loc: Iterable[Any]) -> int:
    """Best 1-based line for a key path (a pydantic error location) inside a ruamel tree."""
    line = 1
    for part in loc:
        if isinstance(node, dict) and part in node:
            lc = getattr(node, "lc", None)
            if lc is not None:
                line = lc.key(part)[0] + 1
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            lc = getattr(node, "lc", None)
            if lc is not None:
                line = lc.item(part)[0] + 1
            node = node[part]
        # other parts are pydantic union tags ('str', 'OpSpec'): skip them
    return line


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
