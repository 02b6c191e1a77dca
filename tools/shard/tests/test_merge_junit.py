import xml.etree.ElementTree as ET

from testing.results import junit
from tools.shard.merge_junit import Attempt, final_case
from tools.shard.verdicts import classify

NODE = "suites/test_ops.py::TestOps::test_add"


def case(failure=None, props=()):
    el = ET.Element("testcase", classname="suites.test_ops.TestOps", name="test_add", time="0.5")
    if props:
        p = ET.SubElement(el, "properties")
        for name, value in props:
            ET.SubElement(p, "property", name=name, value=value)
    if failure:
        ET.SubElement(el, "failure", message=failure).text = "trace"
    return el


def test_crash_then_pass_is_flaky_with_a_flaky_error():
    attempts = [
        Attempt("crashed", 0.0, None, "killed by signal 11 (SIGSEGV)"),
        Attempt("passed", 0.5, case()),
    ]
    out = final_case(NODE, classify([a.outcome for a in attempts]), attempts)
    assert out.find("flakyError").get("message") == "killed by signal 11 (SIGSEGV)"
    assert out.find("failure") is None and out.find("error") is None


def test_plugin_properties_survive_and_first_failure_decides():
    attempts = [
        Attempt("failed", 0.5, case("boom", [("bucket", "mandatory_success")])),
        Attempt("failed", 0.5, case("boom again")),
    ]
    out = final_case(NODE, classify(["failed", "failed"]), attempts)
    props = {p.get("name"): p.get("value") for p in out.iter("property")}
    assert props == {"bucket": "mandatory_success", "attempts": "failed,failed"}
    assert out.find("failure").get("message") == "boom"


def test_crash_without_report_is_synthesized():
    attempts = [Attempt("crashed", 0.0, None, "killed by signal 6 (SIGABRT)")]
    out = final_case(NODE, classify(["crashed"]), attempts)
    assert (out.get("classname"), out.get("name")) == ("suites.test_ops.TestOps", "test_add")
    assert "SIGABRT" in out.find("error").get("message")


def test_report_counts_and_atomic_write(tmp_path):
    tree = junit.report([case(), case("x")], "shard")
    path = tmp_path / "out" / "r.xml"
    junit.write(path, tree)
    suite = ET.parse(path).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "0")
    assert oct(path.stat().st_mode & 0o777) == "0o644"
