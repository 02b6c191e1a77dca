"""Config features on the real spyre backend, in subprocesses: cpu_move, the device
restriction switch, and a Torch Spyre global section merged with configs/spyre/device.yaml."""

import os

import pytest

from testing.plugin.tests.helpers import REPO_ROOT
from testing.tests.spyre_helpers import outcomes, run


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
