"""Finds and loads libspyre.so, the compiled device runtime and kernels."""

from __future__ import annotations

import os
from pathlib import Path

import torch

LIBRARY_NAME = "libspyre.so"
# Overrides the search, e.g. to test a freshly compiled library.
LIBRARY_ENV = "SPYRE_LIBRARY"


def candidate_paths(package_dir: Path, environ: dict[str, str]) -> list[Path]:
    """Where the library may live, most specific first.

    - SPYRE_LIBRARY, when set;
    - next to __init__.py (how the wheel ships it);
    - the package's parent directory (an older layout: libspyre.so in backend/);
    - $RUNFILES_DIR/<workspace>/backend/torch_spyre/: a py_binary whose main
      script sits in backend/ imports the package from the source tree (Python
      puts the script's real directory first on sys.path), away from the
      runfiles copy of the library.
    """
    paths = []
    if environ.get(LIBRARY_ENV):
        paths.append(Path(environ[LIBRARY_ENV]))
    paths.append(package_dir / LIBRARY_NAME)
    paths.append(package_dir.parent / LIBRARY_NAME)
    if environ.get("RUNFILES_DIR"):
        paths.extend(sorted(Path(environ["RUNFILES_DIR"]).glob(f"*/backend/torch_spyre/{LIBRARY_NAME}")))
    if environ.get("RUNFILES_MANIFEST_FILE"):
        paths.extend(manifest_entries(Path(environ["RUNFILES_MANIFEST_FILE"])))
    return paths


def manifest_entries(manifest: Path) -> list[Path]:
    """Real paths of backend/torch_spyre/libspyre.so in a runfiles manifest."""
    suffix = f"/backend/torch_spyre/{LIBRARY_NAME}"
    try:
        lines = manifest.read_text().splitlines()
    except OSError:
        return []
    return [
        Path(line.split(" ", 1)[1])
        for line in lines
        if " " in line and line.split(" ", 1)[0].endswith(suffix)
    ]


def find_library(package_dir: Path, environ: dict[str, str]) -> Path:
    candidates = candidate_paths(package_dir, environ)
    for path in candidates:
        if path.is_file():
            return path
    searched = ", ".join(str(p) for p in candidates)
    raise ImportError(f"torch_spyre: {LIBRARY_NAME} not found (searched: {searched})")


def load_library() -> Path:
    # Not resolve(): in Bazel runfiles __init__.py is a symlink into the source
    # tree, while the library sits beside the symlink.
    path = find_library(Path(os.path.abspath(__file__)).parent, dict(os.environ))
    torch.ops.load_library(str(path))
    return path
