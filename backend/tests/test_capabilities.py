"""The capability table: shape, coverage and agreement with behaviour."""

from __future__ import annotations

import pytest
import torch

import torch_spyre

COMPUTE_DTYPES = {"float16", "float32", "bfloat16", "int32", "int64", "bool"}


@pytest.fixture(scope="module")
def ops():
    return torch_spyre.capabilities()["ops"]


def test_covers_a_first_release(ops):
    aten = [name for entry in ops.values() for name in entry["aten"]]
    assert len(aten) == len(set(aten)), "an aten op is listed twice"
    assert len(aten) >= 60
    for family in (
        "add",
        "mm",
        "bmm",
        "addmm",
        "softmax",
        "log_softmax",
        "where",
        "clamp",
        "cat",
        "sum",
        "fill",
        "copy",
    ):
        assert family in ops


def test_every_aten_name_exists_in_torch(ops):
    for entry in ops.values():
        for name in entry["aten"]:
            packet = getattr(torch.ops.aten, name, None) or getattr(torch.ops.aten, name + "_", None)
            assert packet is not None, f"aten::{name} does not exist"


def test_float64_and_complex_are_never_compute_dtypes(ops):
    for name, entry in ops.items():
        assert set(entry["dtypes"]) <= COMPUTE_DTYPES, name
        assert entry["precision"] in ("float16", "exact")
        assert entry["layout"] in ("any", "contiguous")
        assert entry["kind"] in ("emulated", "native", "composite")
        assert (entry["kind"] == "composite") == (not entry["aten"]), name


def test_table_agrees_with_the_kernel(ops):
    assert "exp" in ops and "float64" not in ops["exp"]["dtypes"]
    assert "cosh" not in ops
    assert ops["cumsum"]["layout"] == "contiguous"
    assert torch_spyre.supported_dtypes("exp") == {torch.float16, torch.float32, torch.bfloat16}
    assert torch_spyre.supported_dtypes("cosh") == frozenset()


@pytest.mark.parametrize("family", ["linear", "matmul", "layer_norm", "stack", "transpose"])
def test_composite_rows_really_run(ops, family):
    assert ops[family]["kind"] == "composite"
    x = torch.randn(4, 4, device="spyre")
    run = {
        "linear": lambda: torch.nn.functional.linear(x, x),
        "matmul": lambda: x @ x,
        "layer_norm": lambda: torch.nn.functional.layer_norm(x, (4,)),
        "stack": lambda: torch.stack([x, x]),
        "transpose": lambda: x.transpose(0, 1).contiguous(),
    }[family]
    assert run().device.type == "spyre"


def overloads(base: str) -> list[str]:
    """Qualified names of every overload of aten::<base> and aten::<base>_."""
    names = []
    for packet_name in (base, base + "_"):
        packet = getattr(torch.ops.aten, packet_name, None)
        for overload in packet.overloads() if packet is not None else ():
            names.append(f"aten::{packet_name}" + ("" if overload == "default" else "." + overload))
    return names


def has_spyre_kernel(qualified: str) -> bool:
    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key(qualified, "PrivateUse1")
    except RuntimeError:  # TorchScript-only overloads (aten::neg.int) are not dispatcher ops
        return False


def test_native_rows_have_dedicated_kernels(ops):
    """A "native" row is served by a registered spyre kernel, not the fallback."""
    for name, entry in ops.items():
        if entry["kind"] == "native":
            for aten in entry["aten"]:
                assert any(has_spyre_kernel(q) for q in overloads(aten)), (name, aten)


def test_emulated_rows_go_through_the_checking_kernel(ops):
    for entry in ops.values():
        if entry["kind"] == "emulated":
            for aten in entry["aten"]:
                assert not any(has_spyre_kernel(q) for q in overloads(aten)), aten


def test_tolerances():
    assert torch_spyre.tolerance("exp", torch.float32) == (1e-2, 1e-2)
    assert torch_spyre.tolerance("exp", torch.float16) == (0.0, 0.0)  # native float16
    assert torch_spyre.tolerance("cat", torch.float32) == (0.0, 0.0)  # exact row


def test_capabilities_returns_a_copy():
    table = torch_spyre.capabilities()
    table["ops"].clear()
    assert torch_spyre.capabilities()["ops"]
