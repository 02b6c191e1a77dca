"""textedit.py: proposed edits made on a config's text (only the changed lines differ), diff paths."""

import difflib

from testing.proposals.textedit import apply_edits, diff_path, flip, render, unified


def test_apply_edits_yaml(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "test_suite_config:\n"
        "  files:\n"
        "    - path: t.py\n"
        "      tests:\n"
        "        - names: T::a\n"
        "          mode: xfail\n"
        "          reason: old bug\n"
        "        - names: T::b\n"
        "          mode: xfail\n"
        "          reason: flaky numerics\n"
    )
    before, after = apply_edits(str(cfg), [("flip", 5, "T::a_x", "n"), ("add", 8, "T::b_x", "m")])
    assert after == (
        "test_suite_config:\n"
        "  files:\n"
        "    - path: t.py\n"
        "      tests:\n"
        "        - names: T::a\n"
        "          mode: mandatory_success\n"
        "        - names: T::b\n"
        "          mode: xfail\n"
        "          reason: flaky numerics\n"
        '        - names: ["T::b_x"]  # promoted: passed in this run\n'
    )
    assert cfg.read_text() == before  # the config itself is not modified


# Torch Spyre's layout: names indented 4 under the dash, comments as reasons, a global after the files.
SPYRE_STYLE = """\
test_suite_config:

  files:
    - path: ${TORCH_ROOT}/test/test_unary_ufuncs.py
      unlisted_test_mode: skip
      tests:
        # They are classified as xfail due to unsupported dtypes.
        - names:
            - TestUnaryUfuncs::test_abs_zero
            - TestUnaryUfuncs::test_exp
          mode: xfail  # xfail: torch._inductor.exc.InductorError
        - names:
            - TestUnaryUfuncs::test_frexp
          mode: xfail
          reason: >-
            frexp is not implemented
            on the device

  global:
    supported_dtypes:
      - name: float16
"""


def test_only_changed_lines_differ_in_a_file_indented_its_own_way(tmp_path):
    cfg = tmp_path / "spyre.yaml"
    cfg.write_text(SPYRE_STYLE)
    before, after = apply_edits(
        str(cfg),
        [
            ("flip", 8, "TestUnaryUfuncs::test_abs_zero_cpu_float32", "n"),
            ("flip", 12, "TestUnaryUfuncs::test_frexp_cpu_float32", "n"),
            ("add", 8, "TestUnaryUfuncs::test_exp_cpu_float16", "m"),
        ],
    )
    changed = [
        x
        for x in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if x[:1] in "+-" and not x.startswith(("+++", "---"))
    ]
    assert changed == [
        "-          mode: xfail  # xfail: torch._inductor.exc.InductorError",
        "+          mode: mandatory_success",
        "-          mode: xfail",
        "-          reason: >-",
        "-            frexp is not implemented",
        "-            on the device",
        "+          mode: mandatory_success",
        '+        - names: ["TestUnaryUfuncs::test_exp_cpu_float16"]  # promoted: passed in this run',
    ]
    assert after.endswith("\n  global:\n    supported_dtypes:\n      - name: float16\n")


def test_flow_style_falls_back_to_a_round_trip(tmp_path):
    cfg = tmp_path / "flow.yaml"
    cfg.write_text(
        "test_suite_config:\n  files:\n    - path: t.py\n      tests: [{names: T::a, mode: xfail, reason: r}]\n"
    )
    _, after = apply_edits(str(cfg), [("flip", 4, "T::a_x", "n")])
    assert (
        "mode: mandatory_success" in after
        and "reason" not in after
        and after.startswith("test_suite_config:\n  files:\n")
    )


def test_diff_paths_are_relative_to_where_pytest_ran(tmp_path):
    assert diff_path(str(tmp_path / "configs" / "c.yaml"), str(tmp_path)) == "configs/c.yaml"
    assert diff_path("configs/c.yaml", str(tmp_path)) == "configs/c.yaml"
    assert diff_path(str(tmp_path / "c.yaml"), str(tmp_path / "sub")) == "../c.yaml"


def test_render_names_only_changed_configs_and_unified_takes_git_labels():
    assert render([("same.yaml", "a: 1\n", "a: 1\n")]) == ""
    assert render([("c.yaml", "a: 1\n", "a: 2\n")]) == "--- c.yaml\n+++ c.yaml\n@@ -1 +1 @@\n-a: 1\n+a: 2\n"
    labelled = unified("a/c.yaml", "a: 1\n", "a: 2\n", "b/c.yaml")
    assert labelled.startswith("--- a/c.yaml\n+++ b/c.yaml\n")


def test_flip_makes_the_entries_at_those_lines_mandatory():
    text = "test_suite_config:\n  files:\n    - path: t.py\n      tests:\n        - names: T::a\n          mode: skip\n          reason: crashed  # keep\n"
    assert flip(text, [5]) == (
        "test_suite_config:\n  files:\n    - path: t.py\n      tests:\n        - names: T::a\n          mode: mandatory_success\n"
    )
