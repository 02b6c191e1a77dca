"""JUnit: what the writer emits, the reader reads back as the same outcome."""

import xml.etree.ElementTree as ET

import pytest

from testing.results import junit
from testing.results.outcomes import SEVERITY, Outcome

PYTEST_STYLE = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="6">
<testcase classname="suites.test_ops.TestOpsPRIVATEUSE1" name="test_add" time="0.10"/>
<testcase classname="suites.test_ops.TestOpsPRIVATEUSE1" name="test_mul" time="0.20">
  <failure message="AssertionError: Tensor-likes are not close!">trace</failure></testcase>
<testcase classname="suites.test_ops.TestOpsPRIVATEUSE1" name="test_exp" time="0.01">
  <skipped type="pytest.xfail" message="exp is not implemented"/></testcase>
<testcase classname="suites.test_ops.TestOpsPRIVATEUSE1" name="test_sin" time="0.01">
  <skipped type="pytest.skip" message="dtype not supported"/></testcase>
<testcase classname="suites.test_ops.TestOpsPRIVATEUSE1" name="test_cos" time="0.01">
  <failure message="[XPASS(strict)] cos was listed as xfail_strict"/></testcase>
<testcase classname="suites.test_ops.TestOpsPRIVATEUSE1" name="test_tan" time="0.00">
  <error message="worker died: Fatal Python error: Segmentation fault"/></testcase>
</testsuite></testsuites>
"""


def test_reads_pytest_style_outcomes(tmp_path):
    path = tmp_path / "r.xml"
    path.write_text(PYTEST_STYLE)
    got = {c.name: c.outcome for c in junit.read(path)}
    assert got == {
        "test_add": "passed",
        "test_mul": "failed",
        "test_exp": "xfailed",
        "test_sin": "skipped",
        "test_cos": "xpassed_strict",
        "test_tan": "crashed",
    }
    first = junit.read(path)[1]
    assert first.key == "suites.test_ops.TestOpsPRIVATEUSE1::test_mul" and first.time == "0.20"
    assert first.text == "AssertionError: Tensor-likes are not close!\ntrace"


@pytest.mark.parametrize("outcome", list(SEVERITY))
def test_every_outcome_round_trips(tmp_path, outcome):
    case = junit.case_element("pkg.test_x.T", "test_y", outcome, 1.5, f"why {outcome}", "details")
    path = junit.write(tmp_path / "out" / "r.xml", junit.report([case], "rt"))
    (back,) = junit.read(path)
    assert (back.classname, back.name, back.outcome, back.time) == (
        "pkg.test_x.T",
        "test_y",
        outcome,
        "1.500",
    )


def test_xpassed_strict_keeps_its_marker_once(tmp_path):
    message = "[XPASS(strict)] listed as xfail_strict"
    case = junit.case_element("m.T", "t", Outcome.XPASSED_STRICT, message=message)
    assert case.find("failure").get("message") == message
    path = junit.write(tmp_path / "r.xml", junit.report([case], "rt"))
    assert junit.read(path)[0].outcome is Outcome.XPASSED_STRICT


def test_report_counts(tmp_path):
    cases = [junit.case_element("m.T", f"t{i}", o) for i, o in enumerate(SEVERITY)]
    suite = junit.report(cases, "all").getroot().find("testsuite")
    assert {k: suite.get(k) for k in ("name", "tests", "failures", "errors", "skipped")} == {
        "name": "all",
        "tests": "8",
        "failures": "2",  # failed, xpassed_strict
        "errors": "2",  # error, crashed
        "skipped": "2",  # skipped, xfailed
    }


def test_properties_go_first_and_are_read_back():
    case = junit.case_element("m.T", "t", "failed", message="boom")
    junit.set_property(case, "bucket", "mandatory_success")
    assert case[0].tag == "properties"
    assert junit.case_of(ET.fromstring(ET.tostring(case))).properties == {"bucket": "mandatory_success"}


def test_broken_file_names_path_and_line(tmp_path):
    path = tmp_path / "torn.xml"
    path.write_text('<testsuites>\n<testcase name="a">\n')
    with pytest.raises(junit.JunitError, match=r"torn.xml:3: not readable JUnit XML") as err:
        junit.read(path)
    assert err.value.line == 3


def test_missing_file_is_a_junit_error(tmp_path):
    with pytest.raises(junit.JunitError, match=r"nope.xml: not readable JUnit XML \(\[Errno 2\]"):
        junit.read(tmp_path / "nope.xml")


def test_never_run_is_an_error_though_its_reason_names_a_dead_worker(tmp_path):
    reason = "not run: the worker died 2 times (restart limit 1); last: signal 11 (SIGSEGV)"
    written = junit.case_element("m.T", "t", "error", message=reason)
    plugin_style = ET.fromstring(
        f'<testcase classname="m.T" name="u"><properties><property name="not_run" value="{reason}"/>'
        f'</properties><error message="{reason}"/></testcase>'
    )
    # pytest writes properties with the teardown report only: the replayed error has none
    pytest_style = ET.fromstring(
        f"<testcase classname='m.T' name='v'><error message='failed on setup with \"{reason}\"'/></testcase>"
    )
    crashed = ET.fromstring(
        "<testcase classname='m.T' name='w'><error message='worker crashed: signal 6'/></testcase>"
    )
    path = junit.write(tmp_path / "r.xml", junit.report([written, plugin_style, pytest_style, crashed], "rt"))
    assert [(c.name, c.outcome) for c in junit.read(path)] == [
        ("t", "error"),
        ("u", "error"),
        ("v", "error"),
        ("w", "crashed"),
    ]


def test_left_out_files_are_read_from_the_suites_own_properties_only():
    root = ET.fromstring(
        "<testsuites><testsuite><properties>"
        "<property name='left_out.t/test_a.py' value='collect: false: old (c.yaml:3)'/>"
        "<property name='left_out.' value='no path: ignored'/>"
        "<property name='model.m' value='not a file'/></properties>"
        "<testcase name='x'><properties><property name='left_out.t/test_b.py' value='a case'/>"
        "</properties></testcase></testsuite></testsuites>"
    )
    assert junit.left_out_in(root) == {"t/test_a.py": "collect: false: old (c.yaml:3)"}
