"""Upstream's capability gating: the configs' declarations (global.harness_capabilities)
compiled to whichever registration the harness offers (both forms, feature-detected), the
capability-skip bucket on every surface, an undeclared capability as one config problem (also
in `check`), and bad declarations as one line at their file:line. Harness drift: a file that
imports a harness name the core lacks is one line, apart from collection errors.

Neither pinned wheel has the API: harness_standin.py adds our stand-in, written to the
documented contract, to torch's module (as a -p plugin in the subprocess runs)."""

import json
import textwrap
import types
import unittest
import xml.etree.ElementTree as ET

import pytest

from testing.base.errors import ConfigError
from testing.config.load import load
from testing.plugin import gating
from testing.plugin.plan import load_plan
from testing.plugin.tests import harness_standin
from testing.plugin.tests.helpers import PLUGIN, subprocess_environ

GATED = """
import torch
from torch.testing._internal.common_device_type import (
    Capability,
    instantiate_device_type_tests,
    requires_capabilities,
)
from torch.testing._internal.common_utils import TestCase


class TestGated(TestCase):
    @requires_capabilities(Capability.dtype.bf16)
    def test_bf16(self, device):
        self.assertEqual(torch.ones(2, device=device, dtype=torch.bfloat16).sum().item(), 2.0)

    @requires_capabilities(Capability.dtype.fp8)
    def test_fp8(self, device):
        raise RuntimeError("ran although fp8 is declared unsupported")

    @requires_capabilities(Capability.attention.flash_attention)
    def test_flash(self, device):
        raise RuntimeError("ran although no config declares flash attention")

    def test_plain(self, device):
        pass


instantiate_device_type_tests(TestGated, globals())
"""

CONFIG = """\
test_suite_config:
  global:
    backend: torch_spyre
    harness_capabilities:
      dtype.bf16: true
      dtype.fp8: false
      attention.mem_efficient_attention: false
      distributed.backend: false
  files:
    - path: ${TORCH_ROOT}/test/test_gated.py
      unlisted_test_mode: mandatory_success
"""


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# ---------------------------------------------------------------- declarations


def test_a_bad_capability_name_is_one_line_at_its_line(tmp_path):
    bad = write(
        tmp_path,
        "bad.yaml",
        "test_suite_config:\n  global:\n    harness_capabilities:\n      dtype.fp8: false\n      FP8: true\n",
    )
    with pytest.raises(ConfigError) as err:
        load(str(bad))
    text = str(err.value)
    assert text.startswith(f"{bad}:5: global.harness_capabilities") and "'FP8'" in text and "\n" not in text


def test_two_answers_for_one_capability_name_both_lines(tmp_path):
    a = write(
        tmp_path, "a.yaml", "test_suite_config:\n  global:\n    harness_capabilities: {dtype.bf16: true}\n"
    )
    b = write(
        tmp_path,
        "b.yaml",
        "test_suite_config:\n  global:\n    harness_capabilities:\n      dtype.bf16: false\n",
    )
    same = write(
        tmp_path, "same.yaml", "test_suite_config:\n  global:\n    harness_capabilities: {dtype.bf16: true}\n"
    )
    assert load_plan([str(a), str(same)], {}).gating["dtype.bf16"].supported is True
    with pytest.raises(ConfigError) as err:
        load_plan([str(a), str(b)], {})
    assert str(err.value) == (
        f"{b}:4: global.harness_capabilities: dtype.bf16: false here, true at {a}:3 (declare each capability once)"
    )


# ---------------------------------------------------------------- registration (in process)


class _DeviceTypeTestBase:
    pass


class _PrivateUse1TestBase(_DeviceTypeTestBase):
    pass


def harness(form: str | None) -> types.ModuleType:
    """A module shaped like torch's common_device_type, with the stand-in API in `form`."""
    module = types.ModuleType("common_device_type")
    module.__file__ = "/x/torch/testing/_internal/common_device_type.py"
    base = type("DeviceTypeTestBase", (_DeviceTypeTestBase,), {})
    module.DeviceTypeTestBase = base
    module.PrivateUse1TestBase = type("PrivateUse1TestBase", (base,), {"device_type": "privateuse1"})
    if form:
        harness_standin.add_to(vars(module), form)
    return module


def plan_of(tmp_path):
    return load_plan([str(write(tmp_path, "gated.yaml", CONFIG))], {"TORCH_ROOT": str(tmp_path)})


