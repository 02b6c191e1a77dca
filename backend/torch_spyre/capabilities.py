"""The device's capability table, as plain data for configs and test selection.

The table itself lives in C++ (backend/csrc/aten/Capabilities.cc), where the
kernels enforce it; this module only reads it.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import torch


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    return json.loads(torch.ops.spyre.capabilities())


def capabilities() -> dict[str, Any]:
    """{"version": 1, "ops": {name: {"aten", "dtypes", "precision", "layout", "kind"}}}."""
    return copy.deepcopy(_table())


def supported_dtypes(op: str) -> frozenset[torch.dtype]:
    """torch dtypes spyre runs `op` in (empty when the op is unsupported)."""
    entry = _table()["ops"].get(op)
    if entry is None:
        return frozenset()
    return frozenset(getattr(torch, name) for name in entry["dtypes"])
