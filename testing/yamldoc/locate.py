"""Where a problem in a YAML document is (file:line).

The one place a YAML reader's error or a key path becomes file:line (a ``Loc``; the error
naming it is the ground floor's ``ConfigError``, testing/base/errors.py): a ruamel syntax error
carries its mark, a key path is walked through the ruamel tree (whose nodes remember their
lines). Duck-typed, so importing this needs no ruamel (the plugin's problems.py uses Loc on
runs that read no config).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from typing import Any, Iterable

from testing.base.errors import ConfigError, Loc


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
    """Best 1-based line for a key path (e.g. a pydantic error location) inside a ruamel tree:
    the line of the deepest part found (keys of mappings, indexes of sequences)."""
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


def at(source: str, node: Any, *keys: Any) -> Loc:
    """file:line of the part at `keys` under `node` (any node of a tree read here)."""
    return Loc(source, line_at(node, keys))
