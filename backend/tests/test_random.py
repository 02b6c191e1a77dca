"""Generators: one default per device, seeded like CPU, deterministic."""

from __future__ import annotations

import torch


def test_manual_seed_makes_spyre_randomness_reproducible():
    torch.manual_seed(42)
    a = torch.randn(100, device="spyre")
    torch.manual_seed(42)
    b = torch.randn(100, device="spyre")
    assert torch.equal(a.cpu(), b.cpu())
    c = torch.randn(100, device="spyre")
    assert not torch.equal(a.cpu(), c.cpu())


def test_spyre_stream_equals_cpu_stream_rounded_to_float16():
    torch.manual_seed(7)
    host = torch.rand(50)
    torch.manual_seed(7)
    dev = torch.rand(50, device="spyre")
    assert torch.equal(dev.cpu(), host.half().float())


def test_device_seed_is_independent_of_cpu_generator():
    torch.spyre.manual_seed(3)
    a = torch.randint(0, 1000, (20,), device="spyre")
    torch.randn(10)  # advancing the CPU generator must not matter
    torch.spyre.manual_seed(3)
    b = torch.randint(0, 1000, (20,), device="spyre")
    assert torch.equal(a.cpu(), b.cpu())
    assert torch.spyre.initial_seed() == 3


def test_rng_state_round_trip():
    torch.spyre.manual_seed(11)
    state = torch.spyre.get_rng_state()
    assert state.dtype == torch.uint8 and state.device.type == "cpu"
    first = torch.randn(10, device="spyre").cpu()
    torch.spyre.set_rng_state(state)
    assert torch.equal(torch.randn(10, device="spyre").cpu(), first)


def test_explicit_generator():
    g = torch.Generator(device="spyre")
    assert g.device.type == "spyre"
    g.manual_seed(5)
    a = torch.randn(10, device="spyre", generator=g)
    g.manual_seed(5)
    b = torch.randn(10, device="spyre", generator=g)
    assert torch.equal(a.cpu(), b.cpu())


def test_dropout_uses_device_generator():
    x = torch.ones(1000, device="spyre")
    torch.manual_seed(1)
    a = torch.nn.functional.dropout(x, 0.5)
    torch.manual_seed(1)
    b = torch.nn.functional.dropout(x, 0.5)
    assert torch.equal(a.cpu(), b.cpu())
    assert 300 < int((a.cpu() == 0).sum()) < 700
