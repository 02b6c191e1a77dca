"""Where the checkout is: read once by the options builder (options.py), whose `workspace` every
handler module then uses for configs and outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional


def workspace_root(env: Mapping[str, str], given: Optional[Path]) -> Path:
    """--workspace, else the workspace `bazel run` names, else the nearest WORKSPACE above the cwd."""
    if given:
        return given.resolve()
    if env.get("BUILD_WORKSPACE_DIRECTORY"):  # set by `bazel run`
        return Path(env["BUILD_WORKSPACE_DIRECTORY"])
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "WORKSPACE").exists():
            return d
    return here
