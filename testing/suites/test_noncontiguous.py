"""Non-contiguous inputs: elementwise OpInfos on strided device tensors vs CPU."""

import torch
from torch.testing._internal.common_device_type import OpDTypes, instantiate_device_type_tests, ops
from torch.testing._internal.common_methods_invocations import binary_ufuncs, unary_ufuncs
from torch.testing._internal.common_utils import TestCase, run_tests


def to_cpu(x):
    return x.detach().cpu() if isinstance(x, torch.Tensor) else x


class TestNonContiguous(TestCase):
    @ops(unary_ufuncs + binary_ufuncs, dtypes=OpDTypes.supported)
    def test_noncontiguous_matches_cpu(self, device, dtype, op):
        for cpu_sample in op.sample_inputs("cpu", dtype, requires_grad=False):
            moved = cpu_sample.transform(lambda x: x.to(device) if isinstance(x, torch.Tensor) else x)
            strided = moved.noncontiguous()  # strided views of device memory
            expected = op(
                *(to_cpu(x) for x in (strided.input, *strided.args)),
                **{k: to_cpu(v) for k, v in strided.kwargs.items()},
            )
            actual = op(strided.input, *strided.args, **strided.kwargs)
            self.assertEqual(actual, expected, exact_device=False)


instantiate_device_type_tests(TestNonContiguous, globals())

if __name__ == "__main__":
    run_tests()
