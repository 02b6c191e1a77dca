"""Acceptance: configs in Torch Spyre's exact shape, fed unchanged, against upstream-style files.

The configs here are written for these tests in the shape Torch Spyre's
tests/configs/upstream_tests*/ use: reasons as YAML comments, a name listed
twice, a test upstream no longer has, aten op names, edits.functions, and a
global section of their own. They must load and run (with warnings);
--oot-strict reports each as an error with file:line.
"""

import json
import textwrap
import xml.etree.ElementTree as ET

import pytest
import torch
from torch.testing._internal.common_methods_invocations import op_db

PLUGIN = ("-p", "testing.plugin", "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning")

UNARY = """
import torch
from torch.testing._internal.common_device_type import (
    OpDTypes, dtypes, instantiate_device_type_tests, onlyCPU, onlyNativeDeviceTypes, ops)
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import TestCase, run_tests

SOME = [op for op in op_db if op.name in ("abs", "ceil", "exp", "sign", "nn.functional.gelu")]


class TestUnaryUfuncs(TestCase):
    @ops(SOME, dtypes=OpDTypes.supported)
    def test_reference_numerics_normal(self, device, dtype, op):
        self.assertIn(dtype, op.supported_dtypes(device))  # a widened dtype is one of the op's here
        sample = next(iter(op.sample_inputs(device, dtype)))
        self.assertEqual(sample.input.dtype, dtype)

    @dtypes(torch.float32)
    def test_abs_zero(self, device, dtype):
        self.assertEqual(torch.zeros(2, dtype=dtype, device=device).abs(), torch.zeros(2, dtype=dtype))

    def test_frexp(self, device):
        raise NotImplementedError("no frexp kernel")

    @onlyCPU
    def test_cpu_only_helper(self, device):
        pass

    @onlyNativeDeviceTypes
    def test_native_only(self, device):
        pass


instantiate_device_type_tests(TestUnaryUfuncs, globals())

if __name__ == "__main__":
    run_tests()
"""

# Torch Spyre's shape: a blank line after test_suite_config, names indented under the dash,
# reasons only as comments, the global section after the files.
UNARY_CONFIG = """\
test_suite_config:

  files:
    - path: ${TORCH_ROOT}/test/test_unary_ufuncs.py
      unlisted_test_mode: skip
      tests:
        # Numerics against the reference, on the ops the device has.
        - names:
            - TestUnaryUfuncs::test_reference_numerics_normal
          mode: mandatory_success
        - names:
            - TestUnaryUfuncs::test_abs_zero
          mode: mandatory_success
          edits:
            functions:
              cpu_move:
                - name: assertEqual
            dtypes:
              include:
                - name: bfloat16
        # frexp has no kernel on the device yet.
        - names:
            - TestUnaryUfuncs::test_frexp
          mode: xfail
        - names:
            - TestUnaryUfuncs::test_cpu_only_helper
          mode: mandatory_success
        - names:
            - TestUnaryUfuncs::test_native_only
            - TestUnaryUfuncs::test_reference_numerics_nomral   # renamed upstream
            - TestUnaryUfuncs::test_frexp                      # listed twice: this entry wins
          mode: xfail  # xfail: NotImplementedError

  global:
    supported_dtypes:
      - name: float32
      - name: int64
    supported_ops:
      - name: abs
      - name: ceil
        dtypes:
          - name: bool
          - name: float32
      - name: gelu
      - name: aten::exp.default
      - name: relufwd
"""


@pytest.fixture
def checkout(tmp_path):
    root = tmp_path / "pytorch"
    (root / "test").mkdir(parents=True)
    (root / "version.txt").write_text(torch.__version__.split("+")[0] + "\n")
    (root / "test" / "test_unary_ufuncs.py").write_text(UNARY)
    return root


def run_config(pytester, checkout, text, *args, name="unary.yaml"):
    cfg = pytester.path / name
    cfg.write_text(text)
    return pytester.runpytest(*PLUGIN, "--config", str(cfg), "--upstream-root", str(checkout), *args)


