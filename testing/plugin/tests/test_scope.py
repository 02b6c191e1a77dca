"""global.scope: test classes chosen by upstream's hardware classification, where the checkout
carries it (testing/config/hwclass.py), under both adapters; a checkout without it: one line."""

import json
import textwrap

import pytest

from testing.base.errors import ConfigError
from testing.config import hwclass
from testing.config.load import load

# pytorch main's shape: hw_classification = HardwareClassification.<NAME> on each class. The
# pinned 2.13.0 wheel lacks the enum, so the fake checkout's file brings its own stand-in.
CLASSIFIED = """
import enum
import torch
from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase

try:
    from torch.testing._internal.common_utils import HardwareClassification
except ImportError:  # a checkout newer than the wheel
    HardwareClassification = enum.Enum("HardwareClassification", "GENERIC ACCELERATOR CPU CUDA MPS XPU")


class TestAccel(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    @dtypes(torch.float32)
    def test_add(self, device, dtype):
        self.assertEqual(torch.ones(2, device=device, dtype=dtype) + 1, torch.full((2,), 2.0, dtype=dtype))


class TestAccelChild(TestAccel):
    def test_child(self, device):
        pass


class TestGeneric(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_parse(self, device):
        pass


class TestUnclassified(TestCase):
    def test_other(self, device):
        pass


class TestPlainGeneric(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_plain(self):
        pass


class TestPlainAccel(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_plain(self):
        pass


for cls in (TestAccel, TestAccelChild, TestGeneric, TestUnclassified):
    instantiate_device_type_tests(cls, globals())
"""

CONFIG = """\
test_suite_config:
  global:
    scope: accelerator
  files:
    - path: ${TORCH_ROOT}/test/test_classified.py
      unlisted_test_mode: mandatory_success
"""


def checkout(tmp_path, classified: bool):
    root = tmp_path / "pytorch"
    (root / "test").mkdir(parents=True)
    (root / "test" / "test_classified.py").write_text(CLASSIFIED)
    runner = (
        'parser.add_argument("--hw-classification", nargs="+")\n' if classified else "# no classification\n"
    )
    (root / "test" / "run_test.py").write_text(runner)
    (tmp_path / "scope.yaml").write_text(CONFIG)
    return root


def run(pytester, root, tmp_path, adapter):
    summary = tmp_path / f"summary-{adapter}.json"
    result = pytester.runpytest_subprocess(
        "-p",
        "testing.plugin",
        "-p",
        "no:cacheprovider",
        "--config",
        str(tmp_path / "scope.yaml"),
        "--upstream-root",
        str(root),
        "--oot-device",
        "cpu",
        "--oot-adapter",
        adapter,
        "--oot-summary",
        str(summary),
        "--rootdir",
        str(root),
        str(root / "test" / "test_classified.py"),
    )
    return result, json.loads(summary.read_text())


def ran(summary) -> dict:
    return {t["nodeid"].split("::", 1)[1]: t["outcome"] for t in summary["tests"]}


def test_classes_read_from_source_follow_bases_in_the_file():
    found = hwclass.classes(textwrap.dedent(CLASSIFIED))
    assert found["TestAccel"] == found["TestAccelChild"] == "ACCELERATOR"
    assert found["TestGeneric"] == "GENERIC" and found["TestUnclassified"] is None


def test_checkout_detection(tmp_path):
    assert "test/run_test.py: --hw-classification" == hwclass.checkout_carries(str(checkout(tmp_path, True)))
    assert hwclass.checkout_carries(str(tmp_path)) is None and hwclass.checkout_carries(None) is None


def test_bad_scope_is_one_line_at_its_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("test_suite_config:\n  global:\n    scope: [accelerator, acclerator]\n")
    with pytest.raises(ConfigError) as err:
        load(str(bad))
    assert "bad.yaml:3" in str(err.value) and "unknown hardware classification 'acclerator'" in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("adapter", ["native", "patch"])
def test_scope_runs_only_accelerator_classes_where_the_checkout_classifies(pytester, tmp_path, adapter):
    root = checkout(tmp_path, classified=True)
    result, summary = run(pytester, root, tmp_path, adapter)
    assert ran(summary) == {
        "TestAccelCPU::test_add_cpu_float32": "passed",
        "TestAccelChildCPU::test_child_cpu": "passed",
        "TestPlainAccel::test_plain": "passed",
    }, result.stdout.str()
    scope = summary["scope"]
    assert scope["applied"] and scope["asked"] == ["accelerator"]
    assert scope["out_of_scope"] == {
        str((root / "test" / "test_classified.py").resolve()): {
            "TestGeneric": "GENERIC",
            "TestPlainGeneric": "GENERIC",
            "TestUnclassified": "unclassified",
        }
    }
    result.stdout.fnmatch_lines(
        ["oot scope: accelerator (hardware classification of the checkout, *: 3 test*"]
    )
    row = next(r for r in summary["adapter"]["rules"] if r["what"] == "scope: accelerator")
    assert row["way"] == ("native" if adapter == "native" else "patched")
    assert not summary["config_problems"]


def test_checkout_without_classification_says_so_in_one_line(pytester, tmp_path):
    root = checkout(tmp_path, classified=False)
    result, summary = run(pytester, root, tmp_path, "auto")
    assert len(ran(summary)) == 6, result.stdout.str()  # nothing left out: scope from the configs only
    assert summary["scope"]["applied"] is False and summary["scope"]["out_of_scope"] == {}
    lines = [line for line in result.stdout.lines if line.startswith("oot scope:")]
    assert len(lines) == 1 and "carries no hardware classification" in lines[0]
    assert any("scope.yaml:3: global.scope:" in p for p in summary["config_problems"])


def test_check_names_a_scope_the_checkout_cannot_apply(tmp_path, capsys):
    """`check` (testing/check) lists it as a warning at the config's line; --strict fails on it."""
    from testing.check import cli

    root = checkout(tmp_path, classified=False)
    args = ["--upstream-root", str(root), str(tmp_path / "scope.yaml")]
    assert cli.main(args) == 0
    loose = capsys.readouterr().out
    assert cli.main(["--strict", *args]) == 1
    line = next(x for x in loose.splitlines() if "global.scope" in x)
    assert line.startswith(f"{tmp_path / 'scope.yaml'}:3: global.scope: accelerator: not applied: ")
    assert line.endswith("[warning]")
