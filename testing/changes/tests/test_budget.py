"""The ranked budget (testing/changes/budget.py) through the pure selection, on a small map:
a comparison helper every test runs, with a rare branch two tests take."""

from __future__ import annotations

import pytest

from testing.changes.budget import BudgetError, apply_budget, family, parse_share, round_robin
from testing.changes.changemap import Feature, Function, Recorded, map_from_coverage
from testing.changes.decide import select_tests
from testing.changes.diff import parse_diff

FILE = "${REPO_ROOT}/testing/suites/test_ops.py"
CMP = "torch/testing/_comparison.py"
REFS = "torch/_refs/__init__.py"


def t(name: str) -> str:
    return f"{FILE}::TestOps::{name}"


ADD32, ADD16, MUL32, MULI, SUB32, SUB16, VIEW = (
    t(n)
    for n in (
        "test_x_add_spyre_float32",
        "test_x_add_spyre_float16",
        "test_x_mul_spyre_float32",
        "test_x_mul_spyre_int32",
        "test_x_sub_spyre_float32",
        "test_x_sub_spyre_float16",
        "test_y_spyre",
    )
)
SENTINEL = t("test_quick_spyre")
REACHED = {ADD32, ADD16, MUL32, MULI, SUB32, SUB16, VIEW}


def budget_map():
    tests = {tid: Recorded(1.0) for tid in REACHED}
    tests[SENTINEL] = Recorded(0.1)
    feat = Feature({"${REPO_ROOT}/ops.yaml": "c"}, {FILE: "h"}, tests, (SENTINEL,))
    # compare(): line 11 runs in every test but the sentinel; the rare branch 15-16 only in
    # two tests (an integer and a float16 one); _refs.mul's line 31 only in the mul tests
    coverage = {
        "ops": {
            CMP: {11: set(REACHED), 12: set(REACHED), 15: {MULI, SUB16}, 16: {MULI, SUB16}},
            REFS: {31: {MUL32, MULI}},
        }
    }
    return map_from_coverage(
        coverage,
        {},
        torch_version="2.13.0+cpu",
        core_git_version="a" * 40,
        suite_sha="b" * 40,
        functions=(Function(CMP, "compare", 10, 20, True), Function(REFS, "mul", 30, 33, True)),
        features={"ops": feat},
    )


def change(path: str, line: int) -> str:
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -{line} +{line} @@\n-x\n+y\n"


def pick(text: str, budget, files=None):
    return select_tests(
        budget_map(), "ops", parse_diff(text), files or {FILE: "h"}, {"/x/ops.yaml": "c"}, budget=budget
    )


def test_without_a_budget_every_reached_test_runs():
    s = pick(change(CMP, 11), None)
    assert s.tests == REACHED | {SENTINEL} and s.cut is None
    assert "budget" not in s.line() and s.as_json()["budget"] is None


def test_a_wide_change_is_cut_to_the_budget_and_says_so():
    s = pick(change(CMP, 11), 0.25)  # 7.1 s recorded: 1.775 s, the sentinel's 0.1 s included
    assert SENTINEL in s.tests and len(s.tests - {SENTINEL}) == 1
    assert s.seconds <= 0.25 * 7.1
    assert s.line().startswith(
        "selected 2 of 8 tests (15.5 % of recorded time): budget 25 % of recorded time: "
        "ran 1 of 7 reached tests, ranked (cut 6, 84.5 % of recorded time); "
    )
    assert s.as_json()["budget"] == {
        "share": 0.25,
        "reached": 7,
        "kept": 1,
        "reached_seconds": 7.0,
        "kept_seconds": 1.0,
    }


def test_the_most_specific_tests_come_first():
    """The two tests that take compare()'s rare branch share its lines with fewer tests."""
    s = pick(change(CMP, 11), 0.4)  # 2.84 s: the sentinel and two of the reached tests
    assert s.tests == {SENTINEL, MULI, SUB16}


def test_the_fill_spreads_over_families_before_a_second_dtype():
    s = pick(change(CMP, 11), 0.6)  # 4.26 s: the sentinel and four reached tests
    ran = s.tests - {SENTINEL}
    assert len(ran) == 4 and len({family(x) for x in ran}) == 4


def test_a_budget_the_change_fits_in_cuts_nothing():
    s = pick(change(REFS, 31), 0.5)
    assert s.tests == {MUL32, MULI, SENTINEL} and s.cut is None and "budget" not in s.line()


def test_every_changed_line_keeps_a_test_past_the_budget():
    both = change(CMP, 11) + change(REFS, 31)
    s = pick(both, 0.05)  # 0.355 s: less than one test, yet each changed line keeps one
    ran = s.tests - {SENTINEL}
    assert ran & {MUL32, MULI} and len(ran) == 1  # one mul test runs both lines
    assert "ran 1 of 7 reached tests" in s.line()


def test_sentinels_and_changed_test_files_are_never_cut():
    stale = pick(change(CMP, 11), 0.05, files={FILE: "other"})  # the map recorded other content: stale
    assert stale.tests == REACHED | {SENTINEL} and stale.cut is None  # the whole file is fixed
    assert SENTINEL in pick(change(CMP, 11), 0.01).tests


def test_full_leg_fallbacks_are_not_budgeted():
    s = pick(change("CMakeLists.txt", 1), 0.1)
    assert s.full and s.cut is None and s.line().startswith("full leg (8 tests): build or codegen")


