"""Core wheels downloaded once, checked against their sha256 and cached by it.

`<cache>/wheels/<sha256>.whl` exists only after its content hashed to that name: a download
goes to a temporary file beside it, is hashed while it is written and renamed into place
only when the digest (and the announced length) match. A truncated or altered download is
deleted, never cached and never used. Every leg and every bisection step of a run, and every
later run on this machine, reads the same file; a per-digest lock makes concurrent legs
download it once.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import BinaryIO, Optional

from crcr.upstream.overlay import lock
from testing.base.errors import OotError

TIMEOUT = 60.0  # seconds without data from the server
BLOCK = 1 << 20


class WheelRejected(OotError):
    """The wheel could not be had, or is not the one the index names (one line)."""


def cached_path(cache: Path, sha256: str) -> Path:
    return cache / "wheels" / f"{sha256}.whl"


def is_cached(cache: Path, sha256: str) -> bool:
    return cached_path(cache, sha256).is_file()


def _open(location: str) -> tuple[BinaryIO, Optional[int]]:
    """A readable stream of the wheel and its announced length (None: unknown)."""
    if urllib.parse.urlsplit(location).scheme in ("http", "https", "file"):
        resp = urllib.request.urlopen(location, timeout=TIMEOUT)  # noqa: S310 (checked scheme)
        length = resp.headers.get("Content-Length")
        return resp, int(length) if length and length.isdigit() else None
    return open(location, "rb"), None


def fetch(location: str, sha256: str, cache: Path, name: str = "") -> tuple[Path, bool]:
    """(the cached wheel, whether it was cached already); WheelRejected on any mismatch."""
    name = name or urllib.parse.unquote(location.rsplit("/", 1)[-1])
    final = cached_path(cache, sha256)
    with lock(cache / "locks" / f"wheel-{sha256[:32]}.lock"):
        if final.is_file():
            return final, True
        final.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{sha256[:16]}.", suffix=".part", dir=final.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                got, size, length = _copy(location, out, name)
            if length is not None and size != length:
                raise WheelRejected(f"{name}: truncated download ({size} of {length} bytes); not cached")
            if got != sha256:
                raise WheelRejected(
                    f"{name}: sha256 {got[:16]}... is not the index's {sha256[:16]}... "
                    "(truncated or altered); not cached"
                )
            os.replace(tmp, final)
        finally:
            Path(tmp).unlink(missing_ok=True)
    return final, False


def _copy(location: str, out: BinaryIO, name: str) -> tuple[str, int, Optional[int]]:
    """(sha256 hex, bytes written, announced length) of the stream copied into `out`."""
    digest, size = hashlib.sha256(), 0
    try:
        src, length = _open(location)
        with src:
            while block := src.read(BLOCK):
                digest.update(block)
                out.write(block)
                size += len(block)
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", None) or err
        raise WheelRejected(f"{name}: download failed ({reason}); not cached") from None
    return digest.hexdigest(), size, length
