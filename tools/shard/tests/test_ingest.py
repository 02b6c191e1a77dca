import json

import pytest

from testing.matrix.nodeids import junit_key, nodeid_from_junit
from tools.shard import ingest

JUNIT = """<?xml version="1.0"?>
<testsuites><testsuite name="pytest">
  <testcase classname="suites.test_ops.TestOpsPRIVATEUSE1" name="test_add_float32" time="0.25"/>
  <testcase classname="suites.test_ops" name="test_free[3]" time="1.5"><skipped/></testcase>
  <testcase classname="elsewhere.test_gone.TestG" name="test_g" time="2"/>
  <testcase classname="x" name="no_time"/>
</testsuite></testsuites>
"""


def test_junit_resolves_nodeids_against_root(tmp_path):
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "test_ops.py").write_text("")
    xml = tmp_path / "r.xml"
    xml.write_text(JUNIT)
    got = ingest.from_junit(xml, tmp_path)
    assert got == {
        "suites/test_ops.py::TestOpsPRIVATEUSE1::test_add_float32": 0.25,
        "suites/test_ops.py::test_free[3]": 1.5,
        "elsewhere.test_gone.TestG::test_g": 2.0,  # file unknown: stored under its JUnit key
    }


def test_junit_key_matches_pytest_mangling():
    assert junit_key("a/b/test_c.py::TestD::test_e[x-1]") == "a.b.test_c.TestD::test_e[x-1]"
    assert junit_key("test_c.py::test_e") == "test_c::test_e"


def test_junit_file_attribute_wins():
    assert nodeid_from_junit("a.test_b.TestC", "test_d", "a/test_b.py", None) == "a/test_b.py::TestC::test_d"


def test_a_wrapper_file_attribute_does_not_rename_the_test(tmp_path):
    # The plugin's generated methods report the wrapper's file: `update --from-testlogs` after
    # `tools/bazel test //testing:configs` recorded 1,282 new `testing/plugin/wrapping.py::...`
    # tests beside the 1,241 it should have updated.
    (tmp_path / "testing" / "suites").mkdir(parents=True)
    (tmp_path / "testing" / "suites" / "test_tensor_basics.py").write_text("")
    classname = "testing.suites.test_tensor_basics.TestTensorBasicsSPYRE"
    got = nodeid_from_junit(classname, "test_add_spyre_float32", "testing/plugin/wrapping.py", tmp_path)
    assert got == "testing/suites/test_tensor_basics.py::TestTensorBasicsSPYRE::test_add_spyre_float32"


def test_bad_xml_names_file_and_line(tmp_path):
    xml = tmp_path / "r.xml"
    xml.write_text("<testsuites>\n<testcase name='a' time='1'>\n</testsuites>")
    with pytest.raises(ingest.IngestError, match=r"r\.xml:3: not valid JUnit XML"):
        ingest.from_junit(xml)


def test_bad_time_is_named(tmp_path):
    xml = tmp_path / "r.xml"
    xml.write_text("<testsuite><testcase classname='a' name='t' time='soon'/></testsuite>")
    with pytest.raises(ingest.IngestError, match="time='soon'"):
        ingest.from_junit(xml)


@pytest.mark.parametrize(
    "doc",
    [
        {"tests": [{"nodeid": "a.py::t", "duration": 1.25, "outcome": "passed"}]},
        {"tests": {"a.py::t": {"duration": 1.25}}},
        {"durations": {"a.py::t": 1.25}},
    ],
)
def test_summary_layouts(tmp_path, doc):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    assert ingest.from_file(path) == {"a.py::t": 1.25}


def test_summary_without_durations_is_an_error(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"counts": {}}))
    with pytest.raises(ingest.IngestError, match="no per-test durations"):
        ingest.from_summary(path)
