"""promotion.py: which config edits a run proposes."""

import difflib

from testing.plugin.promotion import _apply, diff_path, plan_changes


def t(nodeid, outcome, rule=None, cls="T", variant=None):
    return {"nodeid": nodeid, "outcome": outcome, "rule": rule, "class": cls, "variant": variant or nodeid}


def test_flip_when_every_variant_passed_else_add_exact_variants():
    summary = {
        "tests": [
            t("a1", "xpassed", "c.yaml:5"),
            t("a2", "xpassed_strict", "c.yaml:5"),
            t("b1", "xpassed", "c.yaml:9"),
            t("b2", "xfailed", "c.yaml:9"),
            t("u1", "xpassed"),
            t("p", "passed", "c.yaml:3"),
        ]
    }
    changes = plan_changes(summary, lambda nodeid: ("c.yaml", 2))
    assert sorted(changes["c.yaml"]) == [
        ("add", 2, "T::u1", "u1"),
        ("add", 9, "T::b1", "b1"),
        ("flip", 5, "T::a1", "a1"),
        ("flip", 5, "T::a2", "a2"),
    ]


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
    before, after = _apply(str(cfg), [("flip", 5, "T::a_x", "n"), ("add", 8, "T::b_x", "m")])
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
    before, after = _apply(
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
    _, after = _apply(str(cfg), [("flip", 4, "T::a_x", "n")])
    assert (
        "mode: mandatory_success" in after
        and "reason" not in after
        and after.startswith("test_suite_config:\n  files:\n")
    )


def test_diff_paths_are_relative_to_where_pytest_ran(tmp_path):
    assert diff_path(str(tmp_path / "configs" / "c.yaml"), str(tmp_path)) == "configs/c.yaml"
    assert diff_path("configs/c.yaml", str(tmp_path)) == "configs/c.yaml"
    assert diff_path(str(tmp_path / "c.yaml"), str(tmp_path / "sub")) == "../c.yaml"
