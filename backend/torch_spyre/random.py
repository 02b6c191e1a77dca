"""RNG control for torch.spyre: one default generator per device."""

from __future__ import annotations

import torch

from .device import DeviceLike, device_count, device_index


def manual_seed(seed: int, device: DeviceLike = None) -> None:
    torch.ops.spyre.manual_seed(device_index(device), int(seed))


def manual_seed_all(seed: int) -> None:
    for index in range(device_count()):
        torch.ops.spyre.manual_seed(index, int(seed))


def seed(device: DeviceLike = None) -> int:
    return torch.ops.spyre.seed(device_index(device))


def seed_all() -> None:
    for index in range(device_count()):
        torch.ops.spyre.seed(index)


def initial_seed(device: DeviceLike = None) -> int:
    return torch.ops.spyre.initial_seed(device_index(device))


def get_rng_state(device: DeviceLike = None) -> torch.Tensor:
    return torch.ops.spyre.get_rng_state(device_index(device))


def set_rng_state(new_state: torch.Tensor, device: DeviceLike = None) -> None:
    torch.ops.spyre.set_rng_state(device_index(device), new_state)


def get_rng_state_all() -> list[torch.Tensor]:
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states: list[torch.Tensor]) -> None:
    for index, state in enumerate(new_states):
        set_rng_state(state, index)