def ids_of(result) -> list[str]:
    return sorted(
        line.split("::")[-1] for line in result.stdout.lines if "::" in line and " " not in line.strip()
    )


def test_torch_spyre_shaped_config_loads_and_runs_with_warnings(pytester, checkout, tmp_path):
    junit, summary = tmp_path / "junit.xml", tmp_path / "summary.json"
    ceil = next(op for op in op_db if op.name == "ceil")
    result = run_config(
        pytester,
        checkout,
        UNARY_CONFIG,
        str(checkout / "test"),
        "-rA",
        f"--junitxml={junit}",
        f"--oot-summary={summary}",
    )
    out = result.stdout.str()
    # ceil has no bool dtype of its own: the op's listed dtypes widen it (a per-test copy, op_db untouched);
    # sign is not a supported op; gelu and aten::exp.default resolve; relufwd resolves to nothing
    assert result.parseoutcomes() == {"passed": 10, "xfailed": 1, "xpassed": 1, "warnings": 3}, out
    passed = {line.split("::")[-1] for line in result.stdout.lines if line.startswith("PASSED ")}
    assert passed == {
        "test_reference_numerics_normal_abs_cpu_float32",
        "test_reference_numerics_normal_abs_cpu_int64",
        "test_reference_numerics_normal_ceil_cpu_bool",
        "test_reference_numerics_normal_ceil_cpu_float32",
        "test_reference_numerics_normal_exp_cpu_float32",
        "test_reference_numerics_normal_exp_cpu_int64",
        "test_reference_numerics_normal_nn_functional_gelu_cpu_float32",
        "test_abs_zero_cpu_float32",
        "test_abs_zero_cpu_bfloat16",
        "test_cpu_only_helper_cpu",
    }
    assert "sign" not in out.replace("sign'", "")
    assert torch.bool not in ceil.supported_dtypes("cpu")
    # the duplicate's later entry wins; its reason is the comment after the name, then the mode's
    reasons = {
        c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")}.get("reason")
        for c in ET.parse(junit).getroot().iter("testcase")
    }
    assert reasons["test_frexp_cpu"] == "listed twice: this entry wins"
    assert reasons["test_native_only_cpu"] == "xfail: NotImplementedError"
    warned = json.loads(summary.read_text())["config_problems"]
    cfg = str(pytester.path / "unary.yaml")
    assert [
        w.split(": ", 1)[1].replace(cfg, "{cfg}").split("; closest")[0]
        if "unknown op" in w
        else w.split(": ", 1)[1].replace(cfg, "{cfg}")
        for w in warned
    ] == [
        "names: duplicate entry 'TestUnaryUfuncs::test_frexp' (also at {cfg}:23): this later entry wins (xfail)",
        "global.supported_ops: unknown op 'relufwd' (ignored)",
        "names: unknown test 'TestUnaryUfuncs::test_reference_numerics_nomral' (no such test in test_unary_ufuncs.py: "
        "removed or renamed upstream?); closest: TestUnaryUfuncs::test_reference_numerics_normal",
    ]
    assert [w.split(": ", 1)[0].rsplit("/", 1)[-1] for w in warned] == [
        "unary.yaml:31",
        "unary.yaml:46",
        "unary.yaml:30",
    ]


