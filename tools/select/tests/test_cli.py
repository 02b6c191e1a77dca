"""The CLI end to end on the fixture suite (no trace: symbols + embeddings only) and its errors."""

import json
import shutil

import pytest

from tools.select import cli  # noqa: E402


def _run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_help_lists_every_stage(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    for stage in ("scope", "memory", "bucket", "refine", "delta", "query"):
        assert stage in text


def test_scope_memory_bucket_refine(capsys, tmp_path, fixtures, suite_copy, monkeypatch):
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(suite_copy))
    monkeypatch.setenv("BUILD_WORKING_DIRECTORY", str(suite_copy))
    caps = str(fixtures / "caps_small.json")
    scope_file = tmp_path / "scope.yaml"
    scope_file.write_text("scope:\n  features:\n    compile: out\n")
    code, out, _ = _run(
        capsys,
        "scope",
        "--capabilities",
        caps,
        "--scope",
        str(scope_file),
        "--suites",
        "suite/test_*.py",
        "--out",
        str(tmp_path / "record.yaml"),
    )
    assert code == 0 and "1 of 1 files chosen" in out
    db = str(tmp_path / "m.db")
    code, out, err = _run(
        capsys,
        "memory",
        "--db",
        db,
        "--suites",
        "suite/test_*.py",
        "--no-progress",
        "--jobs",
        "1",
        "--capabilities",
        caps,
    )
    assert code == 0 and "1 files (1 changed), 4 tests" in out
    # per op, the dtypes its table entry lists: add/mul/abs/cumsum float32+int64, exp float32;
    # test_matmul_square float32, test_where_plain once; test_backward_sum (autograd is out) never
    assert "11 traced" in out
    assert "it/s" not in err and "\r" not in err and "%|" not in err  # --no-progress: no bar at all
    config = tmp_path / "cfg.yaml"
    code, out, _ = _run(
        capsys,
        "bucket",
        "--db",
        db,
        "--capabilities",
        caps,
        "--scope-record",
        str(tmp_path / "record.yaml"),
        "--out",
        str(config),
        "--decisions-out",
        str(tmp_path / "d.json"),
    )
    assert code == 0 and "stage 3: 8 units" in out
    decisions = json.loads((tmp_path / "d.json").read_text())
    backward = next(v for k, v in decisions.items() if k.endswith("test_backward_sum"))
    assert backward["mode"] == "skip" and "autograd" in backward["rationale"]  # backend declares no autograd
    mm = next(v for k, v in decisions.items() if k.endswith("test_matmul_square"))
    assert mm["mode"] == "skip" and "mm" in mm["rationale"]
    code, out, _ = _run(capsys, "query", "--db", db, "aten::cumsum")
    assert code == 0 and out.strip().endswith("test_matches_cpu[cumsum]")
    for spelling in ("aten::add", "add", "add.Tensor", "aten.add.Tensor"):
        code, out, _ = _run(capsys, "query", "--db", db, spelling)
        assert code == 0 and "test_matches_cpu[add]" in out, spelling
    code, out, err = _run(capsys, "query", "--db", db, "aten::no_such_op")
    assert code == 1 and out == "" and "aten::no_such_op: no traced test runs this op" in err
    _query_into_closed_pipe(db)
    code, out, err = _run(capsys, "refine", "--config", str(config), "--junit", str(fixtures / "run.xml"))
    assert code == 0 and "review the diff" in err


