"""A small device-generic suite in upstream style: what a backend's own test file looks like.

Copied as test_ops_suite.py next to device.yaml and ops.yaml by test_plugin_wheel.py and run
in a venv that has only the plugin wheel installed (no test_ prefix here: never collected
from the source tree).
"""

import torch
from torch.testing._internal.common_device_type import OpDTypes, dtypes, instantiate_device_type_tests, ops
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import TestCase, run_tests

# A few elementwise ops; the config narrows them further.
ELEMENTWISE = [op for op in op_db if op.name in ("add", "mul", "abs", "neg")]


class TestOpsSuite(TestCase):
    @ops(ELEMENTWISE, dtypes=OpDTypes.supported)
    def test_output_matches_input_shape(self, device, dtype, op):
        sample = next(iter(op.sample_inputs(device, dtype)))
        result = op(sample.input, *sample.args, **sample.kwargs)
        self.assertEqual(result.device.type, torch.device(device).type)
        self.assertEqual(
            result.shape,
            torch.broadcast_shapes(
                sample.input.shape, *[a.shape for a in sample.args if isinstance(a, torch.Tensor)]
            ),
        )

    @dtypes(torch.float32, torch.int64, torch.float64)
    def test_ones_sum(self, device, dtype):
        self.assertEqual(torch.ones(3, dtype=dtype, device=device).sum().item(), 3)

    def test_not_in_any_config(self, device):
        raise AssertionError("unlisted tests are skipped by default: never generated")


instantiate_device_type_tests(TestOpsSuite, globals())

if __name__ == "__main__":
    run_tests()
