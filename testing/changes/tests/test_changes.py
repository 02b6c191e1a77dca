"""The change map's reader, the diff parser and the pure selection (no torch, no git)."""

from __future__ import annotations

import json

import pytest

from testing.changes.changemap import (
    ChangeMapError,
    Feature,
    Function,
    Recorded,
    map_from_coverage,
    read_map,
    write_map,
)
from testing.changes.decide import select_tests
from testing.changes.diff import DiffError, earlier_lines, parse_diff, rebase
from testing.changes.only import Only, read_only, resolve, write_only

NN = "${TORCH_ROOT}/test/nn/test_flat.py"
EW = "${TORCH_ROOT}/test/test_ew.py"
FLAT = "torch/nn/modules/flatten.py"


def t(name: str, file: str = NN) -> str:
    return f"{file}::TestFlat::{name}"


FN = "torch/nn/functional.py"
INIT, FWD, RELU, OTHER = (t(f"test_{n}_spyre_float32") for n in ("init", "fwd", "relu", "other"))


def small_map(**kw):
    functions = (
        Function(FLAT, "Flatten.__init__", 10, 14, True),
        Function(FLAT, "Flatten.forward", 16, 20, True),
        Function(FN, "relu", 5, 9, True),
        Function(FN, "register", 30, 32, False),
    )
    tests = {
        INIT: Recorded(1.0, frozenset({"aten::view"})),
        FWD: Recorded(2.0, frozenset({"aten::flatten"})),
        RELU: Recorded(3.0, frozenset({"aten::relu"})),
        OTHER: Recorded(4.0, frozenset({"aten::add.Tensor"})),
    }
    feat = Feature({"${REPO_ROOT}/nn.yaml": "c1"}, {NN: "h1"}, tests, (OTHER,))
    # __init__'s body 11-14 runs in test_init only up to line 12 (13-14: a branch no test takes);
    # forward's 17-18 in both; relu's in test_relu; register (30-32) and module level at import
    coverage = {
        "nn": {
            FLAT: {10: {INIT}, 11: {INIT}, 12: {INIT}, 17: {INIT, FWD}, 18: {INIT, FWD}},
            FN: {6: {RELU}, 7: {RELU}},
        }
    }
    args = dict(
        torch_version="2.13.0+cpu",
        core_git_version="a" * 40,
        suite_sha="b" * 40,
        functions=functions,
        features={"nn": feat},
        ops_recorded=True,
    )
    args.update(kw)
    return map_from_coverage(coverage, {FLAT: [1, 2, 3, 40], FN: [1, 30, 31, 32]}, **args)


def diff(path: str, old: str, new: str = "", status: str = "", lines: str = "-x\n+y\n") -> str:
    head = f"diff --git a/{path} b/{path}\n"
    if status == "A":
        head += "new file mode 100644\n"
    return head + f"--- a/{path}\n+++ b/{path}\n@@ -{old} +{new or old} @@\n{lines}"


def pick(text: str, m=None, files=None, configs=None, **kw):
    m = m or small_map()
    files = files if files is not None else {NN: "h1"}
    return select_tests(m, "nn", parse_diff(text), files, configs or {"/elsewhere/nn.yaml": "c1"}, **kw)


def test_round_trip_and_shared_sets(tmp_path):
    m = small_map()
    path = write_map(tmp_path / "map.json", m)
    back = read_map(path)
    assert back == m and back.features["nn"].tests == m.features["nn"].tests
    assert back.functions_of(FLAT) == (0, 1)
    assert [(r.start, r.end) for r in back.lines[FLAT]] == [(10, 12), (17, 18)]  # runs of equal tests
    assert len(json.loads(path.read_text())["sets"]) == 3
    assert back.import_lines[FN] == ((1, 1), (30, 32))


@pytest.mark.parametrize(
    "content, words",
    [
        (None, "no change map at"),
        ("{", "not JSON"),
        ('{"format": 99}', "format 99"),
        ('{"format": 3}', "corrupt"),
        ('{"format": 2}', "format 2, this reader reads 3"),
    ],
)
def test_bad_map_is_one_line(tmp_path, content, words):
    path = tmp_path / "map.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ChangeMapError) as err:
        read_map(path)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_python_line_change_selects_the_tests_that_ran_it():
    s = pick(diff(FLAT, "11", "11"))
    assert not s.full
    assert s.tests == {INIT, OTHER}  # + the sentinel
    assert s.line().startswith("selected 2 of 4 tests (50.0 % of recorded time): ")
    assert "flatten.py:11 Flatten.__init__" in s.line() and "sentinels (1)" in s.line()
    both = pick(diff(FLAT, "17", "17"))
    assert both.tests == {INIT, FWD, OTHER}


def test_a_line_no_test_ran_selects_only_sentinels():
    s = pick(diff(FLAT, "13", "13"))  # inside __init__, a branch none of them takes
    assert not s.full and s.tests == {OTHER} and "no test executes the changed lines" in s.line()


def test_a_comment_hunk_is_inert():
    s = pick(diff(FLAT, "40", "40", lines="-# old note\n+# new note\n"))
    assert not s.full and s.tests == {OTHER}


def test_core_file_no_test_runs_selects_nothing_but_sentinels():
    s = pick(diff("torch/_dynamo/eval_frame.py", "3", "3"))
    assert s.tests == {OTHER}
    assert "no test executes it" in s.line()


