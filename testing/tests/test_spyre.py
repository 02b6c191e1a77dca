"""The plugin on the real spyre backend (torch_spyre), in subprocesses.

torch_spyre registers a privateuse1 device for the whole interpreter, so these
runs never share a process with the CPU tests. The target depends on the
backend, so a torch_spyre that does not import is a failure here, never a skip.
Config edits on the device (cpu_move, the restriction switch, merging): test_spyre_config_edits.py.
"""

import json
import subprocess
import sys

import pytest

from testing.tests.spyre_helpers import CONFIG, env, run


def test_backend_imports_and_allocates():
    code = "import torch_spyre, torch; torch.ones(1, device='spyre')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env())
    assert result.returncode == 0, f"torch_spyre does not import: {result.stderr.strip().splitlines()[-1:]}"


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
