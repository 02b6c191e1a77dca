"""Read one config YAML: validated models plus the ruamel tree (for lines and comments).

ruamel.yaml keeps line numbers, so every error names file:line and the key; pydantic
validates the shape (models.py). Pure reading: nothing is merged or interpreted here.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterable

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from testing.config import modelops
from testing.config.errors import ConfigError, Loc
from testing.config.models import ConfigDocument


@dataclass(frozen=True)
class Loaded:
    """One config file: the model, the ruamel tree it came from and its text lines."""

    path: str
    doc: ConfigDocument
    raw: Any
    lines: list[str]


def yaml_line(node: Any, loc: Iterable[Any]) -> int:
    """Best 1-based line for a pydantic error location inside a ruamel tree."""
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


def key_path(loc: Iterable[Any]) -> str:
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif _is_union_tag(part):
            continue
        else:
            parts.append(("." if parts else "") + str(part))
    return "".join(parts).removeprefix("test_suite_config.")


def _best_error(err: ValidationError, raw: Any) -> dict:
    """Pick the error to show: the first in the file, skipping 'not a str' union branches."""
    errors = err.errors()
    useful = [e for e in errors if e["type"] not in ("string_type", "int_type")] or errors
    return min(useful, key=lambda e: (yaml_line(raw, e["loc"]), -len(e["loc"])))


def _message(e: dict) -> str:
    if e["type"] == "extra_forbidden":
        return f"unknown key '{e['loc'][-1]}'"
    if e["type"] == "enum":
        return f"bad value {e.get('input')!r}: {e['msg'].lower()}"
    return e["msg"].removeprefix("Value error, ")


def read_tree(path: str) -> tuple[Any, str]:
    """(ruamel round-trip tree, text) of a YAML file; unreadable or bad YAML -> ConfigError."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return YAML(typ="rt").load(text), text
    except OSError as exc:
        raise ConfigError(Loc(path, 0), "", f"cannot read config: {exc.strerror}") from None
    except MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise ConfigError(Loc(path, line), "", f"YAML syntax error: {exc.problem}") from None


def load(path: str) -> Loaded:
    """Parse and validate one config file."""
    raw, text = read_tree(path)
    if not isinstance(raw, dict) or not ("test_suite_config" in raw or modelops.is_cases_document(raw)):
        raise ConfigError(Loc(path, 1), "test_suite_config", "missing top-level key 'test_suite_config'")
    stem = os.path.splitext(os.path.basename(path))[0]
    # Model-op configs (testing/config/modelops.py): a `cases:` document, their test path.
    data = modelops.adapt(plain(raw), raw, stem)
    try:
        doc = ConfigDocument.model_validate(data)
    except ValidationError as err:
        e = _best_error(err, raw)
        line = _case_line(data, e["loc"]) if modelops.is_cases_document(raw) else yaml_line(raw, e["loc"])
        raise ConfigError(Loc(path, line), key_path(e["loc"]), _message(e)) from None
    if modelops.is_cases_document(raw):  # readers walk the tree for lines: give them the converted one
        raw = modelops.as_tree(data)
    return Loaded(path, doc, raw, text.splitlines())


def _case_line(data: dict, loc: tuple) -> int:
    """A `cases:` document has no test_suite_config lines: the line of the case the error is in."""
    parts = list(loc)
    if "include" in parts and len(parts) > parts.index("include") + 1:
        k = parts[parts.index("include") + 1]
        items = data["test_suite_config"]["files"][0]["tests"][0]["edits"]["ops"]["include"]
        if isinstance(k, int) and isinstance(items[k], dict):
            return items[k].get("source_line") or 1
    return 1


def load_document(path: str) -> tuple[ConfigDocument, Any]:
    """The model and the raw tree (for lines) of one config."""
    one = load(path)
    return one.doc, one.raw


def plain(node: Any) -> Any:
    """ruamel containers -> plain dict/list (pydantic wants builtins)."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node
