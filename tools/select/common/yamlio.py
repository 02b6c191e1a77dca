"""YAML reading with file:line errors, and round-trip writing that keeps comments."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAMLError

from testing.config.edit import round_trip  # the one layout every generated config is written in
from testing.results.atomic import write_text
from tools.select.common.errors import SelectError

# ANSI escape sequences (colours, bold) as pytest and torch print them; removed outright.
# pytest's JUnit writer spells ESC as the text "#x1B" (XML 1.0 cannot hold it): removed too.
_ANSI = re.compile(r"(?:\x1b|#x1B)\[[0-?]*[ -/]*[@-~]|\x1b[@-_]")
# What YAML cannot hold in a comment or a plain scalar: C0/C1 controls except tab, DEL,
# surrogates, and the non-characters the YAML reader refuses.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean(text: str, one_line: bool = True) -> str:
    """Text safe to write into YAML (comments included): ANSI sequences stripped, other control
    characters spelled ``\\xNN``, newlines folded to spaces unless ``one_line`` is False."""
    text = _ANSI.sub("", str(text))
    if one_line:
        text = " ".join(text.splitlines())
    text = text.replace("\r", "")
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else "?", text)


def load(path: str | Path) -> Any:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SelectError(f"{path}: cannot read ({exc.strerror})") from exc
    try:
        return round_trip().load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise SelectError(f"{path}{line}: invalid YAML ({getattr(exc, 'problem', None) or exc})") from exc


def _line_of(data: Any, loc: tuple) -> int | None:
    """Walk ruamel's line info along a pydantic error location."""
    node, line = data, None
    for key in loc:
        lc = getattr(node, "lc", None)
        try:
            if lc is not None:
                line = (lc.key(key) if isinstance(key, str) else lc.item(key))[0] + 1
            node = node[key]
        except (KeyError, IndexError, TypeError, AttributeError):
            break
    return line


def validate(model: type[BaseModel], data: Any, path: str | Path) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        line = _line_of(data, loc)
        where = f"{path}:{line}" if line else str(path)
        key = ".".join(str(p) for p in loc)
        raise SelectError(f"{where}: {key}: {err['msg']}") from exc


def dump(data: Any) -> str:
    out = io.StringIO()
    round_trip().dump(data, out)
    return out.getvalue()


def write(path: str | Path, data: Any) -> Path:
    return write_text(path, dump(data))
