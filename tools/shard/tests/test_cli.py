import json
import sys
from pathlib import Path

import pytest

from testing.matrix import timings as timings_file
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
    assert timings_file.load(timings).tests == {
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
        == "python -m tools.shard: error: --feature 'nonsense': expected NAME=TARGET:NODEID_LIST_FILE"
    )


def test_bad_result_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.xml"
    bad.write_text("<testsuite>")
    assert main(["update", str(bad), "--timings", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("python -m tools.shard: error: ") and "bad.xml:1" in err and "\n" not in err
    assert not (tmp_path / "t.json").exists()


def test_bad_shard_count_is_rejected(timings, capsys):
    with pytest.raises(SystemExit):
        main(["plan", "-", "--shards", "0", "--timings", str(timings)])
    assert "must be >= 1" in capsys.readouterr().err


def test_leg_passes_the_command_status_through():
    assert main(["leg", "--attempts", "1", "--", sys.executable, "-c", "raise SystemExit(3)"]) == 3


def _junit(path, cases):
    body = "".join(f'<testcase classname="{c}" name="{n}" time="{t}"/>' for c, n, t in cases)
    path.write_text(f"<testsuites><testsuite>{body}</testsuite></testsuites>")
    return path


@pytest.fixture
def recorded(tmp_path):
    """Timings of two files: a.py with 40 tests, b.py with 3."""
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("")
    cases = [("a", f"test_{i}", 1.0) for i in range(40)] + [("b", f"test_{i}", 2.0) for i in range(3)]
    path = tmp_path / "timings.json"
    xml = _junit(tmp_path / "all.xml", cases)
    assert main(["update", str(xml), "--timings", str(path), "--root", str(tmp_path)]) == 0
    return path


def test_prune_names_what_it_would_drop_and_writes_nothing_without_drop(recorded, tmp_path, capsys):
    # The README's glob once cut 1,241 recorded tests to 76 with exit 0.
    before = recorded.read_bytes()
    xml = _junit(tmp_path / "b.xml", [("b", "test_0", 4.0), ("b", "test_1", 4.0)])
    capsys.readouterr()
    argv = ["update", "--prune", str(xml), "--timings", str(recorded), "--root", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "python -m tools.shard: error: --prune drops 1 of 43 recorded tests: b.py::test_2; "
        "nothing written, add --drop to drop them"
    )
    assert recorded.read_bytes() == before
    assert not timings_file.previous_path(recorded).exists()


def test_prune_with_drop_only_drops_tests_of_the_files_the_results_ran(recorded, tmp_path, capsys):
    before = recorded.read_bytes()
    xml = _junit(tmp_path / "b.xml", [("b", "test_0", 4.0), ("b", "test_1", 4.0)])
    argv = ["update", "--prune", "--drop", str(xml), "--timings", str(recorded), "--root", str(tmp_path)]
    assert main(argv) == 0
    tests = timings_file.load(recorded).tests
    assert len(tests) == 42 and "b.py::test_2" not in tests and "a.py::test_39" in tests
    assert timings_file.previous_path(recorded).read_bytes() == before
    out = capsys.readouterr()
    assert "--prune drops 1 of 43 recorded tests: b.py::test_2" in out.err
    assert "42 tests recorded (were 43); previous version in" in out.out


def _update_from_testlogs(recorded, workspace: Path, monkeypatch) -> int:
    """`update --from-testlogs bazel-testlogs` under `bazel run` in a workspace whose configs/
    holds spyre/ops.yaml (so its generated target is //testing:config_spyre_ops)."""
    (workspace / "configs" / "spyre").mkdir(parents=True, exist_ok=True)
    (workspace / "configs" / "spyre" / "ops.yaml").write_text("test_suite_config: {}\n")
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(workspace))
    monkeypatch.setenv("BUILD_WORKING_DIRECTORY", str(workspace))
    argv = [
        "update",
        "--from-testlogs",
        "bazel-testlogs",
        "--timings",
        str(recorded),
        "--root",
        str(workspace),
    ]
    return main(argv)


def test_from_testlogs_reads_only_the_generated_config_targets(recorded, tmp_path, monkeypatch, capsys):
    # `config_*/test.xml` also matched //testing:config_unit_test and folded its results in.
    logs = tmp_path / "bazel-testlogs" / "testing"
    for target in ("config_spyre_ops", "config_unit_test"):
        (logs / target).mkdir(parents=True)
    _junit(logs / "config_spyre_ops" / "test.xml", [("b", "test_0", 8.0)])
    _junit(logs / "config_unit_test" / "test.xml", [("testing.config.tests.test_load", "test_x", 0.1)])
    assert _update_from_testlogs(recorded, tmp_path, monkeypatch) == 0
    tests = timings_file.load(recorded).tests
    assert len(tests) == 43 and tests["b.py::test_0"] == 5.0
    assert "1 durations from 1 files folded in" in capsys.readouterr().out


def test_from_testlogs_reads_each_bazel_shard_of_a_sharded_config_target(
    recorded, tmp_path, monkeypatch, capsys
):
    # config_spyre_op_consistency has two Bazel shards: shard_1_of_2/test.xml, no test.xml above.
    target = tmp_path / "bazel-testlogs" / "testing" / "config_spyre_ops"
    for i, test in ((1, "test_0"), (2, "test_1")):
        (target / f"shard_{i}_of_2").mkdir(parents=True)
        _junit(target / f"shard_{i}_of_2" / "test.xml", [("b", test, 8.0)])
    assert _update_from_testlogs(recorded, tmp_path, monkeypatch) == 0
    assert "2 durations from 2 files folded in" in capsys.readouterr().out


def test_paths_are_read_where_the_user_stands_under_bazel_run(recorded, tmp_path, monkeypatch):
    here = tmp_path / "elsewhere"
    here.mkdir()
    _junit(here / "r.xml", [("b", "test_0", 2.0)])
    monkeypatch.setenv("BUILD_WORKING_DIRECTORY", str(here))
    monkeypatch.chdir("/")
    assert main(["update", "r.xml", "--timings", str(recorded), "--root", str(tmp_path)]) == 0
