"""Pure pieces of the native adapter and provenance: the adapter choice, the rule listing,
whole-test exclusions, expiry and the config's bad-input errors."""

import datetime
import textwrap

import pytest

from testing.base.errors import ConfigError
from testing.plugin import provenance
from testing.plugin.device_support import build_support, known_names
from testing.plugin.native import choice
from testing.plugin.native.compile import compile_plan, excluded, native_errors
from testing.plugin.plan import load_plan


def _plan(tmp_path, text):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(textwrap.dedent(text))
    return load_plan([str(cfg)], {"REPO_ROOT": str(tmp_path), "TORCH_ROOT": str(tmp_path)})


KEYS = {"add": ("add",), "mul": ("mul",), "div.no_rounding_mode": ("div", "div.no_rounding_mode")}


def test_choice_auto_native_patch_and_fallback():
    assert choice.choose("auto", None, "2.13.0").used == "native"
    fallback = choice.choose("native", "set_test_configs", "2.12.0")
    assert fallback.used == "patch" and "lacks set_test_configs" in fallback.line
    assert choice.choose("patch", None, "2.13.0").used == "patch"
    assert choice.requested("patch", "native") == "patch" and choice.requested(None, None) == "auto"
    with pytest.raises(ValueError, match="adapter must be one of"):
        choice.requested("sometimes", None)


def test_rules_listed_native_or_patched_with_why(tmp_path):
    plan = _plan(
        tmp_path,
        """
        test_suite_config:
          global:
            supported_ops: [add, mul]
            supported_dtypes: [{name: float32, precision: {atol: 0.01}}]
          files:
            - path: ${REPO_ROOT}/t.py
              tests:
                - names: TestA::test_x
                  ops: [add]
                  mode: xfail_strict
                  reason: r
                - names: TestA::test_x
                  ops: [mul]
                  mode: xfail
                  reason: r
                - names: TestA::test_gone
                  mode: skip
                  reason: r
    """,
    )
    support = build_support(plan, known_names(), None, "cpu")
    native = compile_plan(plan, support, KEYS)
    way = {r.what: r.way for r in native.rows}
    assert way["supported_ops 'add'"] == "native"
    assert way["TestA::test_x (xfail_strict)"] == "native"
    assert way["TestA::test_x (xfail)"] == "patched"
    assert way["TestA::test_gone (skip)"] == "native"
    assert way["supported_dtypes 'float32' precision"] == "native"
    assert native.op_allowlist == ("add", "mul")
    assert [(x.op, x.cls, x.test) for x in native.xfails] == [("add", "TestA", "test_x")]
    assert native.tolerances["add"] == (("float32", 0.01, 0.0),)
    errors = native_errors(native)
    assert errors and all("adapter: native cannot express this" in e for e in errors)
    fp = plan.files[0]
    assert excluded(fp, "TestA", ["test_x", "test_gone", "test_other"]) == ["test_gone", "test_other"]
    assert excluded(fp, "TestB", ["test_y"]) == "*"


def test_expired_entries_and_counts(tmp_path):
    plan = _plan(
        tmp_path,
        """
        test_suite_config:
          files:
            - path: ${REPO_ROOT}/t.py
              tests:
                - names: TestA::test_x
                  mode: skip
                  reason: crashes
                  since: "#1234"
                  issue: https://example.org/i/1
                  expires: 2026-01-31
                - names: TestA::test_y
                  mode: xfail
                  expires: "2.13"
                - names: TestA::test_z
                  mode: xfail_strict
                  reason: fine
                  expires: 2099-01-01
    """,
    )
    found, problems = provenance.check(plan, datetime.date(2026, 6, 1), "2.13.0+cpu")
    assert found.entries == 3 and found.without_provenance == 2 and found.without_reason == 1
    assert [str(p.loc).rsplit(":", 1)[1] for p in problems] == ["6", "12"]
    assert "expired on 2026-01-31" in str(problems[0]) and "at torch 2.13" in str(problems[1])


def test_malformed_expires_is_one_line_at_its_line(tmp_path):
    with pytest.raises(ConfigError) as err:
        _plan(
            tmp_path,
            """
            test_suite_config:
              files:
                - path: ${REPO_ROOT}/t.py
                  tests:
                    - names: TestA::test_x
                      mode: skip
                      expires: next spring
        """,
        )
    text = str(err.value)
    assert "c.yaml:8" in text and "not a date" in text and "\\n" not in text


def test_bad_oot_today():
    with pytest.raises(ValueError, match="OOT_TODAY"):
        provenance.today_from("tomorrow")
