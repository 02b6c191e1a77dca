"""Files written whole or not at all: a temp file beside the target, then one rename.

One argument order everywhere: ``write_*(path, content)``. A reader never sees a torn
file, and a crash (or a bad input raising mid-way) leaves the old file in place.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

# mkstemp creates 0600 files; results are shared, so they get the usual 0644.
DEFAULT_MODE = 0o644


def write_bytes(
    path: str | os.PathLike, data: bytes, *, mode: int = DEFAULT_MODE, durable: bool = False
) -> Path:
    """Write ``data`` to ``path`` atomically. ``durable``: fsync the file and its directory,
    so the new content survives a power cut too (state files: outbox, budget)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            if durable:
                out.flush()
                os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        _fsync_dir(target.parent)
    return target


def write_text(
    path: str | os.PathLike, text: str, *, mode: int = DEFAULT_MODE, durable: bool = False
) -> Path:
    return write_bytes(path, text.encode("utf-8"), mode=mode, durable=durable)


def write_json(
    path: str | os.PathLike,
    obj: Any,
    *,
    indent: int = 1,
    sort_keys: bool = False,
    mode: int = DEFAULT_MODE,
    durable: bool = False,
) -> Path:
    """``obj`` as JSON plus a final newline; serialised before the file is touched."""
    text = json.dumps(obj, indent=indent, sort_keys=sort_keys) + "\n"
    return write_text(path, text, mode=mode, durable=durable)


@contextlib.contextmanager
def replace_dir(dest: str | os.PathLike) -> Iterator[Path]:
    """Fill the yielded temp directory; on success it replaces ``dest`` (old content removed),
    on an exception it is removed and ``dest`` stays as it was."""
    target = Path(dest)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        yield tmp
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _fsync_dir(directory: Path) -> None:
    # Makes the rename itself durable; not every filesystem allows it.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