def test_errors_are_one_line(capsys, tmp_path, fixtures):
    code, _, err = _run(
        capsys, "bucket", "--db", str(tmp_path / "none.db"), "--capabilities", "x.json", "--out", "o.yaml"
    )
    assert code == 2 and err.count("\n") == 1 and "x.json: cannot read capabilities" in err
    code, _, err = _run(
        capsys,
        "bucket",
        "--db",
        str(tmp_path / "none.db"),
        "--capabilities",
        str(fixtures / "caps_small.json"),
        "--out",
        "o.yaml",
    )
    assert code == 2 and err.count("\n") == 1 and "no memory yet" in err
    code, _, err = _run(
        capsys, "refine", "--config", str(tmp_path / "missing.yaml"), "--junit", str(tmp_path / "r.xml")
    )
    assert code == 2 and "cannot read JUnit XML" in err and err.count("\n") == 1
    code, _, err = _run(
        capsys, "bucket", "--db", str(tmp_path / "none.db"), "--engine", "llm", "--out", "o.yaml"
    )
    assert code == 2


def _query_into_closed_pipe(db):
    """`select query ... | head` where head has already left: no traceback, exit 141."""
    import os
    import subprocess
    import sys

    read, write = os.pipe()
    os.close(read)
    proc = subprocess.run(
        [sys.executable, "-m", "tools.select.cli", "query", "--db", db, "add"],
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
    )
    os.close(write)
    assert proc.returncode == 141 and "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr


def test_progress_bars_show_unless_silenced(capsys, tmp_path, fixtures, suite_copy, monkeypatch):
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(suite_copy))
    monkeypatch.setenv("BUILD_WORKING_DIRECTORY", str(suite_copy))
    code, _, err = _run(
        capsys, "memory", "--db", str(tmp_path / "a.db"), "--suites", "suite/test_*.py", "--no-trace"
    )
    assert code == 0 and "index" in err and "file" in err
    code, _, err = _run(
        capsys,
        "memory",
        "--db",
        str(tmp_path / "b.db"),
        "--suites",
        "suite/test_*.py",
        "--no-trace",
        "--no-progress",
    )
    assert code == 0 and "index" not in err and "%|" not in err


def test_a_narrower_memory_run_names_what_it_would_drop_and_needs_forget(
    capsys, tmp_path, suite_copy, monkeypatch
):
    # A second run over fewer files silently dropped every other file's tests and traces.
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(suite_copy))
    monkeypatch.setenv("BUILD_WORKING_DIRECTORY", str(suite_copy))
    shutil.copy(suite_copy / "suite" / "test_fixture_ops.py", suite_copy / "suite" / "test_other.py")
    db = tmp_path / "m.db"
    base = ["memory", "--db", str(db), "--no-trace", "--no-progress", "--suites"]
    code, _, err = _run(capsys, *base, "suite/test_*.py")
    assert code == 0, err
    from tools.select.memory.store import Memory

    before = Memory(db).counts()
    code, _, err = _run(capsys, *base, "suite/test_fixture_ops.py")
    assert code == 2
    last = err.strip().splitlines()[-1]
    assert "the memory also holds 1 others (" in last and "test_other.py" in last, err
    assert "add --forget" in last
    assert Memory(db).counts() == before  # nothing dropped
    code, out, err = _run(capsys, *base, "suite/test_fixture_ops.py", "--forget")
    assert code == 0, err
    assert (tmp_path / "m.db.prev").is_file() and "keeping the previous version" in err
    assert Memory(db).file_paths() == ["${REPO_ROOT}/suite/test_fixture_ops.py"]
    assert "${REPO_ROOT}/suite/test_other.py" in Memory(tmp_path / "m.db.prev").file_paths()


def test_bucket_replaces_an_existing_config_only_when_told(capsys, tmp_path):
    config = tmp_path / "mine.yaml"
    config.write_text("test_suite_config:\n  files: []\n")
    argv = ["bucket", "--db", str(tmp_path / "none.db"), "--capabilities", "x.json", "--out", str(config)]
    code, _, err = _run(capsys, *argv)
    assert code == 2 and "exists (2 lines) and bucket would replace it: nothing written" in err
    assert config.read_text() == "test_suite_config:\n  files: []\n"
    code, _, err = _run(capsys, *argv, "--replace")  # then the next problem: no capabilities file
    assert code == 2 and (tmp_path / "mine.yaml.prev").read_text() == config.read_text()
