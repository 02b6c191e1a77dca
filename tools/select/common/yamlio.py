"""Text made safe for YAML, and scope files validated with file:line errors.

Reading and writing YAML is the config contract's (testing.config.load.read_yaml,
testing.config.edit.dump/write): one reader, one writer, one error format.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from testing.yamldoc.locate import line_at
from tools.errors import SelectError

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


def validate(model: type[BaseModel], data: Any, path: str | Path) -> BaseModel:
    """`data` (a tree read by testing.config.load) as `model`; SelectError at file:line: key."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        key = ".".join(str(p) for p in loc)
        raise SelectError(f"{path}:{line_at(data, loc)}: {key}: {err['msg']}") from exc
