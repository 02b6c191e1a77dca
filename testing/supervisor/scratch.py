"""Scratch directories for worker logs and hand-over files, removed when the process ends.

Every supervised run makes one (the zygote's child logs, the restarter's skip lists,
select's trace logs). Removing them in a hook alone left one behind for each run that
failed or was interrupted before the hook ran, about 30 per `bazel test //...`; an
atexit handler covers those exits too. Forked children leave with ``os._exit`` and
never run it, and the pid check keeps any other inheritor from deleting the parent's.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def scratch_dir(prefix: str) -> str:
    """A new temp directory that is deleted when this process exits (on failure too)."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(remove, path, os.getpid())
    return path


def remove(path: str, owner: int | None = None) -> None:
    """Deletes ``path`` now (idempotent); ``owner``: only from the process that made it."""
    if owner is None or owner == os.getpid():
        shutil.rmtree(path, ignore_errors=True)
