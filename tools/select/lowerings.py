"""Device-side lowerings a CPU trace cannot see.

Some composite ops branch on the tensor's device inside their C++ decomposition: on CPU
``gru_cell`` becomes linear + pointwise ops, while on CUDA, XPU and privateuse1 devices it
calls one fused kernel. A CPU trace records the CPU branch only, so the worker also watches
the Python-level call (a TorchFunctionMode sees ``torch._VF.gru_cell``) and adds the kernels
the device branch needs. Data, not code: extend the table when a new branch is found.
"""

from __future__ import annotations

# torch-level function name -> aten kernels the accelerator branch of its decomposition calls
DEVICE_LOWERINGS: dict[str, tuple[str, ...]] = {
    "gru_cell": ("aten::_thnn_fused_gru_cell",),
    "lstm_cell": ("aten::_thnn_fused_lstm_cell",),
}
