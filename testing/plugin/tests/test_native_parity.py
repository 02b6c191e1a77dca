"""Parity: the native adapter (torch's set_test_configs) and the patch adapter give the same
test ids, buckets and outcomes on the in-tree suites and the generated upstream fixture's files.
Each run also checks that the native one really went through the core's API."""

import os
import textwrap

import pytest

from testing.plugin.tests.helpers import REPO_ROOT
from testing.plugin.tests.native_helpers import both as _both
from testing.plugin.tests.native_helpers import outcomes, run_adapter, suite

FIXTURE_TESTS = os.path.join(REPO_ROOT, "crcr", "upstream", "fixture", "base", "test")

# Every kind of rule: an op allowlist, per-op dtypes and precision, strict xfail of @ops
# variants narrowed by op and dtype (native), non-strict xfail and a selector skip (patched),
# whole-test skip and unlisted skip (test_exclusions), plain @dtypes tests.
PARITY = """
test_suite_config:
  global:
    supported_dtypes:
      - {name: float32, precision: {atol: 1.0e-5, rtol: 1.0e-5}}
      - float16
      - int64
      - bool
    supported_ops: [add, mul, exp, sum, neg, {name: div.no_rounding_mode, dtypes: [float32]}]
  files:
    - path: ${REPO_ROOT}/testing/suites/test_op_consistency.py
      tests:
        - names: [TestOpConsistency::test_matches_cpu, TestOpConsistency::test_result_device]
        - names: TestOpConsistency::test_matches_cpu
          ops: [exp]
          dtypes: [float16]
          mode: xfail_strict
          reason: "passes on CPU: an XPASS(strict) both ways"
        - names: TestOpConsistency::test_matches_cpu
          ops: [mul]
          mode: xfail
          reason: "non-strict: patched"
        - names: TestOpConsistency::test_result_device
          ops: [add]
          mode: skip
          reason: "a selector skip: not generated"
    - path: ${REPO_ROOT}/testing/suites/test_tensor_basics.py
      tests:
        - names: "TestTensorBasics::*"
        - names: TestTensorBasics::test_fill
          mode: skip
          reason: "whole test: test_exclusions"
        - names: TestTensorBasics::test_roundtrip
          dtypes: [int64]
          mode: xfail_strict
          reason: "a plain @dtypes test: patched"
"""


def test_in_tree_suites_same_ids_buckets_outcomes(tmp_path):
    cfg = tmp_path / "parity.yaml"
    cfg.write_text(textwrap.dedent(PARITY))
    native, patch = _both(tmp_path, [cfg], [suite("test_op_consistency.py"), suite("test_tensor_basics.py")])
    assert outcomes(native) == outcomes(patch)
    got = outcomes(native)
    assert len(got) > 40
    buckets = {b for _, b in got.values()}
    assert {"mandatory_success", "xfail", "xfail_strict"} <= buckets
    # the strict xfail passes on CPU: torch's expectedFailure says "Unexpected success", read as XPASS(strict)
    strict = [k for k, (o, b) in got.items() if b == "xfail_strict" and "exp" in k]
    assert strict and all(got[k][0] == "xpassed_strict" for k in strict)
    assert not any("test_result_device_add" in k for k in got)  # selector skip: not generated
    assert not any("test_fill" in k for k in got)  # whole-test skip
    way = {r["what"]: r["way"] for r in native["adapter"]["rules"]}
    assert way["supported_ops 'add'"] == "native"  # op_allowlist
    assert way["TestOpConsistency::test_matches_cpu (xfail_strict)"] == "native"  # expectedFailure
    assert way["TestTensorBasics::test_fill (skip)"] == "native"  # test_exclusions
    assert way["TestOpConsistency::test_matches_cpu (xfail)"] == "patched"
    assert way["TestTensorBasics::test_roundtrip (xfail_strict)"] == "patched"  # no @ops: a pytest mark
    assert native["adapter"]["counts"]["native"] > 0 and native["adapter"]["counts"]["patched"] > 0
    assert patch["adapter"]["counts"]["native"] == 0


def test_cpu_smoke_config_same_both_ways(tmp_path):
    smoke = os.path.join(REPO_ROOT, "configs", "cpu", "smoke.yaml")
    native, patch = _both(tmp_path, [smoke], [os.path.join(REPO_ROOT, "testing", "suites")])
    assert outcomes(native) == outcomes(patch) and len(outcomes(native)) > 50


