"""Which adapter runs: ``adapter: auto | native | patch`` (config ``global.adapter`` or
``--oot-adapter``; the option wins). Pure.

auto: native where the core has the API, patch otherwise. native: the same, and every
config rule must be expressible natively (compile.py says which are not). A core without
the API falls back to the patches whatever was asked, and says so in one line.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

ADAPTERS = ("auto", "native", "patch")
DEFAULT = "auto"


@dataclass(frozen=True)
class Choice:
    requested: str  # auto | native | patch
    used: str  # native | patch
    line: str  # the one line the run prints and reports

    @property
    def native(self) -> bool:
        return self.used == "native"


def requested(option: Optional[str], configured: Optional[str]) -> str:
    """The option wins over the config; neither: auto."""
    value = option or configured or DEFAULT
    if value not in ADAPTERS:
        raise ValueError(f"adapter must be one of {', '.join(ADAPTERS)}, not {value!r}")
    return value


def choose(asked: str, missing: Optional[str], torch_version: str) -> Choice:
    """missing: what of the API the core lacks (None: it has all of it)."""
    if asked == "patch":
        return Choice(asked, "patch", "oot adapter: patch (asked for; the native API is not used)")
    if missing:
        return Choice(
            asked,
            "patch",
            f"oot adapter: patch (torch {torch_version} lacks {missing}; {asked} falls back to the patches)",
        )
    return Choice(
        asked,
        "native",
        f"oot adapter: native (torch {torch_version} has set_test_configs and bypass_device_restrictions; "
        "our patches add only what it cannot say)",
    )
