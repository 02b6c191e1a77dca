"""Tensor printing for spyre tensors.

torch's formatter measures a tensor by computing on its device in float64
(abs/min/max/ceil), which spyre deliberately refuses. Printing is a host-side
concern, so the values are formatted from a CPU copy; the "device='spyre:0'"
suffix is added by torch from the original tensor and is unaffected.
"""

from __future__ import annotations

import functools

import torch
import torch._tensor_str as tensor_str

_MARKER = "_spyre_host_formatting"


def install() -> None:
    original = tensor_str._tensor_str
    if getattr(original, _MARKER, False):
        return

    @functools.wraps(original)
    def format_on_host(self: torch.Tensor, indent: int) -> str:
        if self.device.type == "spyre":
            self = self.cpu()
        return original(self, indent)

    setattr(format_on_host, _MARKER, True)
    tensor_str._tensor_str = format_on_host
