"""The plugin on the real spyre backend (torch_spyre), in subprocesses.

torch_spyre registers a privateuse1 device for the whole interpreter, so these
runs never share a process with the CPU tests. The target depends on the
backend, so a torch_spyre that does not import is a failure here, never a skip.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from testing.tests.conftest import REPO_ROOT

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


def test_backend_imports_and_allocates():
    code = "import torch_spyre, torch; torch.ones(1, device='spyre')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env())
    assert result.returncode == 0, f"torch_spyre does not import: {result.stderr.strip().splitlines()[-1:]}"


def _env():
    paths = [REPO_ROOT, os.path.join(REPO_ROOT, "backend"), *sys.path]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))


def run(tmp_path, config: str, *args, configs=()):
    (tmp_path / "test_spyre_suite.py").write_text(SPYRE_SUITE)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(textwrap.dedent(config).replace("SUITE", str(tmp_path / "test_spyre_suite.py")))
    more = [a for c in configs for a in ("--config", c)]
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "testing.plugin",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(tmp_path),
        "-W",
        "error::pytest.PytestUnknownMarkWarning",
        *more,
        "--config",
        str(cfg),
        *args,
        str(tmp_path),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=str(tmp_path))


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


def test_capabilities_select_ops_and_device_name_comes_from_backend(tmp_path):
    result = run(tmp_path, CONFIG, "--collect-only", "-q")
    ids = sorted(line.split("::")[-1] for line in result.stdout.splitlines() if "::" in line)
    # atan2 is not in spyre's capability table: never generated; exp has no int64 on spyre
    assert ids == [
        "test_after_crash_spyre",
        "test_device_crash_spyre",
        "test_op_add_spyre_float32",
        "test_op_add_spyre_int64",
        "test_op_exp_spyre_float32",
        "test_op_mul_spyre_float32",
        "test_op_mul_spyre_int64",
    ], result.stdout


def test_op_the_device_lacks_is_left_out_with_a_warning_strict_makes_it_an_error(tmp_path):
    bad = CONFIG.replace("          - int64\n", "          - int64\n        supported_ops: [add, atan2]\n")
    result = run(tmp_path, bad, "--collect-only", "-q")
    assert result.returncode == pytest.ExitCode.OK, result.stdout + result.stderr
    ids = sorted(line.split("::")[-1] for line in result.stdout.splitlines() if ".py::" in line)
    assert ids == [
        "test_after_crash_spyre",
        "test_device_crash_spyre",
        "test_op_add_spyre_float32",
        "test_op_add_spyre_int64",
    ]
    assert (
        "global.supported_ops: 'atan2': spyre has no aten::atan2 (capabilities): atan2 left out"
        in result.stdout
    )
    result = run(tmp_path, bad, "--collect-only", "--oot-strict")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert (
        "cfg.yaml:9: global.supported_ops: 'atan2': spyre has no aten::atan2 (capabilities)" in result.stderr
    )


def test_add_on_spyre_with_crash_isolation(tmp_path):
    summary = tmp_path / "summary.json"
    result = run(
        tmp_path, CONFIG, "--isolate", "-v", f"--oot-summary={summary}", "-m", "op__add or not op__mul"
    )
    tests = {t["nodeid"].split("::")[-1]: t["outcome"] for t in json.loads(summary.read_text())["tests"]}
    assert tests == {
        "test_op_add_spyre_float32": "passed",
        "test_op_add_spyre_int64": "passed",
        "test_op_exp_spyre_float32": "xfailed",
        "test_device_crash_spyre": "crashed",
        "test_after_crash_spyre": "passed",
    }, result.stdout


def outcomes(result) -> dict[str, str]:
    """From -v lines: 'test_spyre_suite.py::TestSpyreSPYRE::test_x_spyre PASSED [ 50%]'."""
    return {
        line.split("::")[-1].split()[0]: line.split()[1]
        for line in result.stdout.splitlines()
        if line.startswith("test_spyre_suite.py::") and len(line.split()) > 1
    }


def test_cpu_move_and_the_device_restriction_switch(tmp_path):
    base = """
        test_suite_config:
          global:
            backend: torch_spyre
            RELAX
          files:
            - path: SUITE
              tests:
                - names: [TestSpyre::test_exact_device_compare, TestSpyre::test_only_cpu]
                  EDITS
    """
    cpu_move = "edits: {functions: {cpu_move: [{name: assertEqual}]}}"
    result = run(tmp_path, base.replace("RELAX", "").replace("EDITS", ""), "-v", "-rs")
    # a spyre tensor against a CPU one with exact_device fails; @onlyCPU skips on spyre by default
    assert outcomes(result) == {
        "test_exact_device_compare_spyre": "FAILED",
        "test_only_cpu_spyre": "SKIPPED",
    }, result.stdout
    assert "Only runs on cpu" in result.stdout
    # cpu_move: assertEqual gets both on CPU; the one switch runs onlyOn/onlyCPU tests on the device
    result = run(
        tmp_path, base.replace("RELAX", "relax_device_restrictions: true").replace("EDITS", cpu_move), "-v"
    )
    assert outcomes(result) == {
        "test_exact_device_compare_spyre": "PASSED",
        "test_only_cpu_spyre": "PASSED",
    }, result.stdout


def test_a_torch_spyre_global_merges_with_device_yaml(tmp_path):
    # Torch Spyre's own global section: bare dtype names, aten op names, a backend-internal name
    feature = """
        test_suite_config:
          files:
            - path: SUITE
              tests:
                - names:
                    - TestSpyre::test_op
          global:
            supported_dtypes:
              - name: float32
              - name: int64
            supported_ops:
              - name: add
              - name: aten::mul.Tensor
                dtypes:
                  - name: float32
              - name: relufwd
    """
    device = os.path.join(REPO_ROOT, "configs", "spyre", "device.yaml")
    result = run(tmp_path, feature, "--collect-only", "-q", configs=[device])
    assert result.returncode == pytest.ExitCode.OK, result.stdout + result.stderr
    ids = sorted(line.split("::")[-1] for line in result.stdout.splitlines() if ".py::" in line)
    # supported_dtypes lists are unioned (device.yaml names every spyre dtype); the op's own dtypes
    # win for mul; add runs in what both the union and spyre's table allow (no bool for add)
    assert [i for i in ids if "_mul_" in i] == ["test_op_mul_spyre_float32"]
    adds = {i.removeprefix("test_op_add_spyre_") for i in ids if "_add_" in i}
    assert {"float32", "float16", "bfloat16", "int64"} <= adds and "bool" not in adds
    assert len(ids) == len(adds) + 1  # exp is not in the feature's supported_ops, atan2 not on spyre
    assert "unknown op 'relufwd' (ignored)" in result.stdout
