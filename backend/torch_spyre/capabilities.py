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
    """{"version": 1, "tolerances": {precision: {dtype: {"atol", "rtol"}}},
    "ops": {name: {"aten", "dtypes", "storage_dtypes", "precision", "layout", "kind"}}}."""
    return copy.deepcopy(_table())


def tolerance(op: str, dtype: torch.dtype) -> tuple[float, float]:
    """(atol, rtol) to compare spyre's `op` in `dtype` with CPU; (0, 0) = bit-exact."""
    table = _table()
    precision = table["ops"][op]["precision"]
    entry = table["tolerances"].get(precision, {}).get(str(dtype).removeprefix("torch."))
    return (entry["atol"], entry["rtol"]) if entry else (0.0, 0.0)


def supported_dtypes(op: str) -> frozenset[torch.dtype]:
    """torch dtypes spyre runs `op` in (empty when the op is unsupported)."""
    entry = _table()["ops"].get(op)
    if entry is None:
        return frozenset()
    return frozenset(getattr(torch, name) for name in entry["dtypes"])