@pytest.mark.parametrize(("form", "way"), [("register", gating.REGISTER), ("override", gating.OVERRIDE)])
def test_every_known_capability_is_registered_through_the_form_the_harness_offers(tmp_path, form, way):
    module = harness(form)
    gate = gating.Gate(plan_of(tmp_path))
    compiled = gate.install(module)
    assert compiled.form == way
    caps = module.PrivateUse1TestBase._capabilities()
    assert {n: p() for n, p in caps.items()} == {
        "attention.flash_attention": False,  # undeclared: unsupported, and a config problem
        "attention.mem_efficient_attention": False,
        "distributed.backend": False,
        "dtype.bf16": True,
        "dtype.fp8": False,
    }
    assert compiled.undeclared == ("attention.flash_attention",)
    (problem,) = gate.problems
    assert str(problem) == (
        f"{tmp_path / 'gated.yaml'}:4: global.harness_capabilities: attention.flash_attention: the harness "
        "(torch/testing/_internal/common_device_type.py) gates tests on it and no config declares it; its "
        "tests skip as unsupported until one does: add 'attention.flash_attention: false' (or true) under "
        "global.harness_capabilities"
    )
    gate.uninstall()
    assert module.PrivateUse1TestBase._capabilities() == {}


def test_a_gated_test_skips_and_names_its_capability(tmp_path):
    module = harness("register")
    gate = gating.Gate(plan_of(tmp_path))
    gate.install(module)

    @module.requires_capabilities(module.Capability.dtype.fp8)
    def test_fp8(self):
        raise AssertionError("ran")

    cls = type("TestX", (module.PrivateUse1TestBase,), {})
    with pytest.raises(unittest.SkipTest):
        test_fp8(cls())
    assert gate.cause("anything") == "dtype.fp8"  # asked our predicate
    gate.queried.clear()
    assert gate.cause("device lacks capability attention.flash_attention") == "attention.flash_attention"
    assert gate.cause("Only runs on cpu") == ""


def test_a_harness_without_gating_gets_nothing_and_says_so(tmp_path):
    module = harness(None)
    compiled = gating.Gate(plan_of(tmp_path)).install(module)
    assert compiled.form is None and not hasattr(module.PrivateUse1TestBase, "_capabilities")
    assert compiled.line() == (
        "oot: harness capabilities: torch/testing/_internal/common_device_type.py has no capability "
        "gating; 4 declaration(s) not applied"
    )


# ---------------------------------------------------------------- end to end (subprocesses)


# a file of a newer upstream: its harness has a name the wheel's lacks (harness drift)
DRIFTED = """
from torch.testing._internal.common_methods_invocations import binary_ufuncs_and_refs
from torch.testing._internal.common_utils import TestCase


class TestDrifted(TestCase):
    def test_uses_it(self):
        self.assertTrue(binary_ufuncs_and_refs)
"""


PLAIN = """
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase


class TestPlain(TestCase):
    def test_one(self, device):
        pass


instantiate_device_type_tests(TestPlain, globals())
"""


def checkout(tmp_path):
    root = tmp_path / "pytorch"
    (root / "test").mkdir(parents=True)
    (root / "test" / "test_gated.py").write_text(GATED)
    (root / "test" / "test_drifted.py").write_text(DRIFTED)
    (root / "test" / "test_plain.py").write_text(PLAIN)
    write(tmp_path, "gated.yaml", CONFIG)
    return root


def with_standin(monkeypatch, form: str, **more: str) -> None:
    """Subprocesses load the stand-in (this repository's) before the plugin."""
    for name, value in subprocess_environ(
        OOT_STANDIN_FORM=form, OOT_STANDIN_BACKEND="torch_spyre", **more
    ).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p testing.plugin.tests.harness_standin")


def run(pytester, root, summary, *args: str):
    """The plugin over the checkout's test files (the trailing `*.py` args, by name)."""
    files = [str(root / "test" / a) for a in args if a.endswith(".py")]
    options = [a for a in args if not a.endswith(".py")]
    return pytester.runpytest_subprocess(
        *PLUGIN, "--oot-summary", str(summary), "--rootdir", str(root), *options, *files
    )


