"""Numerics: float32 is computed through float16, other dtypes natively."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from conftest import FLOAT16_ATOL, FLOAT16_RTOL


def through_half(t: torch.Tensor) -> torch.Tensor:
    return t.half().float()


@pytest.fixture
def data():
    gen = torch.Generator().manual_seed(1234)
    return torch.randn(64, 32, generator=gen), torch.randn(64, 32, generator=gen)


CASES = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b.abs() + 1),
    "exp": lambda a, b: a.exp(),
    "tanh": lambda a, b: a.tanh(),
    "mm": lambda a, b: a @ b.t(),
    "softmax": lambda a, b: a.softmax(-1),
    "sum": lambda a, b: a.sum(0),
    "gelu": lambda a, b: F.gelu(a),
    "linear": lambda a, b: F.linear(a, b[:16], b[16, :16]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_within_tolerance_and_not_exact(name, data):
    a, b = data
    fn = CASES[name]
    expected = fn(a, b)
    got = fn(a.to("spyre"), b.to("spyre")).cpu()
    assert got.dtype == torch.float32
    torch.testing.assert_close(got, expected, rtol=FLOAT16_RTOL, atol=FLOAT16_ATOL)
    # A reduced-precision device does not reproduce CPU float32 bit for bit.
    assert not torch.equal(got, expected)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_results_are_float16_representable(name, data):
    a, b = data
    got = CASES[name](a.to("spyre"), b.to("spyre")).cpu()
    assert torch.equal(through_half(got), got)


def test_elementwise_matches_float16_emulation_exactly(data):
    a, b = data
    got = (a.to("spyre") * b.to("spyre")).cpu()
    assert torch.equal(got, through_half(through_half(a) * through_half(b)))


def test_float16_is_native(data):
    a, b = (t.half() for t in data)
    assert torch.equal((a.to("spyre") + b.to("spyre")).cpu(), a + b)


def test_integers_and_movement_are_exact():
    i = torch.arange(-50, 50, dtype=torch.int64)
    assert torch.equal((i.to("spyre") * 3 - 7).cpu(), i * 3 - 7)
    x = torch.randint(-1000, 1000, (5, 7)).float()  # exactly representable in float16
    d = x.to("spyre")
    assert torch.equal(torch.cat([d, d]).cpu(), torch.cat([x, x]))
    assert torch.equal(d.flip(0).cpu(), x.flip(0))
    assert torch.equal(torch.where(d > 0, d, -d).cpu(), x.abs())


def test_in_place_and_out_variants():
    x = torch.randn(8)
    d = x.to("spyre")
    ptr = d.data_ptr()
    d.add_(1)
    assert d.data_ptr() == ptr
    assert torch.equal(d.cpu(), through_half(through_half(x) + 1))
    out = torch.empty(0, device="spyre")
    torch.exp(d, out=out)
    assert out.shape == (8,)
    torch.testing.assert_close(out.cpu(), (x + 1).exp(), rtol=FLOAT16_RTOL, atol=FLOAT16_ATOL)


def test_multiple_outputs_and_reductions():
    x = torch.randn(4, 6)
    values, indices = x.to("spyre").max(1)
    assert values.device.type == indices.device.type == "spyre"
    assert torch.equal(indices.cpu(), through_half(x).max(1).indices)


def test_training_step_runs_on_device():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).to("spyre")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 8, device="spyre")
    y = torch.randint(0, 2, (32,), device="spyre")
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert all(p.grad.device.type == "spyre" for p in model.parameters())


def test_in_place_on_views_writes_through():
    x = torch.arange(6.0).to("spyre").view(2, 3)
    x[0].add_(10)
    x[:, 1].mul_(2)
    assert torch.equal(x.cpu(), torch.tensor([[10.0, 22.0, 12.0], [3.0, 8.0, 5.0]]))


def test_empty_and_expanded_operands():
    empty = torch.empty(0, device="spyre")
    assert (empty + 1).shape == (0,)
    assert torch.equal(torch.cat([empty, torch.ones(2, device="spyre")]).cpu(), torch.ones(2))
    assert torch.zeros(3, 0, device="spyre").sum(1).cpu().tolist() == [0.0, 0.0, 0.0]
    assert torch.ones(2, 3, device="spyre").expand(4, 2, 3).sum().item() == 24.0
