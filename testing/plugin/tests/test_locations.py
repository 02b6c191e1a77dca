"""Generated tests report the upstream test function's file and line, as plain pytest does.

The plugin wraps every method torch generates (testing/plugin/wrapping.py); pytest's
location, failure reports and JUnit's xunit1 file/line attributes must still name the test
file, not the wrapper.
"""

import ast
import xml.etree.ElementTree as ET

import pytest

from testing.plugin.tests.helpers import PLUGIN

DEVICE_TESTS = """
import torch
from torch.testing._internal.common_device_type import (
    OpDTypes, dtypes, instantiate_device_type_tests, ops)
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import TestCase


class TestWhere(TestCase):
    def test_plain(self, device):
        pass

    @dtypes(torch.float32)
    def test_fails(self, device, dtype):
        self.assertTrue(False, "fails on purpose")

    @ops([o for o in op_db if o.name == "add"], dtypes=OpDTypes.none)
    def test_op(self, device, op):
        pass

    def test_expected_to_fail(self, device):
        self.assertTrue(False)


instantiate_device_type_tests(TestWhere, globals())
"""


def first_lines(source: str) -> dict[str, int]:
    """Each test's first line (its first decorator's, as the code object has it), 0-based as
    pytest's locations are."""
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef))
    return {
        f.name: min([f.lineno] + [d.lineno for d in f.decorator_list]) - 1
        for f in cls.body
        if isinstance(f, ast.FunctionDef)
    }


def generic_name(nodeid: str) -> str:
    """test_fails_cpu_float32 -> test_fails (the generic test it was generated from)."""
    name = nodeid.split("::")[-1]
    return max((t for t in first_lines(DEVICE_TESTS) if name.startswith(t + "_")), key=len)


def locations(pytester, *args) -> dict[str, tuple]:
    reports = pytester.inline_run(*args).getreports("pytest_runtest_logreport")
    return {r.nodeid: r.location for r in reports if r.when == "call"}


@pytest.mark.parametrize("adapter", ["auto", "patch"])
def test_generated_tests_report_the_upstream_file_and_line(pytester, write_yaml, tmp_path, adapter):
    suite = pytester.makepyfile(test_where=DEVICE_TESTS)
    cfg = write_yaml(f"""
        test_suite_config:
          global:
            device_type: cpu
            supported_ops: [add]
          files:
            - path: {suite}
              tests:
                - names: "TestWhere::*"
                - names: TestWhere::test_expected_to_fail
                  mode: xfail
                  reason: fails on purpose
    """)
    junit = tmp_path / "junit.xml"
    root = f"--rootdir={pytester.path}"
    adapted = locations(
        pytester,
        *PLUGIN,
        root,
        f"--oot-adapter={adapter}",
        "--config",
        cfg,
        f"--junitxml={junit}",
        "-o",
        "junit_family=xunit1",
    )
    lines = first_lines(suite.read_text())
    assert len(adapted) == 4, adapted  # one per generic test (cpu; float32; add; the xfail)
    for nodeid, (file, line, domain) in adapted.items():
        assert (file, line) == ("test_where.py", lines[generic_name(nodeid)]), nodeid
        assert domain == f"TestWhereCPU.{nodeid.split('::')[-1]}"
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert len(cases) == 4 and cases["test_fails_cpu_float32"].find("failure") is not None
    for name, case in cases.items():
        assert (case.get("file"), case.get("line")) == ("test_where.py", str(lines[generic_name(name)]))

    # exactly what pytest says for the same tests without the plugin
    plain = locations(pytester, "-p", "no:cacheprovider", root)
    assert {n: plain[n] for n in adapted} == adapted