@pytest.mark.parametrize(
    "text, why",
    [
        (diff(FN, "31", "31"), f"{FN}:31 (register) runs at import or collection, before every test"),
        (diff(FLAT, "40", "40"), f"{FLAT}:40 (module level) runs at import or collection"),
        (diff("CMakeLists.txt", "3", "3"), "build or codegen file changed: CMakeLists.txt"),
        (diff("torch/csrc/autograd/engine.cpp", "3", "3"), "unmapped native code"),
        (diff("test/common_helpers.py", "3", "3"), "test helper changed"),
        (diff("README.unknown", "3", "3"), "unmapped change"),
    ],
)
def test_unexplained_changes_run_the_full_leg(text, why):
    s = pick(text)
    assert s.full and s.selected == s.total == 4
    assert why in s.line() and s.line().startswith("full leg (4 tests): ")


def test_a_new_core_module_is_explained_by_its_importers():
    new = diff("torch/nn/newmod.py", "0,0", "1", "A")
    alone = pick(new)
    assert not alone.full and "new core file nothing imports: torch/nn/newmod.py" in alone.line()
    importer = f"diff --git a/{FLAT} b/{FLAT}\n@@ -11,0 +12 @@\n+        from torch.nn import newmod\n"
    both = pick(new + importer)
    assert "imported by changed torch/nn/modules/flatten.py" in both.line()
    assert INIT in both.tests  # through the importer's own change


def test_native_changes_map_through_ops():
    yaml = "aten/src/ATen/native/native_functions.yaml"
    text = f"diff --git a/{yaml} b/{yaml}\n@@ -5,1 +5,1 @@\n-- func: relu(Tensor self) -> Tensor\n+- func: relu(Tensor self) -> Tensor # x\n"
    s = pick(text)
    assert t("test_relu_spyre_float32") in s.tests and not s.full
    kernel = pick(diff("aten/src/ATen/native/Flatten.cpp", "3", "3"))
    assert t("test_fwd_spyre_float32") in kernel.tests and "aten::flatten" in kernel.line()
    no_ops = pick(diff("aten/src/ATen/native/Flatten.cpp", "3", "3"), m=small_map(ops_recorded=False))
    assert no_ops.full and "no aten-op part" in no_ops.line()


def test_test_file_change_selects_the_file_and_docs_are_inert():
    s = pick(diff("test/nn/test_flat.py", "3", "3") + diff("docs/x.md", "1", "1"))
    assert NN in s.files and len(s.tests) == 4 and not s.full
    other = pick(diff("test/test_unrelated.py", "3", "3"))
    assert other.tests == {t("test_other_spyre_float32")}


def test_stale_map_widens():
    s = pick("", files={NN: "changed-since"})
    assert NN in s.files and "map stale" in s.line()
    spans = pick(diff(FLAT, "13", "13"), file_level="map recorded on torch 2.13.0, running 2.14.1")
    assert {INIT, FWD} <= spans.tests and "file-level" in spans.line()  # lines cannot be trusted
    assert pick("", m=small_map(), files={NN: "h1"}).tests == {t("test_other_spyre_float32")}


def test_config_change_selects_its_feature():
    s = pick("", configs={"${REPO_ROOT}/nn.yaml": "c2"})
    assert len(s.tests) == 4 and not s.full and "config changed: nn.yaml" in s.line()


def test_unknown_feature_is_full():
    s = select_tests(small_map(), "other", [], {})
    assert s.full and "has no tests of other" in s.line()


def test_bad_diff():
    with pytest.raises(DiffError):
        parse_diff("hello\n")


def test_only_file_round_trip(tmp_path):
    (tmp_path / "test" / "nn").mkdir(parents=True)
    doc = resolve([t("test_init_spyre_float32")], [EW], {"${TORCH_ROOT}": tmp_path})
    only = read_only(str(write_only(tmp_path / "only.json", doc)))
    real = str((tmp_path / "test/nn/test_flat.py").resolve())
    assert only.keeps(real, "TestFlat", "test_init_spyre_float32")
    assert not only.keeps(real, "TestFlat", "test_fwd_spyre_float32")
    assert only.may_have(real, "TestFlat", "test_init") and not only.may_have(real, "TestFlat", "test_fwd")
    assert isinstance(only, Only) and only.keeps(str((tmp_path / "test/test_ew.py").resolve()), "X", "y")


def test_lines_renumbered_onto_an_earlier_commit():
    # earlier..later: 2 lines inserted after 3, earlier 6 modified (later 8), earlier 9-10 deleted
    (since,) = parse_diff(
        "diff --git a/f b/f\n@@ -3,0 +4,2 @@\n+a\n+b\n@@ -6 +8 @@\n-x\n+y\n@@ -9,2 +10,0 @@\n-p\n-q\n"
    )
    got = {line: earlier_lines(line, since.hunks) for line in (3, 4, 6, 8, 10, 11)}
    assert got == {3: (3, 3), 4: (3, 4), 6: (4, 4), 8: (6, 6), 10: (8, 8), 11: (11, 11)}
    (pr,) = parse_diff(diff(FLAT, "7", "7"))  # later line 7 = earlier line 5
    assert rebase(pr, since.hunks).old_lines() == [(5, 5)]