def test_generated_upstream_fixture_files_same_both_ways(tmp_path):
    """The fixture's upstream-style files as upstream mode runs them (${TORCH_ROOT}), on CPU."""
    root = os.path.dirname(FIXTURE_TESTS)
    cfg = tmp_path / "fixture.yaml"
    cfg.write_text(
        textwrap.dedent("""
        test_suite_config:
          global:
            supported_dtypes: [float32, float16, int64]
          files:
            - path: ${TORCH_ROOT}/test/test_elementwise_device.py
              tests:
                - names: "TestElementwiseDevice::*"
                - names: TestElementwiseDevice::test_where_matches_cpu
                  mode: skip
                  reason: "whole test"
            - path: ${TORCH_ROOT}/test/nn/test_flatten_device.py
              tests:
                - names: "TestFlattenDevice::*"
                - names: TestFlattenDevice::test_flatten_inner_range
                  dtypes: [int64]
                  mode: xfail
                  reason: "patched: non-strict"
    """)
    )
    files = [
        os.path.join(FIXTURE_TESTS, "test_elementwise_device.py"),
        os.path.join(FIXTURE_TESTS, "nn", "test_flatten_device.py"),
    ]
    native, patch = _both(tmp_path, [cfg], files, "--upstream-root", root)
    assert outcomes(native) == outcomes(patch) and len(outcomes(native)) > 20


# Upstream's own expected failures, the three ways upstream declares them: a DecorateInfo on
# the OpInfo, one on the ModuleInfo, unittest.expectedFailure on the method. Every body fails.
DECLARED = """
import copy
import unittest

import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests, ops
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_modules import module_db, modules
from torch.testing._internal.common_utils import TestCase
from torch.testing._internal.opinfo.core import DecorateInfo


def declared(info, test):
    out = copy.copy(info)
    out.decorators = tuple(info.decorators or ()) + (
        DecorateInfo(unittest.expectedFailure, "TestDeclared", test),
    )
    return out


OPS = [declared(o, "test_op_broken") for o in op_db if o.full_name in ("neg", "exp")]
MODULES = [declared(m, "test_module_broken") for m in module_db if m.name in ("nn.ReLU", "nn.Tanh")]


class TestDeclared(TestCase):
    @ops(OPS, allowed_dtypes=(torch.float32,))
    def test_op_broken(self, device, dtype, op):
        self.fail("declared broken on the OpInfo")

    @modules(MODULES, allowed_dtypes=(torch.float32,))
    def test_module_broken(self, device, dtype, module_info, training):
        self.fail("declared broken on the ModuleInfo")

    @unittest.expectedFailure
    def test_method_broken(self, device):
        self.fail("declared broken on the method")


instantiate_device_type_tests(TestDeclared, globals())
"""


def test_upstream_expected_failures_hold_under_both_adapters(tmp_path):
    """The native adapter cancels only the expectedFailure its own op_overrides set: upstream's
    (OpInfo, ModuleInfo, method) xfail exactly as under the patch adapter, a config bucket on top."""
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "test_declared.py").write_text(DECLARED)
    cfg = tmp_path / "declared.yaml"
    cfg.write_text(
        textwrap.dedent("""
        test_suite_config:
          global:
            supported_dtypes: [float32]
            supported_ops: [neg, exp]
          files:
            - path: ${TORCH_ROOT}/test/test_declared.py
              tests:
                - names: "TestDeclared::*"
                - names: TestDeclared::test_op_broken
                  ops: [exp]
                  mode: xfail_strict
                  reason: "the config's own bucket beside upstream's"
    """)
    )
    native, patch = _both(
        tmp_path, [cfg], [tmp_path / "test" / "test_declared.py"], "--upstream-root", str(tmp_path)
    )
    got = outcomes(native)
    assert got == outcomes(patch)
    kinds = {k.split("::")[-1].split("_broken")[0] for k in got}
    assert kinds == {"test_op", "test_module", "test_method"} and len(got) == 5, got
    assert {o for o, _ in got.values()} == {"xfailed"}, got


@pytest.mark.parametrize("adapter", ["native"])
def test_adapter_native_names_each_rule_it_cannot_express(tmp_path, adapter):
    cfg = tmp_path / "parity.yaml"
    cfg.write_text(textwrap.dedent(PARITY))
    code, _, out = run_adapter(tmp_path, adapter, [cfg], [suite("test_tensor_basics.py")])
    assert code == 4, out
    assert "adapter: native cannot express this" in out
    assert "supported_dtypes 'float16'" in out and "(xfail)" in out


def test_core_without_the_api_falls_back_in_one_line(tmp_path):
    """A core lacking set_test_configs: auto runs the patches and says so."""
    hide = tmp_path / "hide_api.py"
    hide.write_text(
        textwrap.dedent("""
        import torch.testing._internal.common_device_type as cdt
        del cdt.DeviceTypeTestBase.set_test_configs
    """)
    )
    cfg = tmp_path / "parity.yaml"
    cfg.write_text(textwrap.dedent(PARITY))
    code, data, out = run_adapter(
        tmp_path, "auto", [cfg], [suite("test_tensor_basics.py")], "-p", "hide_api", roots=(str(tmp_path),)
    )
    assert data["adapter"]["used"] == "patch", out
    assert "lacks set_test_configs" in data["adapter"]["line"]
