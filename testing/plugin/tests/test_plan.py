"""config.py: parsing, file:line errors, paths, merging."""

import pytest

from testing.base.errors import ConfigError
from testing.config.modes import Mode
from testing.config.paths import default_roots
from testing.plugin.plan import load_plan


def load(*paths, **roots):
    return load_plan(list(paths), dict(default_roots(), **roots))


def error_of(*paths, **roots) -> str:
    with pytest.raises(ConfigError) as exc:
        load(*paths, **roots)
    return str(exc.value)


def test_loads_files_rules_and_defaults(write_yaml, tmp_path):
    path = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/test_a.py
              tests:
                - names: [TestA::test_x, "TestA::test_y*"]
                - names: TestA::test_z
                  mode: xfail
                  reason: known bug
                  tags: [slow]
          global:
            supported_ops: [add, {{name: mul, dtypes: [float32]}}]
    """)
    plan = load(path)
    fp = plan.file_plan(str(tmp_path / "test_a.py"))
    assert fp.unlisted_mode == Mode.skip  # the documented default
    assert [r.patterns for r in fp.rules] == [("TestA::test_x", "TestA::test_y*"), ("TestA::test_z",)]
    assert fp.rules[1].loc.line == 7
    assert set(plan.ops) == {"add", "mul"} and plan.dtypes is None
    assert plan.tags == {"slow"}


@pytest.mark.parametrize(
    "body, expected",
    [
        ("  bogus: 1\n", "cfg.yaml:3: bogus: unknown key 'bogus'"),
        (
            "  files:\n    - path: a.py\n      tests:\n        - names: x\n          mode: xfal\n",
            "cfg.yaml:7: files[0].tests[0].mode: bad value 'xfal'",
        ),
        (
            "  files:\n    - path: ${TORCH_ROOT}/test/test_x.py\n",
            "cfg.yaml:4: path: ${TORCH_ROOT} is not set",
        ),
        (
            "  files:\n    - path: a.py\n      tests:\n        - names: x\n          mode: xfial\n",
            "cfg.yaml:7: files[0].tests[0].mode: bad value 'xfial'",
        ),
        ("  files: [\n", "cfg.yaml:4: YAML syntax error"),
    ],
)
def test_errors_name_file_line_and_key(write_yaml, monkeypatch, body, expected):
    monkeypatch.delenv("TORCH_ROOT", raising=False)
    path = write_yaml("\ntest_suite_config:\n" + body)
    message = error_of(path)
    assert expected in message
    assert "\n" not in message


def test_missing_top_level_key(write_yaml):
    assert "missing top-level key 'test_suite_config'" in error_of(write_yaml("files: []\n"))


def test_paths_expand_roots(write_yaml, tmp_path):
    path = write_yaml("""
        test_suite_config:
          files:
            - path: ${TORCH_ROOT}/test/test_view_ops.py
            - path: ${REPO_ROOT}/testing/suites/*.py
    """)
    plan = load(path, TORCH_ROOT=str(tmp_path))
    assert plan.file_plan(str(tmp_path / "test" / "test_view_ops.py")) is not None
    assert plan.file_plan(default_roots()["REPO_ROOT"] + "/testing/suites/test_noncontiguous.py") is not None


def problems_of(plan, severity=None, paths=False) -> list[str]:
    """Problems as text; the test files these configs name mostly do not exist, so the
    'matches no file' warnings are left out unless asked for."""
    return [
        str(p)
        for p in plan.problems
        if (severity is None or p.severity == severity) and (paths or p.key != "path")
    ]


def test_merge_unions_and_a_later_file_wins(write_yaml, tmp_path):
    a = write_yaml(
        f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests: [{{names: T::a}}]
          global: {{supported_ops: [add], backend: mod_a}}
    """,
        "a.yaml",
    )
    b = write_yaml(
        f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests: [{{names: T::b}}]
          global: {{supported_ops: [mul]}}
    """,
        "b.yaml",
    )
    plan = load(a, b)
    assert [r.patterns for r in plan.files[0].rules] == [("T::a",), ("T::b",)]
    assert set(plan.ops) == {"add", "mul"} and plan.global_.backend == "mod_a"
    assert problems_of(plan) == []

    # the same name with the same selectors in a later file: that entry wins, with a warning
    c = write_yaml(
        f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests: [{{names: T::a, mode: skip, reason: r}}]
    """,
        "c.yaml",
    )
    plan = load(a, c)
    assert [(r.patterns, r.entry.mode) for r in plan.files[0].rules] == [(("T::a",), Mode.skip)]
    assert any(
        "c.yaml:5: names: duplicate entry 'T::a' (also at" in p and "a.yaml:5" in p
        for p in problems_of(plan, "warning")
    )
    # scalars: the later file wins, with a warning
    d = write_yaml("test_suite_config:\n  global: {backend: mod_b}\n", "d.yaml")
    plan = load(a, d)
    assert plan.global_.backend == "mod_b"
    assert problems_of(plan, "warning") == [
        f"{d}:1: global.backend: 'mod_b' overrides 'mod_a' of an earlier config (later wins)"
    ]
    # specs: key by key, so what the later file leaves out is kept (a hygiene note, not a warning)
    e = write_yaml(
        "test_suite_config:\n  global:\n    supported_ops: [{name: add, reason: x, force_xfail: true}]\n",
        "e.yaml",
    )
    plan = load(a, e)
    assert plan.ops["add"].spec.force_xfail and plan.ops["add"].spec.reason == "x"
    assert [p for p in problems_of(plan, "hygiene") if "e.yaml:3: global.supported_ops: 'add' also at" in p]


def test_a_feature_configs_global_merges_with_the_device_config(write_yaml):
    device = write_yaml(
        """
        test_suite_config:
          global:
            backend: mod
            supported_dtypes:
              - {name: float32, precision: {atol: 1.0e-3, rtol: 2.0e-3}}
              - int64
    """,
        "device.yaml",
    )
    feature = write_yaml(
        """
        test_suite_config:
          global:
            supported_dtypes:
              - name: float32
              - name: float16
                precision: {atol: 0.01}
              - name: int64
                force_xfail: true
    """,
        "feature.yaml",
    )
    plan = load(device, feature)
    dt = {n: x.spec for n, x in plan.dtypes.items()}
    assert dt["float32"].precision.atol == 1.0e-3  # a bare name keeps the device's precision
    assert dt["float16"].precision.atol == 0.01 and dt["int64"].force_xfail
    assert problems_of(plan, "warning") == []


def test_reasons_come_from_the_nearest_comment(write_yaml, tmp_path):
    path = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests:
                - names:
                    - T::a
                  mode: xfail  # xfail: InductorError
                ##########################
                # segfaults on the device
                # (heap corruption)
                - names: [T::b]
                  mode: skip
                - names: # block list, one reason per name
                    - T::c   # aten::index not implemented
                    - T::d
                  mode: skip
                - names: T::e
                  mode: xfail
                  reason: explicit wins  # not this
          global:
            supported_ops:
              - name: mul
                force_xfail: true  # mul rounds differently
    """)
    plan = load(path)
    rules = plan.files[0].rules
    assert [r.reason for r in rules] == [
        "xfail: InductorError",
        "segfaults on the device (heap corruption)",
        "block list, one reason per name",
        "explicit wins",
    ]
    assert rules[2].reason_for("T::c") == "aten::index not implemented"
    assert rules[2].reason_for("T::d") == "block list, one reason per name"
    assert plan.ops["mul"].reason == "mul rounds differently"
    hygiene = problems_of(plan, "hygiene")
    assert f"{path}:6: reason: mode 'xfail': 'reason' only in a comment ('xfail: InductorError')" in hygiene
    assert len([p for p in hygiene if ": reason: " in p]) == 3  # e has its key
    assert [p for p in hygiene if "'mul': force_xfail without a 'reason'" in p]
    assert problems_of(plan, "warning") == []


def test_missing_reasons_load_and_are_hygiene_problems(write_yaml, tmp_path):
    path = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              unlisted_test_mode: xfail
              tests:
                - names: T::a
                  mode: xfail_strict
            - path: {tmp_path}/u.py
              collect: false
    """)
    plan = load(path)
    assert plan.files[0].rules[0].reason is None
    assert sorted(problems_of(plan, "hygiene")) == sorted(
        [
            f"{path}:7: reason: mode 'xfail_strict': 'reason' missing",
            f"{path}:4: unlisted_reason: unlisted_test_mode 'xfail' without an 'unlisted_reason'",
            f"{path}:9: reason: collect: false without a 'reason'",
        ]
    )


def test_duplicate_names_in_one_file_the_last_entry_wins(write_yaml, tmp_path):
    path = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests:
                - names: [T::a, T::b]
                  mode: skip
                - names: [T::b, T::c]
                - names: T::a
                  ops: [add]
    """)
    plan = load(path)
    assert [r.patterns for r in plan.files[0].rules] == [("T::a",), ("T::b", "T::c"), ("T::a",)]
    assert problems_of(plan, "warning") == [
        f"{path}:8: names: duplicate entry 'T::b' (also at {path}:6): this later entry wins (mandatory_success)"
    ]


def test_compat_torch_spyre_reads_names_class_insensitively(write_yaml, tmp_path):
    path = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests:
                - names: TestViewOps::test_reshape
                - names: TestOldViewOps::test_reshape
                  mode: skip
    """)
    plan = load_plan([path], default_roots())
    fp = plan.files[0]
    assert len(fp.rules) == 2 and not fp.relax_device_restrictions and fp.unlisted_mode == Mode.skip
    spyre = load_plan([path], default_roots(), compat="torch_spyre")
    fp = spyre.files[0]
    # one method in Torch Spyre's reading: the later entry takes it
    assert [(r.patterns, r.class_insensitive) for r in fp.rules] == [
        (("TestOldViewOps::test_reshape",), True)
    ]
    assert (fp.relax_device_restrictions, fp.relax_only_for, fp.unlisted_mode) == (True, True, Mode.xfail)
    assert "duplicate entry 'TestOldViewOps::test_reshape'" in problems_of(spyre, "warning")[0]
    # global.compat is the same switch, and global.relax_device_restrictions the device one alone
    both = write_yaml("test_suite_config:\n  global: {compat: torch_spyre}\n", "compat.yaml")
    assert load(path, both).files[0].rules[0].class_insensitive
    relax = write_yaml("test_suite_config:\n  global: {relax_device_restrictions: true}\n", "relax.yaml")
    fp = load(path, relax).files[0]
    assert fp.relax_device_restrictions and not fp.relax_only_for and not fp.rules[0].class_insensitive


def test_test_type_drops_entries_and_leaves_out_configs_by_labels(write_yaml, tmp_path):
    device = write_yaml("test_suite_config:\n  global: {supported_ops: [add]}\n", "device.yaml")
    smoke = write_yaml(
        f"""
        test_suite_config:
          labels: [smoke]
          files:
            - path: {tmp_path}/t.py
              tests:
                - names: T::a
                - names: T::b
                  labels: [nightly]
                  tags: [slow]
    """,
        "smoke.yaml",
    )
    full = write_yaml(
        f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests: [{{names: T::c}}]
            - path: {tmp_path}/u.py
              tests: [{{names: U::a}}]
    """,
        "full.yaml",
    )

    plan = load_plan([device, smoke, full], default_roots(), "smoke")
    assert set(plan.ops) == {"add"}  # the device-wide config applies
    assert plan.left_out_sources == (full,)
    fp = plan.file_plan(str(tmp_path / "t.py"))
    assert [(r.patterns, r.entry.mode) for r in fp.rules] == [
        (("T::a",), Mode.mandatory_success),
        (("T::b",), Mode.skip),
    ]
    assert fp.collect  # a config in effect wins over the left-out one
    left = plan.file_plan(str(tmp_path / "u.py"))  # named only by the left-out config: never collected
    assert (left.collect, left.rules, left.unlisted_mode) == (False, (), Mode.skip)

    plan = load_plan([device, smoke, full], default_roots(), None)
    assert plan.left_out_sources == () and [
        r.patterns for r in plan.file_plan(str(tmp_path / "t.py")).rules
    ] == [("T::a",), ("T::b",), ("T::c",)]
    assert all(r.entry.mode == Mode.mandatory_success for r in plan.files[0].rules)
    assert load_plan([device, smoke, full], default_roots(), "full").left_out_sources == (smoke,)


def test_a_path_that_matches_no_file_is_a_warning(write_yaml, tmp_path):
    (tmp_path / "test_here.py").write_text("")
    path = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/test_here.py
            - path: {tmp_path}/test_gone.py
            - path: {tmp_path}/test_*.py
    """)
    assert problems_of(load(path), "warning", paths=True) == [
        f"{path}:5: path: '{tmp_path}/test_gone.py' matches no file (moved or removed upstream?)"
    ]


def test_the_compat_option_offers_exactly_the_compat_modes_config_reads():
    from testing.plugin import plan, plugin

    assert plugin.COMPAT_CHOICES == (plan.COMPAT_TORCH_SPYRE,)


def test_left_out_files_name_each_path_once_and_a_config_in_effect_wins(tmp_path):
    from testing.base.errors import Loc
    from testing.plugin.left_out import left_out_files
    from testing.plugin.planmodel import FilePlan, Plan

    here = tmp_path / "test_here.py"
    here.write_text("")

    def fp(path, collect=True, reason=None, line=1):
        return FilePlan(str(path), Mode.skip, None, False, False, (), Loc("c.yaml", line), collect, reason)

    plan = Plan(
        files=(fp(here), fp(tmp_path / "gone_*.py", line=2), fp(tmp_path / "x.py", False, "imports", 3)),
        global_=None, ops=None, dtypes=None, modules=None, tags=frozenset(),
        left_out=(fp(here, False, "labels", 9), fp(tmp_path / "x.py", False, "labels", 9)),
    )  # fmt: skip
    assert [(f.path, f.reason, f.config) for f in left_out_files(plan).files] == [
        (str(tmp_path / "gone_*.py"), "matches no file", "c.yaml:2"),
        (str(tmp_path / "x.py"), "collect: false: imports", "c.yaml:3"),
    ]