def test_strict_mode_reports_each_torch_spyre_ism_with_file_and_line(pytester, checkout):
    result = run_config(pytester, checkout, UNARY_CONFIG, "--oot-strict", str(checkout / "test"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    cfg = str(pytester.path / "unary.yaml")
    errors = [
        line.split("unary.yaml:", 1)[1].replace(cfg, "{cfg}")
        for line in result.stderr.lines
        if "unary.yaml:" in line
    ]
    assert errors == [
        "22: reason: mode 'xfail': 'reason' only in a comment ('frexp has no kernel on the device yet.') [--oot-strict]",
        "28: reason: mode 'xfail': 'reason' only in a comment ('xfail: NotImplementedError') [--oot-strict]",
        "31: names: duplicate entry 'TestUnaryUfuncs::test_frexp' (also at {cfg}:23): this later entry wins (xfail) [--oot-strict]",
        "44: global.supported_ops: 'gelu' is not an OpInfo name: resolved by aten_name to nn.functional.gelu [--oot-strict]",
        "45: global.supported_ops: 'aten::exp.default' is not an OpInfo name: resolved by full_name ('exp') to exp [--oot-strict]",
        "46: global.supported_ops: unknown op 'relufwd' (ignored); closest: relu, rrelu, relu6 [--oot-strict]",
    ], result.stderr.str()
    # a config that is clean of those passes strict mode's config checks; unknown tests are checked after collection
    clean = textwrap.dedent("""\
        test_suite_config:
          files:
            - path: ${TORCH_ROOT}/test/test_unary_ufuncs.py
              tests:
                - names: TestUnaryUfuncs::test_frexp
                  mode: xfail
                  reason: no frexp kernel
                - names: TestUnaryUfuncs::test_gone
    """)
    result = run_config(pytester, checkout, clean, "--oot-strict", str(checkout / "test"), name="clean.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if "clean.yaml" in line][0].endswith(
        "clean.yaml:8: names: unknown test 'TestUnaryUfuncs::test_gone' (no such test in test_unary_ufuncs.py: "
        "removed or renamed upstream?) [--oot-strict]"
    )


VIEW_OPS = """
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyNativeDeviceTypes
from torch.testing._internal.common_utils import TestCase, run_tests


class TestViewOps(TestCase):
    def test_reshape(self, device):
        self.assertEqual(torch.arange(6, device=device).reshape(2, 3).shape, (2, 3))

    @onlyNativeDeviceTypes
    def test_view_native(self, device):
        pass


class TestOldViewOps(TestCase):
    def test_reshape(self, device):
        raise AssertionError("TestOldViewOps::test_reshape ran")

    def test_flatten(self, device):
        pass


instantiate_device_type_tests(TestViewOps, globals(), include_lazy=True)
instantiate_device_type_tests(TestOldViewOps, globals(), only_for=("cuda",))

if __name__ == "__main__":
    run_tests()
"""

VIEW_CONFIG = """\
test_suite_config:
  labels: [trunk]
  files:
    - path: ${TORCH_ROOT}/test/test_view_ops.py
      unlisted_test_mode: mandatory_success
      tests:
        - names:
            - TestViewOps::test_reshape
          mode: skip
          # segfaults on the device
"""


def test_compat_torch_spyre_gives_their_class_insensitive_names_and_only_for(pytester, checkout):
    (checkout / "test" / "test_view_ops.py").write_text(VIEW_OPS)
    target = str(checkout / "test" / "test_view_ops.py")
    # ours: TestViewOps::test_reshape names that class only; only_for=("cuda",) is honoured
    result = run_config(pytester, checkout, VIEW_CONFIG, target, "-rA", name="view.yaml")
    assert result.parseoutcomes() == {"passed": 1}, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "oot: only cpu device classes are instantiated*",
            "oot: device classes left out of test_view_ops.py: TestViewOpsLAZY",
            "PASSED *TestViewOpsCPU::test_view_native_cpu",
        ]
    )
    # Torch Spyre's: only_for dropped, so TestOldViewOps runs here, and the TestViewOps entry covers its
    # test_reshape too (a name means the method in every class); unlisted tests still mandatory_success
    result = run_config(
        pytester, checkout, VIEW_CONFIG, target, "-rA", "--oot-compat=torch_spyre", name="view.yaml"
    )
    assert result.parseoutcomes() == {"passed": 2}, result.stdout.str()
    result.stdout.fnmatch_lines(["oot: device=cpu configs=1 compat=torch_spyre", "*"])
    assert "TestOldViewOpsCPU::test_flatten_cpu" in result.stdout.str()
    assert "test_reshape" not in result.stdout.str()


