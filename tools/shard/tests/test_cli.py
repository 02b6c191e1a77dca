import json
import sys

import pytest

from tools.shard import store
from tools.shard.cli import main

JUNIT = """<testsuites><testsuite>
<testcase classname="t" name="test_a" time="3.0"/>
<testcase classname="t" name="test_b" time="1.0"/>
<testcase classname="t" name="test_c" time="1.0"/>
<testcase classname="t" name="test_d" time="1.0"/>
</testsuite></testsuites>"""


@pytest.fixture
def timings(tmp_path):
    (tmp_path / "t.py").write_text("")
    xml = tmp_path / "r.xml"
    xml.write_text(JUNIT)
    path = tmp_path / "timings.json"
    assert main(["update", str(xml), "--timings", str(path), "--root", str(tmp_path)]) == 0
    return path


def test_update_records_nodeids(timings):
    assert store.load(timings).tests == {
        "t.py::test_a": 3.0,
        "t.py::test_b": 1.0,
        "t.py::test_c": 1.0,
        "t.py::test_d": 1.0,
    }


def test_plan_from_collect_only_output(timings, tmp_path, capsys):
    listing = tmp_path / "collected.txt"
    listing.write_text(
        "t.py::test_a\nt.py::test_b\nt.py::test_c\nt.py::test_d\n\n4 tests collected in 0.01s\n"
    )
    assert main(["plan", str(listing), "--shards", "2", "--timings", str(timings)]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["makespan"] == 3.0 and plan["ideal"] == 3.0
    assert [s["nodeids"] for s in plan["shards"]] == [
        ["t.py::test_a"],
        ["t.py::test_b", "t.py::test_c", "t.py::test_d"],
    ]


def test_matrix(timings, tmp_path, capsys):
    listing = tmp_path / "collected.txt"
    listing.write_text("t.py::test_a\nt.py::test_b\nt.py::test_c\nt.py::test_d\n")
    assert (
        main(
            [
                "matrix",
                "--timings",
                str(timings),
                "--shards",
                "2",
                "--compact",
                "--feature",
                f"op_add=//testing:op_add:{listing}",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "\n" not in out.strip()
    legs = json.loads(out)["include"]
    assert [(x["target"], x["shard_index"], x["estimated_seconds"]) for x in legs] == [
        ("//testing:op_add", 0, 3.0),
        ("//testing:op_add", 1, 3.0),
    ]


def test_bad_feature_spec_is_one_line(timings, capsys):
    assert main(["matrix", "--timings", str(timings), "--feature", "nonsense"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == "error: --feature 'nonsense': expected NAME=TARGET:NODEID_LIST_FILE"
    )


def test_bad_result_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.xml"
    bad.write_text("<testsuite>")
    assert main(["update", str(bad), "--timings", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "bad.xml:1" in err and "\n" not in err
    assert not (tmp_path / "t.json").exists()


def test_bad_shard_count_is_rejected(timings, capsys):
    with pytest.raises(SystemExit):
        main(["plan", "-", "--shards", "0", "--timings", str(timings)])
    assert "must be >= 1" in capsys.readouterr().err


def test_leg_passes_the_command_status_through():
    assert main(["leg", "--attempts", "1", "--", sys.executable, "-c", "raise SystemExit(3)"]) == 3
