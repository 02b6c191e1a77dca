"""Module forward consistency: each ModuleInfo's forward on the device vs on CPU.

The module is built once on CPU (seeded) and copied to the device, so both
sides share weights; inputs come from the ModuleInfo's own generator.
"""

import copy

import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_modules import module_db, modules
from torch.testing._internal.common_utils import TestCase, run_tests
from torch.utils._pytree import tree_map


def to_cpu(x):
    return x.detach().cpu() if isinstance(x, torch.Tensor) else x


class TestModuleConsistency(TestCase):
    @modules(module_db)
    def test_forward_matches_cpu(self, device, dtype, module_info, training):
        # Inputs are generated on CPU and copied, so only the forward runs on the device.
        inputs = module_info.module_inputs_func(
            module_info, device="cpu", dtype=dtype, requires_grad=False, training=training
        )
        for module_input in inputs:
            if module_input.forward_input is None:
                continue
            c_args = tree_map(to_cpu, module_input.constructor_input.args)
            c_kwargs = tree_map(to_cpu, module_input.constructor_input.kwargs)
            torch.manual_seed(0)
            cpu_module = module_info.module_cls(*c_args, **c_kwargs).to(dtype=dtype)
            dev_module = copy.deepcopy(cpu_module).to(device=device)
            cpu_module.train(training)
            dev_module.train(training)
            args, kwargs = module_input.forward_input.args, module_input.forward_input.kwargs
            to_dev = lambda x: x.to(device) if isinstance(x, torch.Tensor) else x  # noqa: E731
            torch.manual_seed(0)
            actual = dev_module(*tree_map(to_dev, args), **tree_map(to_dev, kwargs))
            torch.manual_seed(0)
            expected = cpu_module(*args, **kwargs)
            self.assertEqual(actual, expected, exact_device=False)


instantiate_device_type_tests(TestModuleConsistency, globals())

if __name__ == "__main__":
    run_tests()
