"""Tensor basics across dtypes: creation, copies, views, fills, arithmetic on the device."""

import torch
from torch.testing import make_tensor
from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase, run_tests

ALL = (
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.float64,
    torch.complex64,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.bool,
)


class TestTensorBasics(TestCase):
    @dtypes(*ALL)
    def test_roundtrip(self, device, dtype):
        cpu = make_tensor((4, 5), dtype=dtype, device="cpu")
        self.assertEqual(cpu.to(device).cpu(), cpu, atol=0, rtol=0)

    @dtypes(*ALL)
    def test_empty_and_shape(self, device, dtype):
        t = torch.empty((2, 3, 4), dtype=dtype, device=device)
        self.assertEqual(t.shape, (2, 3, 4))
        self.assertEqual(t.dtype, dtype)
        self.assertEqual(t.device.type, torch.device(device).type)

    @dtypes(*ALL)
    def test_fill(self, device, dtype):
        t = torch.zeros((3, 3), dtype=dtype, device=device)
        t.fill_(1)
        self.assertEqual(t.cpu(), torch.ones((3, 3), dtype=dtype))

    @dtypes(*ALL)
    def test_view_and_transpose(self, device, dtype):
        cpu = make_tensor((6, 4), dtype=dtype, device="cpu")
        dev = cpu.to(device)
        self.assertEqual(dev.view(4, 6).cpu(), cpu.view(4, 6))
        self.assertEqual(dev.t().contiguous().cpu(), cpu.t().contiguous())

    @dtypes(torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.int64)
    def test_add_matches_cpu(self, device, dtype):
        a = make_tensor((8, 8), dtype=dtype, device="cpu")
        b = make_tensor((8, 8), dtype=dtype, device="cpu")
        self.assertEqual((a.to(device) + b.to(device)).cpu(), a + b)

    @dtypes(torch.float32, torch.float16)
    def test_sum_large_matches_cpu(self, device, dtype):
        # Long reductions expose a narrower internal accumulator.
        a = make_tensor((4096,), dtype=dtype, device="cpu", low=0, high=1)
        self.assertEqual(a.to(device).sum().cpu(), a.sum())


instantiate_device_type_tests(TestTensorBasics, globals())

if __name__ == "__main__":
    run_tests()
