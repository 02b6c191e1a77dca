"""What the spyre end-to-end tests share: an upstream-style suite for the spyre device, a
config, and a pytest subprocess with the plugin and torch_spyre importable."""

import os
import subprocess
import textwrap

from testing.config.runs import PLUGIN, PytestCommand
from testing.plugin.tests.helpers import REPO_ROOT, subprocess_environ

SPYRE_SUITE = """
import os
import torch
from torch.testing._internal.common_device_type import OpDTypes, instantiate_device_type_tests, onlyCPU, ops
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import TestCase

SMALL = [o for o in op_db if o.name in ("add", "mul", "exp", "atan2")]


class TestSpyre(TestCase):
    @ops(SMALL, dtypes=OpDTypes.supported)
    def test_op(self, device, dtype, op):
        sample = next(iter(op.sample_inputs("cpu", dtype)))
        moved = sample.transform(lambda t: t.to(device) if isinstance(t, torch.Tensor) else t)
        self.assertEqual(op(moved.input, *moved.args, **moved.kwargs),
                         op(sample.input, *sample.args, **sample.kwargs), exact_device=False)

    def test_device_crash(self, device):
        torch.ops.spyre._debug_crash()

    def test_after_crash(self, device):
        self.assertEqual(torch.ones(2, device=device).sum().item(), 2)

    def test_exact_device_compare(self, device):
        self.assertEqual(torch.ones(2, device=device), torch.ones(2), exact_device=True)

    @onlyCPU
    def test_only_cpu(self, device):
        self.assertEqual(torch.ones(2, device=device).sum().item(), 2)


instantiate_device_type_tests(TestSpyre, globals())
"""


def env():
    return subprocess_environ(os.path.join(REPO_ROOT, "backend"))


def run(tmp_path, config: str, *args, configs=()):
    (tmp_path / "test_spyre_suite.py").write_text(SPYRE_SUITE)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(textwrap.dedent(config).replace("SUITE", str(tmp_path / "test_spyre_suite.py")))
    return run_plugin(tmp_path, str(tmp_path), [*configs, str(cfg)], args, [str(tmp_path)])


def run_plugin(cwd, rootdir: str, configs, args, paths):
    """pytest -p testing.plugin with these configs (in order) in a subprocess that has torch_spyre."""
    cmd = PytestCommand(
        paths=list(paths),
        plugins=[PLUGIN],
        configs=list(configs),
        extra=["-W", "error::pytest.PytestUnknownMarkWarning", *args],
        cache=False,
        rootdir=rootdir,
    ).argv()
    return subprocess.run(cmd, capture_output=True, text=True, env=env(), cwd=str(cwd))


CONFIG = """
    test_suite_config:
      global:
        backend: torch_spyre
        capabilities: backend
        supported_dtypes:
          - {name: float32, precision: {atol: 1.0e-3, rtol: 2.0e-3}}
          - int64
      files:
        - path: SUITE
          tests:
            - names: [TestSpyre::test_op, TestSpyre::test_after_crash, TestSpyre::test_device_crash]
            - names: TestSpyre::test_op
              ops: [exp]
              dtypes: [float32]
              mode: xfail
              reason: float32 exp computed through float16 differs beyond the float32 tolerance
"""


def outcomes(result) -> dict[str, str]:
    """From -v lines: 'test_spyre_suite.py::TestSpyreSPYRE::test_x_spyre PASSED [ 50%]'."""
    return {
        line.split("::")[-1].split()[0]: line.split()[1]
        for line in result.stdout.splitlines()
        if line.startswith("test_spyre_suite.py::") and len(line.split()) > 1
    }
