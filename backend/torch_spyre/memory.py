"""Memory statistics of the spyre allocator (names follow torch.cuda)."""

from __future__ import annotations

import torch

from .device import DeviceLike, device_index

# Order of the counters returned by torch.ops.spyre.memory_stats.
STAT_KEYS = (
    "allocated_bytes.all.current",
    "allocated_bytes.all.peak",
    "allocation.all.current",
    "allocation.all.allocated",
    "allocation.all.freed",
)


def memory_stats(device: DeviceLike = None) -> dict[str, int]:
    values = torch.ops.spyre.memory_stats(device_index(device))
    return dict(zip(STAT_KEYS, values))


def memory_allocated(device: DeviceLike = None) -> int:
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device: DeviceLike = None) -> int:
    return memory_stats(device)["allocated_bytes.all.peak"]


def reset_peak_memory_stats(device: DeviceLike = None) -> None:
    torch.ops.spyre.reset_peak_memory_stats(device_index(device))


def empty_cache() -> None:
    """No cache to empty: every block goes back to the host on free."""
