"""Fetch a torch wheel once into a cache dir and extract only torch/testing/_internal.

The wheel is large (GBs for CUDA builds), so it is downloaded with pip's ordinary client only
when the cache lacks it, and only the test helpers are unpacked.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tqdm import tqdm

from testing.base import atomic
from testing.base.cachedir import user_cache
from tools.errors import SelectError

INTERNAL_PREFIX = "torch/testing/_internal/"


def default_cache_dir() -> Path:
    base = user_cache(os.environ)
    if base is None:
        raise SelectError("no cache directory: set XDG_CACHE_HOME or pass --wheel-cache")
    return base / "torch-wheels"


def find_wheel(cache: Path, version: str) -> Path | None:
    found = sorted(cache.glob(f"torch-{version}-*.whl")) + sorted(cache.glob(f"torch-{version}+*.whl"))
    return found[0] if found else None


def download(cache: Path, version: str) -> Path:
    wheel = find_wheel(cache, version)
    if wheel is not None:
        return wheel
    cache.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", f"torch=={version}", "--no-deps", "-d", str(cache)]
    print(f"downloading torch {version} into {cache} (once; may be several GB)", file=sys.stderr)
    if subprocess.run(cmd).returncode != 0:
        raise SelectError(f"pip download torch=={version} failed; see the output above")
    wheel = find_wheel(cache, version)
    if wheel is None:
        raise SelectError(f"pip download succeeded but no torch-{version} wheel is in {cache}")
    return wheel


def extract_internal(wheel: Path, dest: Path) -> Path:
    """Unpack torch/testing/_internal/** into dest (atomically); return the _internal dir."""
    internal = dest / INTERNAL_PREFIX.rstrip("/")
    if (dest / ".complete").exists():
        return internal
    try:
        with atomic.replace_dir(dest) as tmp, zipfile.ZipFile(wheel) as archive:
            members = [m for m in archive.namelist() if m.startswith(INTERNAL_PREFIX) and not m.endswith("/")]
            for member in tqdm(members, desc="extract", unit="file", disable=not sys.stderr.isatty()):
                archive.extract(member, tmp)
            (tmp / ".complete").write_text(wheel.name)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SelectError(f"{wheel}: cannot extract {INTERNAL_PREFIX} ({exc})") from exc
    return internal


def internal_for(version: str, cache: Path | None = None) -> Path:
    cache = cache or default_cache_dir()
    wheel = download(cache, version)
    return extract_internal(wheel, cache / f"internal-{version}")
