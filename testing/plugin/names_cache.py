"""torch's names (OpInfos, modules, dtypes) for the config check, kept on disk per harness.

`dispatch_handler plan` and `check` read every config before a test runs, and one op name
made them import torch's op database (about 7 of a plan's 13 s). The names depend only on
the torch files that define them, so they are kept in ``<user cache>/known-names/<key>.json``,
where the key hashes those files as the next import would find them: another torch, or the
harness an overlay brings, is another key. A missing, unreadable or other-format entry is
rebuilt from torch itself, never trusted; without a cache directory nothing is kept.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Mapping, Optional

from testing.base.atomic import write_json
from testing.base.cachedir import user_cache
from testing.plugin import device_support, opnames

FORMAT = 1
# What defines the names: torch's version (its dtypes) and the test harness (op_db, module_db).
_SOURCES = ("version.py", "testing/_internal")


def torch_dir() -> Optional[Path]:
    """The torch package the next `import torch` loads (no import: a spec lookup)."""
    spec = importlib.util.find_spec("torch")
    locations = list(spec.submodule_search_locations or ()) if spec else []
    return Path(locations[0]) if locations else None


def harness_key(root: Path) -> str:
    """sha256 over the relative path and bytes of every Python file that defines the names."""
    digest = hashlib.sha256(f"format {FORMAT}\n".encode())
    for rel in _SOURCES:
        where = root / rel
        files = sorted(where.rglob("*.py")) if where.is_dir() else [where]
        for f in files:
            if f.is_file():
                digest.update(f"{f.relative_to(root)}\n".encode())
                digest.update(f.read_bytes())
    return digest.hexdigest()


def known_names(env: Mapping[str, str]) -> device_support.KnownNames:
    """The names as device_support.known_names() gives them, from the cache when it has them."""
    root, base = torch_dir(), user_cache(env)
    if root is None or base is None:
        return device_support.known_names()
    return _kept(root, base)


@functools.lru_cache(maxsize=None)
def _kept(root: Path, base: Path) -> device_support.KnownNames:
    """Once per process and harness: `plan` checks one config set per leg, each asking."""
    path = base / "known-names" / f"{harness_key(root)}.json"
    found = _read(path)
    if found is not None:
        return found
    known = device_support.known_names()
    _write(path, known)
    return known


def _read(path: Path) -> Optional[device_support.KnownNames]:
    try:
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT:
            return None
        index = data["index"]
        sets = lambda d: {k: frozenset(v) for k, v in d.items()}  # noqa: E731
        return device_support.KnownNames(
            ops=dict(data["ops"]),
            modules=frozenset(data["modules"]),
            dtypes=frozenset(data["dtypes"]),
            index=opnames.OpIndex(
                frozenset(index["full_names"]),
                sets(index["by_name"]),
                sets(index["by_alias"]),
                sets(index["by_aten"]),
            ),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write(path: Path, known: device_support.KnownNames) -> None:
    index = known.op_index()
    lists = lambda d: {k: sorted(v) for k, v in sorted(d.items())}  # noqa: E731
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(
            path,
            {
                "format": FORMAT,
                "ops": dict(sorted(known.ops.items())),
                "modules": sorted(known.modules),
                "dtypes": sorted(known.dtypes),
                "index": {
                    "full_names": sorted(index.full_names),
                    "by_name": lists(index.by_name),
                    "by_alias": lists(index.by_alias),
                    "by_aten": lists(index.by_aten),
                },
            },
            indent=None,
        )
    except OSError:
        pass  # a read-only or full cache only costs the next run the import
