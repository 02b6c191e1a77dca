"""The two refusal kinds, the layout refusal and the opt-in CPU fallback."""

from __future__ import annotations

import pytest
import torch


def test_unsupported_op_is_not_implemented():
    x = torch.ones(3, device="spyre")
    with pytest.raises(NotImplementedError, match=r"^spyre: aten::cosh is not supported"):
        x.cosh()


def test_unsupported_dtype_is_a_type_error_naming_op_and_dtype():
    x = torch.ones(2, dtype=torch.float64, device="spyre")
    with pytest.raises(TypeError, match=r"spyre: aten::exp does not support dtype float64"):
        x.exp()


def test_complex_is_refused():
    # torch.add, not `x + x`: Tensor.__add__ turns a TypeError into
    # NotImplemented, so Python would replace the message with its own.
    x = torch.ones(2, dtype=torch.complex64).to("spyre")
    with pytest.raises(TypeError, match="aten::add does not support dtype complex64"):
        torch.add(x, x)


def test_dtype_argument_is_checked_like_an_operand():
    x = torch.ones(4, device="spyre")
    with pytest.raises(TypeError, match=r"aten::sum does not support dtype float64"):
        x.sum(dtype=torch.float64)


def test_storage_dtypes_can_still_be_created_and_moved():
    x = torch.ones(2, dtype=torch.float64, device="spyre")
    assert torch.equal(x.cpu(), torch.ones(2, dtype=torch.float64))


def test_contiguous_only_op_refuses_strided_input():
    x = torch.randn(4, 5, device="spyre").t()
    with pytest.raises(NotImplementedError, match="aten::cumsum requires contiguous inputs"):
        x.cumsum(0)
    assert x.contiguous().cumsum(0).shape == (5, 4)


def test_cpu_fallback_runs_unsupported_ops_exactly(cpu_fallback):
    x = torch.randn(16)
    assert torch.equal(x.to("spyre").cosh().cpu(), x.cosh())
    d = x.double()
    assert torch.equal(d.to("spyre").exp().cpu(), d.exp())


def test_cpu_fallback_is_opt_in(monkeypatch):
    monkeypatch.setenv("SPYRE_CPU_FALLBACK", "0")
    with pytest.raises(NotImplementedError):
        torch.ones(1, device="spyre").cosh()
