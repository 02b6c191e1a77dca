"""config.py: parsing, file:line errors, paths, merging."""

import pytest

from testing.plugin.config import ConfigError, default_roots, load_plan
from testing.plugin.models import Mode


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
        ("  files:\n    - path: a.py\n      tests:\n        - names: x\n          mode: xfal\n",
         "cfg.yaml:7: files[0].tests[0].mode: bad value 'xfal'"),
        ("  files:\n    - path: a.py\n      tests:\n        - names: x\n          mode: xfail\n",
         "cfg.yaml:6: files[0].tests[0]: mode 'xfail' needs a 'reason'"),
        ("  files:\n    - path: a.py\n      tests:\n        - names: x\n        - names: [y, x]\n",
         "cfg.yaml:7: names: duplicate entry 'x' (first at"),
        ("  global:\n    supported_ops: [add, add]\n", "cfg.yaml:4: global.supported_ops: duplicate entry 'add'"),
        ("  global:\n    supported_ops: [{name: add, force_xfail: true}]\n", "needs a 'reason'"),
        ("  files:\n    - path: ${TORCH_ROOT}/test/test_x.py\n", "cfg.yaml:4: path: ${TORCH_ROOT} is not set"),
        ("  files:\n    - path: a.py\n      unlisted_test_mode: xfail\n", "needs an 'unlisted_reason'"),
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


def test_merge_unions_and_reports_conflicts(write_yaml, tmp_path):
    a = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests: [{{names: T::a}}]
          global: {{supported_ops: [add], backend: mod_a}}
    """, "a.yaml")
    b = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests: [{{names: T::b}}]
          global: {{supported_ops: [mul]}}
    """, "b.yaml")
    plan = load(a, b)
    assert [r.patterns for r in plan.files[0].rules] == [("T::a",), ("T::b",)]
    assert set(plan.ops) == {"add", "mul"} and plan.global_.backend == "mod_a"

    c = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests: [{{names: T::a, mode: skip, reason: r}}]
    """, "c.yaml")
    assert "c.yaml:5: names: conflict: 'T::a' is also listed at" in error_of(a, c)
    d = write_yaml("test_suite_config:\n  global: {backend: mod_b}\n", "d.yaml")
    assert "global.backend: conflict: 'mod_a' vs 'mod_b'" in error_of(a, d)
    e = write_yaml("test_suite_config:\n  global:\n    supported_ops: [{name: add, reason: x, force_xfail: true}]\n", "e.yaml")
    assert "e.yaml:3: global.supported_ops: conflict for 'add'" in error_of(a, e)


def test_test_type_drops_entries_and_leaves_out_configs_by_labels(write_yaml, tmp_path):
    device = write_yaml("test_suite_config:\n  global: {supported_ops: [add]}\n", "device.yaml")
    smoke = write_yaml(f"""
        test_suite_config:
          labels: [smoke]
          files:
            - path: {tmp_path}/t.py
              tests:
                - names: T::a
                - names: T::b
                  labels: [nightly]
                  tags: [slow]
    """, "smoke.yaml")
    full = write_yaml(f"""
        test_suite_config:
          files:
            - path: {tmp_path}/t.py
              tests: [{{names: T::c}}]
            - path: {tmp_path}/u.py
              tests: [{{names: U::a}}]
    """, "full.yaml")

    plan = load_plan([device, smoke, full], default_roots(), "smoke")
    assert set(plan.ops) == {"add"}  # the device-wide config applies
    assert plan.left_out_sources == (full,)
    fp = plan.file_plan(str(tmp_path / "t.py"))
    assert [(r.patterns, r.entry.mode) for r in fp.rules] == [(("T::a",), Mode.mandatory_success), (("T::b",), Mode.skip)]
    assert fp.collect  # a config in effect wins over the left-out one
    left = plan.file_plan(str(tmp_path / "u.py"))  # named only by the left-out config: never collected
    assert (left.collect, left.rules, left.unlisted_mode) == (False, (), Mode.skip)

    plan = load_plan([device, smoke, full], default_roots(), None)
    assert plan.left_out_sources == () and [r.patterns for r in plan.file_plan(str(tmp_path / "t.py")).rules] == [
        ("T::a",), ("T::b",), ("T::c",)]
    assert all(r.entry.mode == Mode.mandatory_success for r in plan.files[0].rules)
    assert load_plan([device, smoke, full], default_roots(), "full").left_out_sources == (smoke,)