def test_the_capability_bucket_on_every_surface(pytester, tmp_path, monkeypatch):
    root = checkout(tmp_path)
    with_standin(monkeypatch, "register")
    summary, junit = tmp_path / "summary.json", tmp_path / "junit.xml"
    result = run(
        pytester,
        root,
        summary,
        "--config",
        str(tmp_path / "gated.yaml"),
        "--upstream-root",
        str(root),
        "--junitxml",
        str(junit),
        "test_gated.py",
        "test_drifted.py",
    )
    out = json.loads(summary.read_text())
    outcomes = {t["nodeid"].rsplit("::", 1)[1]: (t["outcome"], t.get("capability")) for t in out["tests"]}
    assert outcomes == {
        "test_bf16_spyre": ("passed", None),
        "test_fp8_spyre": ("skipped", "dtype.fp8"),
        "test_flash_spyre": ("skipped", "attention.flash_attention"),
        "test_plain_spyre": ("passed", None),
    }, result.stdout.str()
    assert out["capability_skipped"] == {"attention.flash_attention": 1, "dtype.fp8": 1}
    assert out["gating"]["form"] == gating.REGISTER and out["gating"]["undeclared"] == [
        "attention.flash_attention"
    ]
    result.stdout.fnmatch_lines(
        [
            "oot: harness capabilities: 5 registered through register_privateuse1_capabilities *",
            "skipped: capability attention.flash_attention unsupported: 1 test(s)",
            "skipped: capability dtype.fp8 unsupported: 1 test(s)",
        ]
    )
    (problem,) = [p for p in out["config_problems"] if "harness_capabilities" in p]
    assert problem.startswith(
        f"{tmp_path / 'gated.yaml'}:4: global.harness_capabilities: attention.flash_attention:"
    )
    # the drifted file: one line, neither a collection error nor silent (exit 0: nothing failed)
    drift = "harness drift: test/test_drifted.py needs binary_ufuncs_and_refs (from torch.testing._internal.common_methods_invocations)"
    assert [d["line"] for d in out["harness_drift"]] == [drift] and out["collection_errors"] == []
    assert result.ret == 0 and drift in result.stdout.lines
    tree = ET.parse(junit)
    props = {p.get("name"): p.get("value") for p in tree.iter("property")}
    assert props["capability_skipped.dtype.fp8"] == "1"
    assert props["harness_drift.test/test_drifted.py"] == drift
    fp8 = next(c for c in tree.iter("testcase") if c.get("name") == "test_fp8_spyre")
    assert ("capability", "dtype.fp8") in {(p.get("name"), p.get("value")) for p in fp8.iter("property")}


def test_check_names_an_undeclared_capability(tmp_path, capsys, monkeypatch):
    """`check` reports the same problem, and --strict fails on it (the override form here)."""
    from testing.check import cli

    root = checkout(tmp_path)
    with_standin(monkeypatch, "override")
    args = ["--strict", "--upstream-root", str(root), str(tmp_path / "gated.yaml")]
    assert cli.main(args) == 1
    line = next(x for x in capsys.readouterr().out.splitlines() if "harness_capabilities" in x)
    assert line.startswith(
        f"{tmp_path / 'gated.yaml'}:4: global.harness_capabilities: attention.flash_attention:"
    )


def test_a_harness_of_another_shape_runs_unpatched_and_says_so(pytester, tmp_path, monkeypatch):
    """instantiate_test changed shape: the patches stay out (one line naming the piece), torch's
    own settings (native adapter) still apply, and the summary names the harness."""
    root = checkout(tmp_path)
    with_standin(monkeypatch, "", OOT_STANDIN_RESHAPE="1")
    summary = tmp_path / "summary.json"
    result = run(pytester, root, summary, "--oot-device", "cpu", "test_drifted.py", "test_plain.py")
    harness = json.loads(summary.read_text())["harness"]
    assert harness["missing"] == ["DeviceTypeTestBase.instantiate_test(..., generic_cls=)"], (
        result.stdout.str()
    )
    assert harness["native"] is True and harness["file"].endswith("common_device_type.py")
    result.stdout.fnmatch_lines(
        [
            "oot harness: *common_device_type.py (torch *) lacks DeviceTypeTestBase.instantiate_test(..., "
            "generic_cls=): the patch adapter cannot adapt it; torch's own test-reuse settings only (native adapter)"
        ]
    )
    # generated by torch alone, and it still runs
    (test,) = json.loads(summary.read_text())["tests"]
    assert test["nodeid"].endswith("TestPlainCPU::test_one_cpu") and test["outcome"] == "passed"
