"""Test-file paths in configs: ${REPO_ROOT}/... (in-tree), ${TORCH_ROOT}/... (a checkout) and
${TORCH_DEVICE_ROOT}/... (the backend's checkout; default: the one the config sits in).

One expansion for every reader: the plugin (resolved, realpath'd, globs kept for matching),
the leg planner and the target generator (files a config lists, per root).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path
from typing import Mapping, Optional

from testing.base.errors import ConfigError, Loc

REPO_ROOT = "REPO_ROOT"
TORCH_ROOT = "TORCH_ROOT"
REPO_PREFIX = "${REPO_ROOT}/"
TORCH_PREFIX = "${TORCH_ROOT}/"
# The backend's own checkout (Torch Spyre's configs name their tests under it).
TORCH_DEVICE_ROOT = "TORCH_DEVICE_ROOT"
_HINTS = {
    TORCH_ROOT: " (pass --upstream-root or set TORCH_ROOT)",
    TORCH_DEVICE_ROOT: (
        ": set TORCH_DEVICE_ROOT to the backend's source checkout (the directory holding its"
        " tests/), or keep the config in that checkout's tests/configs/"
    ),
}
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# This file is testing/config/paths.py: the repository (also inside Bazel runfiles) is 2 up.
_REPO = Path(__file__).resolve().parents[2]


def default_roots(upstream_root: Optional[str] = None) -> dict[str, str]:
    """${REPO_ROOT} is this repository (also inside Bazel runfiles); ${TORCH_ROOT} a checkout."""
    roots = {REPO_ROOT: os.environ.get(REPO_ROOT) or str(_REPO)}
    torch_root = upstream_root or os.environ.get(TORCH_ROOT)
    if torch_root:
        roots[TORCH_ROOT] = os.path.realpath(torch_root)
    return roots


def split_root(path: str) -> tuple[Optional[str], str]:
    """'${TORCH_ROOT}/test/x.py' -> ('TORCH_ROOT', 'test/x.py'); no leading variable: (None, path)."""
    m = _VAR.match(path)
    if m and path[m.end() : m.end() + 1] == "/":
        return m.group(1), path[m.end() + 1 :]
    return None, path


def is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


def expand_path(text: str, roots: Mapping[str, str], config_dir: str, loc: Loc) -> str:
    """A config's file path, resolved: variables substituted (roots, else the environment),
    relative to the config's directory, realpath'd up to the first glob."""

    def sub(m: re.Match) -> str:
        name = m.group(1)
        value = roots.get(name) or os.environ.get(name)
        if not value and name == TORCH_DEVICE_ROOT:
            value = device_root_of(config_dir)
        if not value:
            raise ConfigError(loc, "path", f"${{{name}}} is not set{_HINTS.get(name, '')}")
        return value

    expanded = _VAR.sub(sub, text)
    if not os.path.isabs(expanded):
        expanded = os.path.join(config_dir, expanded)
    return real_prefix(os.path.normpath(expanded))


def device_root_of(config_dir: str) -> Optional[str]:
    """The backend checkout a config sits in, for ${TORCH_DEVICE_ROOT}: the directory above its
    tests/configs/ (where Torch Spyre keeps every config), else None."""
    parts = Path(os.path.realpath(config_dir)).parts
    for i in range(len(parts) - 1, 0, -1):
        if parts[i - 1 : i + 1] == ("tests", "configs"):
            return str(Path(*parts[: i - 1]))
    return None


def real_prefix(path: str) -> str:
    """realpath of the part before the first glob, so symlinked trees (Bazel runfiles) still match."""
    parts = path.split(os.sep)
    for i, part in enumerate(parts):
        if is_glob(part):
            return os.path.join(os.path.realpath(os.sep.join(parts[:i]) or os.sep), *parts[i:])
    return os.path.realpath(path)


def files_under(root: Path, pattern: str) -> list[Path]:
    """The files a root-relative pattern names (sorted; globs, ** included), existing ones only."""
    if is_glob(pattern):
        return sorted(Path(p) for p in glob.glob(str(root / pattern), recursive=True))
    return [root / pattern] if (root / pattern).exists() else []
