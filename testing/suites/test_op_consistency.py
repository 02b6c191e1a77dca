"""Device-vs-CPU consistency over every OpInfo's sample inputs.

Written in upstream style (device-generic, instantiated per device type):
samples are generated on CPU (the device's RNG is not under test here), copied
to the device under test, and the op's results on both are compared with
assertEqual (precision comes from the config per dtype).
"""

import torch
from torch.testing._internal.common_device_type import OpDTypes, instantiate_device_type_tests, ops
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import TestCase, run_tests


def to_cpu(x):
    return x.detach().cpu() if isinstance(x, torch.Tensor) else x


def on_device(sample, device):
    return sample.transform(lambda x: x.detach().to(device) if isinstance(x, torch.Tensor) else x)


class TestOpConsistency(TestCase):
    @ops(op_db, dtypes=OpDTypes.supported)
    def test_matches_cpu(self, device, dtype, op):
        for cpu_sample in op.sample_inputs("cpu", dtype, requires_grad=False):
            sample = on_device(cpu_sample, device)
            torch.manual_seed(0)
            actual = op(sample.input, *sample.args, **sample.kwargs)
            torch.manual_seed(0)
            expected = op(cpu_sample.input, *cpu_sample.args, **cpu_sample.kwargs)
            self.assertEqual(actual, expected, exact_device=False)

    @ops(op_db, dtypes=OpDTypes.none)
    def test_result_device(self, device, op):
        # The first float32 sample's outputs live on the device under test.
        sample = next(iter(op.sample_inputs("cpu", torch.float32)), None)
        if sample is None or not isinstance(sample.input, torch.Tensor):
            self.skipTest("no tensor sample")
        sample = on_device(sample, device)
        result = op(sample.input, *sample.args, **sample.kwargs)
        for out in result if isinstance(result, (tuple, list)) else (result,):
            if isinstance(out, torch.Tensor):
                self.assertEqual(out.device.type, torch.device(device).type)


instantiate_device_type_tests(TestOpConsistency, globals())

if __name__ == "__main__":
    run_tests()
