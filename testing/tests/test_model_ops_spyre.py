"""Model-op configs (Torch Spyre's two shapes, written here: model_ops/*.yaml) run by the in-tree
model-op suite on the real spyre device, in pytest subprocesses with configs/spyre/device.yaml."""

import json
import os
import xml.etree.ElementTree as ET

import pytest

from testing.plugin.tests.helpers import REPO_ROOT
from testing.tests.spyre_helpers import run_plugin

HERE = os.path.join(REPO_ROOT, "testing", "tests", "model_ops")
SUITE = os.path.join(REPO_ROOT, "testing", "suites", "test_model_ops.py")
DEVICE = os.path.join(REPO_ROOT, "configs", "spyre", "device.yaml")


def run(tmp_path, *configs, args=()):
    paths = [DEVICE] + [os.path.join(HERE, c) if "/" not in c else c for c in configs]
    return run_plugin(tmp_path, REPO_ROOT, paths, ["-rA", *args], [SUITE])


def outcomes(result) -> dict[str, str]:
    """{generated test name: PASSED/FAILED/SKIPPED/XFAIL/...} from the -rA short summary."""
    out = {}
    for line in result.stdout.splitlines():
        word = line.split(" ", 1)[0]
        if word in ("PASSED", "FAILED", "XFAIL", "XPASS", "ERROR") and "::" in line:
            out[line.split("::")[-1].split()[0]] = word
    return out


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("both")
    summary, junit = tmp / "s.json", tmp / "j.xml"
    result = run(
        tmp, "tinybert.yaml", "legacy.yaml", args=(f"--oot-summary={summary}", f"--junitxml={junit}")
    )
    return result, json.loads(summary.read_text()), ET.parse(junit)


def test_both_shapes_load_and_every_case_is_one_test(both):
    result, summary, _ = both
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr  # the exp mismatch fails
    got = outcomes(result)
    assert got["test_model_ops_db_nn_functional_linear_tinybert_1_spyre_float32"] == "PASSED"
    assert got["test_model_ops_db_mul_tinybert_1_spyre_float32"] == "PASSED"  # strided view, offset 3
    assert got["test_model_ops_db_to_tinybert_1_spyre_int64"] == "PASSED"  # cuda:0 -> spyre, cpu tensor stays
    assert got["test_model_ops_db_arange_tinybert_1_spyre_float32"] == "PASSED"  # device kwarg mapped
    assert got["test_model_ops_db_exp_tinybert_1_spyre_float32"] == "FAILED"
    legacy = {k for k, v in got.items() if "legacy_net" in k and v == "PASSED"}
    assert len(legacy) == 4, got  # model, defaults (fp16, seed, atol/rtol), attrs, kwmap, py
    names = {t["variant"] for t in summary["tests"]}
    assert len(names) == 17  # 13 tinybert + 4 legacy cases, one test each


def test_per_model_report_in_summary_and_junit(both):
    _, summary, junit = both
    models = {m["model"]: m for m in summary["models"]}
    tiny = models["tinybert"]
    assert (tiny["cases"], tiny["passed"], tiny["mismatched"], tiny["unsupported"], tiny["skipped"]) == (
        13,
        9,
        1,
        1,
        2,
    )
    assert tiny["max_abs_error"] > 0 and tiny["mismatches"][0]["case"] == "exp.tinybert_1"
    assert models["legacy_net"]["passed"] == 4
    props = {p.get("name"): p.get("value") for p in junit.getroot().iter("property")}
    assert props["model.tinybert"].startswith("model tinybert: 13 cases: 9 passed, 0 failed, 1 mismatched")
    case = next(t for t in summary["tests"] if t["variant"].startswith("test_model_ops_db_exp_"))
    assert case["case_outcome"] == "mismatched" and float(case["max_rel_error"]) > 0


def test_bad_cases_warn_with_file_line_and_skip_with_the_reason(both):
    result, summary, _ = both
    tiny = os.path.join(HERE, "tinybert.yaml")
    problems = "\n".join(summary["config_problems"])
    assert (
        f"{tiny}:96: edits.ops.include: unknown callable 'torch.not_a_function': the case skips" in problems
    )
    assert (
        f"{tiny}:100: edits.ops.include: 'torch.neg': args[0]: stride [4, 1]/storage_offset 2 reach element 17"
        in problems
    )
    assert "unknown key(s) args[0].'sparkle' (ignored)" in problems
    reasons = {t["variant"]: t.get("case_outcome") for t in summary["tests"]}
    assert reasons["test_model_ops_db_sin_tinybert_1_spyre_float64"] == "unsupported"  # spyre lacks float64
    assert "unsupported: spyre lacks dtype float64 (args[0])" in result.stdout
    assert "Traceback" not in result.stderr


def test_an_unsupported_case_says_the_refused_op_and_dtype_everywhere(both):
    result, summary, junit = both
    why = "unsupported: sin.tinybert_1 (float64): spyre lacks dtype float64 (args[0])"
    case = next(
        t for t in summary["tests"] if t["variant"] == "test_model_ops_db_sin_tinybert_1_spyre_float64"
    )
    assert case["message"] == why and case["case_reason"] == why
    assert f"  sin.tinybert_1: {why}" in result.stdout.splitlines()  # under the model's line
    junit_case = next(
        c for c in junit.getroot().iter("testcase") if c.get("name").endswith("sin_tinybert_1_spyre_float64")
    )
    props = {p.get("name"): p.get("value") for p in junit_case.iter("property")}
    assert props["case_reason"] == why


def test_marks_select_a_model_an_op_and_a_dtype_at_generation_time(tmp_path):
    for expr, want in (
        ("model__legacy_net or op__nn_functional_linear_tinybert_1", 5),
        ("dtype__float16 or op__nn_functional_linear", 5),
    ):
        result = run(tmp_path, "tinybert.yaml", "legacy.yaml", args=("--collect-only", "-q", "-m", expr))
        ids = [line for line in result.stdout.splitlines() if "::" in line]
        assert len(ids) == want, (expr, result.stdout[-2000:])
        assert "deselected" not in result.stdout  # filtered while generating, not after


def test_a_more_specific_entry_sets_one_case_bucket(tmp_path):
    cfg = tmp_path / "bucket.yaml"
    cfg.write_text(
        "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/testing/suites/test_model_ops.py\n      tests:\n"
        "        - names: [TestModelOps::test_model_ops_db_exp_tinybert_1_spyre_float32]\n"
        "          mode: xfail\n          reason: float16 rounding\n"
    )
    result = run(tmp_path, "tinybert.yaml", str(cfg), args=("-m", "model__tinybert"))
    got = outcomes(result)
    assert got["test_model_ops_db_exp_tinybert_1_spyre_float32"] == "XFAIL"
    assert result.returncode == 0, result.stdout[-2000:]


def test_a_case_that_kills_the_process_is_an_error_of_that_case_only(tmp_path):
    summary = tmp_path / "s.json"
    result = run(tmp_path, "crash.yaml", args=("--isolate", f"--oot-summary={summary}"))
    tests = {t["variant"]: t["outcome"] for t in json.loads(summary.read_text())["tests"]}
    assert tests == {
        "test_model_ops_db_ops_spyre__debug_crash_crashy_1_spyre_float32": "crashed",
        "test_model_ops_db_add_crashy_1_spyre_float32": "passed",
    }, result.stdout[-2000:]
    crashy = json.loads(summary.read_text())["models"][0]
    assert (crashy["cases"], crashy["passed"], crashy["failed"]) == (2, 1, 1)
