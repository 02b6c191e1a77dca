"""Device selection for torch.spyre (mirrors the torch.cuda functions)."""

from __future__ import annotations

import contextlib
from typing import Iterator, Union

import torch

DeviceLike = Union[None, int, str, torch.device]


def device_index(device: DeviceLike) -> int:
    """Normalises None / 3 / "spyre:1" / torch.device to an index (-1 = current)."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    device = torch.device(device)
    if device.type != "spyre":
        raise ValueError(f"expected a spyre device, got {device}")
    return -1 if device.index is None else device.index


def is_available() -> bool:
    return device_count() > 0


def device_count() -> int:
    return torch.ops.spyre.device_count()


def current_device() -> int:
    return torch.ops.spyre.current_device()


def set_device(device: DeviceLike) -> None:
    index = device_index(device)
    if index >= 0:
        torch.ops.spyre.set_device(index)


def synchronize(device: DeviceLike = None) -> None:
    """Spyre kernels complete before returning; this only validates the index."""
    torch.ops.spyre.synchronize(device_index(device))


def is_initialized() -> bool:
    return True


def _is_in_bad_fork() -> bool:
    # No driver state to lose across fork: the device is host memory.
    return False


@contextlib.contextmanager
def device(target: DeviceLike) -> Iterator[None]:
    """Context manager that makes `target` the current spyre device."""
    previous = current_device()
    set_device(target)
    try:
        yield
    finally:
        torch.ops.spyre.set_device(previous)