def test_apply_budget_is_deterministic_and_orders_by_rank():
    seconds = {"a_float32": 1.0, "a_float16": 1.0, "b_float32": 1.0, "c_float32": 2.0}
    kept, cut = apply_budget(seconds, [], [], seconds, 10.0, 0.2, {"b_float32": 1.0})
    assert kept == {"b_float32", "a_float16"} and cut.kept == 2 and cut.reached == 4
    assert round_robin(["a_float32", "a_float16", "b_float32"]) == ["a_float32", "b_float32", "a_float16"]


@pytest.mark.parametrize(
    "text, share", [(None, 0.25), ("25%", 0.25), ("0.1", 0.1), ("5%", 0.05), ("off", None), ("100%", None)]
)
def test_parse_share(text, share):
    assert parse_share(text) == share


@pytest.mark.parametrize("text, words", [("abc", "a share of"), ("0", "above 0"), ("150%", "at most 100 %")])
def test_a_bad_budget_is_one_line(text, words):
    with pytest.raises(BudgetError, match=words):
        parse_share(text)


def test_family_strips_the_dtype_only():
    assert family(ADD32) == family(ADD16) == t("test_x_add_spyre")
    assert family(t("test_x_view_as_complex_spyre_complex64")) == t("test_x_view_as_complex_spyre")
    assert family(VIEW) == VIEW
    assert family(t("test_x_float_power_spyre_float32")) == t("test_x_float_power_spyre")


# ------------------------------------------------------------------ tests that cannot fail
CHEAP, DEAR, STRICT, SKIPPED = (
    t(n) for n in ("test_mha_train_spyre", "test_mha_eval_spyre", "test_s_spyre", "test_k_spyre")
)
INIT = "torch/nn/init.py"


def mode_map(modes: dict):
    """One changed line reached by a cheap test and a dear one (the MultiheadAttention pair:
    the cheap one in `xfail`), in a leg whose other tests make the pair far over 25 %."""
    seconds = {CHEAP: 1.0, DEAR: 4.0, STRICT: 1.0, SKIPPED: 0.0, SENTINEL: 0.1}
    seconds.update({t(f"test_other{i}_spyre"): 1.0 for i in range(6)})
    tests = {tid: Recorded(s, mode=modes.get(tid, "mandatory_success")) for tid, s in seconds.items()}
    feat = Feature({"${REPO_ROOT}/ops.yaml": "c"}, {FILE: "h"}, tests, (SENTINEL,))
    reach = {CHEAP, DEAR, STRICT, SKIPPED} if STRICT in modes else {CHEAP, DEAR, SKIPPED}
    coverage = {"ops": {INIT: {5: reach}}}
    return map_from_coverage(
        coverage,
        {},
        torch_version="2.13.0+cpu",
        core_git_version="a" * 40,
        suite_sha="b" * 40,
        functions=(Function(INIT, "xavier_uniform_", 4, 8, True),),
        features={"ops": feat},
    )


def pick_modes(modes: dict, budget=0.25):
    return select_tests(
        mode_map(modes), "ops", parse_diff(change(INIT, 5)), {FILE: "h"}, {"/x/ops.yaml": "c"}, budget=budget
    )


def test_a_changed_line_keeps_the_dear_mandatory_test_over_the_cheap_xfail_one():
    s = pick_modes({CHEAP: "xfail", SKIPPED: "skip"})
    assert DEAR in s.tests and CHEAP not in s.tests and SKIPPED not in s.tests
    assert s.cut is not None and "ran 1 of 3 reached tests" in s.line()
    # with the modes unknown (a map without them) the cheap one covered the line alone
    unknown = pick_modes({CHEAP: "", DEAR: "", SKIPPED: ""})
    assert CHEAP in unknown.tests and DEAR not in unknown.tests


def test_an_xfail_strict_test_can_fail_and_covers_the_line():
    s = pick_modes({CHEAP: "xfail", STRICT: "xfail_strict", SKIPPED: "skip"})
    # the strict one covers the line (an XPASS fails it); the xfail one fills time left over
    assert STRICT in s.tests and DEAR not in s.tests and SKIPPED not in s.tests
    assert s.cut is not None and s.cut.kept == 2


def test_tests_that_cannot_fail_run_only_with_time_left_and_skips_never():
    seconds = {"x_float32": 1.0, "m_float32": 1.0, "m_float16": 1.0, "s_float32": 0.0}
    modes = {"x_float32": "xfail", "s_float32": "skip"}
    kept, cut = apply_budget(seconds, [], [], seconds, 10.0, 0.2, {"x_float32": 9.0}, modes)
    assert kept == {"m_float32", "m_float16"} and cut.reached == 4  # xfail ranked last, skip never
    kept, _ = apply_budget(seconds, [], [], seconds, 10.0, 0.3, {"x_float32": 9.0}, modes)
    assert kept == {"m_float32", "m_float16", "x_float32"}  # time left after every one that can fail


def test_a_line_only_tests_that_cannot_fail_reach_keeps_none_of_them():
    seconds = {"x_float32": 1.0, "m_float32": 1.0, "n_float32": 8.0}
    kept, _ = apply_budget(
        seconds, [], [frozenset({"x_float32"})], seconds, 10.0, 0.15, {}, {"x_float32": "xfail"}
    )
    assert kept == {"m_float32"}
