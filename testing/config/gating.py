"""Declarations for upstream's capability gating, read once from the configs.

pytorch main gates tests with ``@requires_capabilities(Capability.<category>.<name>)``: each
capability is a ``"<category>.<name>"`` string (``dtype.fp8``, ``attention.flash_attention``),
and a device's test base answers a map capability -> predicate. A capability the backend
declares unsupported skips the test; one it does not declare at all fails it. A config says
what the backend supports under ``global.harness_capabilities`` (``dtype.fp8: false``); the
plugin compiles that to whichever registration the harness in use offers
(testing/plugin/gating.py).

Declarations of several configs merge; the same name with two different answers is an error
naming both lines. Pure: no torch, no pydantic.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from testing.base.errors import ConfigError, Loc

KEY = "global.harness_capabilities"
# upstream's shape: lower-case words joined by dots, a category first ("dtype.fp8")
NAME = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+")


def check_name(name: str) -> str:
    """The name if it has upstream's shape, else ValueError (the config loader adds file:line)."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(
            f"harness capability {name!r} is not '<category>.<name>' in lower case (e.g. dtype.fp8)"
        )
    return name


@dataclass(frozen=True)
class Declared:
    supported: bool
    loc: Loc  # where the config answers it


Declarations = Mapping[str, Declared]


def merge(a: Declarations, b: Declarations) -> dict[str, Declared]:
    """a's declarations and b's; the same answer twice is fine, a different one an error."""
    out = dict(a)
    for name, d in b.items():
        prev = out.get(name)
        if prev is not None and prev.supported != d.supported:
            raise ConfigError(
                d.loc,
                KEY,
                f"{name}: {_word(d.supported)} here, {_word(prev.supported)} at {prev.loc} "
                "(declare each capability once)",
            )
        out.setdefault(name, d)
    return out


def _word(supported: bool) -> str:
    return "true" if supported else "false"


def line_to_add(name: str) -> str:
    """The YAML line a config needs for an undeclared capability (false: the safe answer)."""
    return f"{name}: false"


def undeclared_message(name: str, harness: str) -> str:
    return (
        f"{name}: the harness ({harness}) gates tests on it and no config declares it; its tests "
        f"skip as unsupported until one does: add '{line_to_add(name)}' (or true) under {KEY}"
    )
