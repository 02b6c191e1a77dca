"""A torch wheel built elsewhere for the dispatched SHA (`--core-wheel PATH`), as the core's base.

Its commit is read from the wheel's own `torch/version.py` (`git_version`) without
installing or importing it; the handler then requires that commit to be the SHA or an
ancestor of it (upstream_setup.py), so the Python overlay covers the rest. The wheel is
unpacked once into the cache, keyed by its content, and shared by every leg and every
bisection step. Anything else is refused with one line.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

from crcr.upstream.overlay import lock
from testing.base import atomic
from testing.base.errors import ConfigError

VERSION_FILE = "torch/version.py"
GIT_VERSION_RE = re.compile(r"""^git_version\s*=\s*['"]([0-9a-f]{40})['"]""", re.MULTILINE)


def named(path: Path) -> str:
    """`--core-wheel PATH` for a message; a long path by its name, so the reason stays in the line."""
    shown = str(path) if len(str(path)) <= 100 else f".../{path.name}"
    return f"--core-wheel {shown}"


def wheel_commit(path: Path, where: str = "") -> str:
    """The wheel's torch.version.git_version; ConfigError (one line) for anything not a torch wheel."""
    where = where or named(path)
    if not path.is_file():
        raise ConfigError(f"{where}: no such file")
    if path.suffix != ".whl" or not zipfile.is_zipfile(path):
        raise ConfigError(f"{where}: not a wheel (a .whl zip archive)")
    try:
        with zipfile.ZipFile(path) as whl:
            text = whl.read(VERSION_FILE).decode("utf-8", "replace")
    except KeyError:
        raise ConfigError(f"{where}: holds no {VERSION_FILE} (not a torch wheel)") from None
    except (zipfile.BadZipFile, OSError) as err:
        raise ConfigError(f"{where}: unreadable ({err})") from None
    m = GIT_VERSION_RE.search(text)
    if not m:
        raise ConfigError(f"{where}: its {VERSION_FILE} names no 40-hex git_version")
    return m.group(1)


def unpack(path: Path, cache: Path, sha256: str = "") -> Path:
    """The wheel's contents (a directory holding `torch/`), unpacked once per content;
    `sha256`: the content's digest when known already (a cached download: no re-hashing)."""
    if not sha256:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        sha256 = digest.hexdigest()
    key = sha256[:32]
    final = cache / "core-wheels" / key
    with lock(cache / "locks" / f"core-wheel-{key}.lock"):
        if (final / ".complete").exists():
            return final
        with atomic.replace_dir(final) as tmp:
            with zipfile.ZipFile(path) as whl:
                whl.extractall(tmp)  # zipfile drops absolute and `..` parts of member names
            (tmp / ".complete").write_text(sha256 + "\n")
    return final
