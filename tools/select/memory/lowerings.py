"""Device-side lowerings a CPU trace cannot see.

Some composite ops branch on the tensor's device inside their C++ decomposition: on CPU
``gru_cell`` becomes linear + pointwise ops, while on CUDA, XPU and privateuse1 devices it
calls one fused kernel; ``aten::_convolution`` picks a backend by device, and a privateuse1
tensor gets ``convolution_overrideable`` where CPU gets ``_slow_conv2d_forward`` or oneDNN. A
CPU trace records the CPU branch only, so the worker also watches the Python-level call (a
TorchFunctionMode sees ``torch.conv2d``, ``torch._VF.gru_cell``) and adds the kernels the
device branch needs, dropping the kernels only the CPU branch calls. Data, not code: extend
the tables when a new branch is found.
"""

from __future__ import annotations

_CONVOLUTION = ("aten::convolution_overrideable",)

# torch-level function name -> aten kernels the accelerator branch of its decomposition calls
DEVICE_LOWERINGS: dict[str, tuple[str, ...]] = {
    "gru_cell": ("aten::_thnn_fused_gru_cell",),
    "lstm_cell": ("aten::_thnn_fused_lstm_cell",),
    **dict.fromkeys(
        (
            "conv1d",
            "conv2d",
            "conv3d",
            "conv_transpose1d",
            "conv_transpose2d",
            "conv_transpose3d",
            "convolution",
            "_convolution",
        ),
        _CONVOLUTION,
    ),
}

# device kernel -> the kernels the CPU branch calls in its place (a device never needs them)
CPU_BRANCH_KERNELS: dict[str, frozenset[str]] = {
    "aten::convolution_overrideable": frozenset(
        {
            "aten::_slow_conv2d_forward",
            "aten::slow_conv3d_forward",
            "aten::slow_conv_dilated2d",
            "aten::slow_conv_dilated3d",
            "aten::slow_conv_transpose2d",
            "aten::slow_conv_transpose3d",
            "aten::mkldnn_convolution",
            "aten::_nnpack_spatial_convolution",
            "aten::thnn_conv2d",
            "aten::_convolution_depthwise2d",
        }
    ),
}


def cpu_only(kernel_ops: set[str]) -> set[str]:
    """The kernels of ``kernel_ops`` that only stand in for a recorded device lowering."""
    dropped: set[str] = set()
    for device_kernel, cpu_kernels in CPU_BRANCH_KERNELS.items():
        if device_kernel in kernel_ops:
            dropped |= {op for op in kernel_ops if op.split(".", 1)[0] in cpu_kernels}
    return dropped
