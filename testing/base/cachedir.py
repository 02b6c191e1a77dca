"""Where the kit keeps what it can rebuild: ``$XDG_CACHE_HOME/oot-ci``, else ``~/.cache/oot-ci``.

Every cache of the kit lives under this one directory (the select memory, downloaded wheels,
torch's names for the config check), so one variable moves them all and one ``rm -r``
clears them."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional


def user_cache(env: Mapping[str, str]) -> Optional[Path]:
    """``<XDG_CACHE_HOME or HOME/.cache>/oot-ci``; None when neither variable is set."""
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]) / "oot-ci"
    if env.get("HOME"):
        return Path(env["HOME"]) / ".cache" / "oot-ci"
    return None