# a name the core's C extension lacks (a harness name the core lacks is harness drift instead:
# test_gating.py)
BROKEN = "from torch._C import a_name_from_the_future\n"
OK_FILE = """
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase


class TestOk(TestCase):
    def test_ok(self, device):
        pass


instantiate_device_type_tests(TestOk, globals())
"""


def test_collection_errors_match_plain_pytest_and_collect_false_works_for_named_files(
    pytester, checkout, tmp_path
):
    test = checkout / "test"
    (test / "test_broken.py").write_text(BROKEN)
    (test / "test_ok.py").write_text(OK_FILE)
    named = [str(test / "test_broken.py"), str(test / "test_ok.py")]
    plain = pytester.runpytest("-p", "no:cacheprovider", *named)
    assert plain.ret == pytest.ExitCode.INTERRUPTED  # pytest stops on a collection error

    listed = "test_suite_config:\n  files:\n    - path: ${TORCH_ROOT}/test/test_ok.py\n      unlisted_test_mode: mandatory_success\n"
    summary, junit = tmp_path / "summary.json", tmp_path / "junit.xml"
    result = run_config(
        pytester, checkout, listed, *named, f"--oot-summary={summary}", f"--junitxml={junit}", name="ok.yaml"
    )
    assert result.ret == plain.ret
    result.stdout.fnmatch_lines(
        ["oot: collection error: *test_broken.py: ImportError: cannot import name 'a_name_from_the_future'*"]
    )
    data = json.loads(summary.read_text())
    assert data["counts"] == {"collection_error": 1}
    assert [e["nodeid"].rsplit("/", 1)[-1] for e in data["collection_errors"]] == ["test_broken.py"]
    assert "a_name_from_the_future" in data["collection_errors"][0]["message"]
    errors = [c for c in ET.parse(junit).getroot().iter("testcase") if c.find("error") is not None]
    assert len(errors) == 1 and errors[0].get("name").endswith("pytorch.test.test_broken")
    assert "a_name_from_the_future" in errors[0].find("error").get("message", "") + (
        errors[0].find("error").text or ""
    )

    # collect: false, even for a file named on the command line: never imported, the rest runs
    skipped = (
        listed
        + "    - path: ${TORCH_ROOT}/test/test_broken.py\n      collect: false  # imports a newer torch\n"
    )
    result = run_config(pytester, checkout, skipped, *named, f"--oot-summary={summary}", name="ok.yaml")
    assert result.ret == pytest.ExitCode.OK and result.parseoutcomes() == {"passed": 1}, result.stdout.str()
    assert json.loads(summary.read_text())["collection_errors"] == []


@pytest.mark.parametrize("compat", [(), ("--oot-compat=torch_spyre",)])
def test_torch_spyre_configs_run_the_same_under_both_adapters(pytester, checkout, tmp_path, compat):
    """Their configs, unchanged, through torch's set_test_configs (auto) and through our patches only."""
    (checkout / "test" / "test_view_ops.py").write_text(VIEW_OPS)
    seen = {}
    for adapter in ("auto", "patch"):
        summaries = []
        for text, name in ((UNARY_CONFIG, "unary.yaml"), (VIEW_CONFIG, "view.yaml")):
            summary = tmp_path / f"{adapter}-{name}.json"
            run_config(
                pytester,
                checkout,
                text,
                str(checkout / "test"),
                f"--oot-adapter={adapter}",
                f"--oot-summary={summary}",
                *compat,
                name=name,
            )
            summaries.append(json.loads(summary.read_text()))
        assert all(s["adapter"]["used"] == ("native" if adapter == "auto" else "patch") for s in summaries)
        seen[adapter] = [{t["nodeid"]: (t["outcome"], t["bucket"]) for t in s["tests"]} for s in summaries]
    assert seen["auto"] == seen["patch"] and all(seen["auto"])
