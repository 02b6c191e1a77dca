"""Device semantics: tensors exist on spyre, move, view and keep strides."""

from __future__ import annotations

import pytest
import torch
from conftest import python_env, run_python


def test_device_module_is_registered():
    assert torch._C._get_privateuse1_backend_name() == "spyre"
    assert torch.spyre.is_available()
    assert torch.spyre.device_count() >= 1
    assert torch.spyre.current_device() == 0
    assert torch.accelerator.current_accelerator().type == "spyre"


def test_round_trip_to_cpu_is_exact_for_every_storage_dtype():
    for dtype in (
        torch.float32,
        torch.float16,
        torch.bfloat16,
        torch.int32,
        torch.int64,
        torch.bool,
        torch.float64,
    ):
        host = (torch.arange(12) - 5).to(dtype).reshape(3, 4)
        dev = host.to("spyre")
        assert dev.device == torch.device("spyre:0")
        assert dev.dtype == dtype
        assert torch.equal(dev.cpu(), host)


def test_generated_methods():
    t = torch.ones(2).spyre()
    assert t.is_spyre
    assert not torch.ones(2).is_spyre
    module = torch.nn.Linear(2, 2).spyre()
    assert module.weight.device.type == "spyre"


def test_views_share_storage_and_strides():
    base = torch.arange(12, dtype=torch.float32).to("spyre")
    view = base.view(3, 4)
    transposed = view.t()
    assert view.data_ptr() == base.data_ptr()
    assert transposed.stride() == (1, 4)
    assert not transposed.is_contiguous()
    view[1, 2] = 100.0
    assert base[6].item() == 100.0
    assert torch.equal(transposed.cpu(), view.cpu().t())
    sliced = view[:, 1:3]
    assert sliced.storage_offset() == 1
    assert torch.equal(sliced.contiguous().cpu(), view.cpu()[:, 1:3])


def test_as_strided_and_unfold():
    base = torch.arange(10, dtype=torch.float32).to("spyre")
    windows = base.unfold(0, 4, 2)
    assert windows.shape == (4, 4)
    assert torch.equal(windows.cpu(), torch.arange(10.0).unfold(0, 4, 2))
    strided = base.as_strided((3, 3), (2, 1), 1)
    assert torch.equal(strided.cpu(), torch.arange(10.0).as_strided((3, 3), (2, 1), 1))


def test_empty_strided_keeps_requested_strides():
    t = torch.empty_strided((2, 3), (1, 2), device="spyre")
    assert t.stride() == (1, 2)


def test_resize_and_set():
    t = torch.zeros(2, device="spyre")
    t.resize_(4, 4)
    assert t.shape == (4, 4)
    other = torch.arange(6.0).to("spyre")
    t.set_(other)
    assert t.data_ptr() == other.data_ptr()
    t.set_(other.untyped_storage(), 2, (2, 2), (2, 1))
    assert torch.equal(t.cpu(), torch.tensor([[2.0, 3.0], [4.0, 5.0]]))
    t.set_()
    assert t.numel() == 0
    assert t.device.type == "spyre"


def test_item_and_scalars():
    t = torch.tensor([3.5, -2.0]).to("spyre")
    assert t[0].item() == 3.5
    assert torch.tensor([7]).to("spyre").item() == 7


def test_copy_into_noncontiguous_destination():
    dst = torch.zeros(3, 4, device="spyre").t()
    src = torch.arange(12.0).reshape(4, 3)
    dst.copy_(src)
    assert torch.equal(dst.cpu(), src)


def test_storage_resize():
    t = torch.arange(4.0).to("spyre")
    storage = t.untyped_storage()
    storage.resize_(32)
    assert storage.nbytes() == 32
    assert storage.device.type == "spyre"


def test_bad_device_index_is_an_index_error():
    with pytest.raises(IndexError, match="out of range"):
        torch.empty(1, device="spyre:7")


def test_mixed_devices_are_rejected():
    with pytest.raises(RuntimeError, match="same device|all tensors on spyre"):
        torch.ones(2, device="spyre") + torch.ones(2)


def test_two_devices():
    result = run_python(
        """
        import torch, torch_spyre
        assert torch.spyre.device_count() == 2, torch.spyre.device_count()
        a = torch.arange(4.0, device="spyre:0")
        b = a.to("spyre:1")
        assert b.device == torch.device("spyre:1")
        assert torch.equal(b.cpu(), a.cpu())
        c = b + 1
        assert c.device == torch.device("spyre:1")
        a.copy_(c)
        assert torch.equal(a.cpu(), torch.arange(4.0) + 1)
        with torch.spyre.device(1):
            assert torch.spyre.current_device() == 1
            assert torch.empty(1, device="spyre").device.index == 1
        assert torch.spyre.current_device() == 0
        before = torch.spyre.memory_allocated(0)
        extra = torch.empty(256, device="spyre:1")
        assert torch.spyre.memory_allocated(0) == before
        assert torch.spyre.memory_allocated("spyre:1") >= 1024
        torch.spyre.manual_seed(5, device=1)
        r1 = torch.rand(4, device="spyre:1")
        torch.spyre.manual_seed(5, device=1)
        assert torch.equal(torch.rand(4, device="spyre:1").cpu(), r1.cpu())
        torch.spyre.set_device("spyre:1")
        assert torch.spyre.current_device() == 1
        try:
            a + c
        except RuntimeError as e:
            assert "same device" in str(e), e
        else:
            raise AssertionError("cross-device add did not fail")
        print("ok")
        """,
        env=python_env(SPYRE_DEVICE_COUNT="2"),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_events_time_synchronous_work():
    start = torch.Event(device="spyre", enable_timing=True)
    end = torch.Event(device="spyre", enable_timing=True)
    start.record()
    torch.ones(1000, device="spyre").exp()
    end.record()
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) > 0.0


def test_accelerator_api_sees_spyre():
    assert torch.accelerator.device_count() == torch.spyre.device_count()
    assert torch.accelerator.current_device_index() == 0
    torch.accelerator.synchronize()
    assert torch.accelerator.current_stream().device == torch.device("spyre:0")
