import pytest
from ruamel.yaml import YAML

from testing.base.errors import ConfigError
from testing.config import edit
from testing.config.load import read_yaml

CONFIG = """\
test_suite_config:
    files:
        # in-tree suite
        -   path: ${REPO_ROOT}/testing/suites/test_ops.py
            tests:
                -   names: TestOps::test_add   # fails on spyre
                    mode: xfail
                    reason: spyre rounds
                -   names: TestOps::test_mul
        -   path: ${TORCH_ROOT}/test/nn/test_*.py
"""


def test_file_entries_are_found_by_the_file_under_their_root():
    raw = YAML(typ="rt").load(CONFIG)
    assert edit.file_entry_for(raw, "testing/suites/test_ops.py")["path"].endswith("test_ops.py")
    assert edit.file_entry_for(raw, "test/nn/test_flat.py")["path"] == "${TORCH_ROOT}/test/nn/test_*.py"
    assert edit.file_entry_for(raw, "suites/test_ops.py") is None  # a suffix is not the file
    assert edit.file_entry_for(raw, "test_ops.py") is None


def test_entries_are_found_by_their_line():
    raw = YAML(typ="rt").load(CONFIG)
    assert edit.entry_at(raw, 6)["names"] == "TestOps::test_add"
    assert edit.entry_at(raw, 7) is None
    fe = edit.file_entry_at(raw, 4)
    assert (
        fe["path"].endswith("test_ops.py") and edit.holds_entry_at(fe, 9) and not edit.holds_entry_at(fe, 10)
    )


def test_promote_changes_only_the_edited_lines():
    raw = YAML(typ="rt").load(CONFIG)
    after = edit.promote(
        CONFIG, [edit.entry_at(raw, 6)], [(edit.file_entry_at(raw, 4), ["TestOps::test_sub_cpu"])]
    )
    before_lines, after_lines = CONFIG.splitlines(), after.splitlines()
    assert after_lines[6] == "                    mode: mandatory_success"
    assert "reason: spyre rounds" not in after and "# fails on spyre" in after and "# in-tree suite" in after
    assert (
        after_lines[8] == '                - names: ["TestOps::test_sub_cpu"]  # promoted: passed in this run'
    )
    assert [x for x in after_lines if x not in before_lines] == [after_lines[6], after_lines[8]]


def test_promote_falls_back_to_a_round_trip_for_flow_style():
    text = (
        "test_suite_config:\n  files:\n    - path: x.py\n      tests: [{names: a, mode: xfail, reason: r}]\n"
    )
    raw = YAML(typ="rt").load(text)
    after = YAML(typ="safe").load(edit.promote(text, [edit.entry_at(raw, 4)], []))
    assert after["test_suite_config"]["files"][0]["tests"] == [{"names": "a", "mode": "mandatory_success"}]


def test_round_trip_keeps_comments_and_quotes(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("test_suite_config:\n  files:\n    - path: 'x.py'  # keep me\n")
    tree, _ = read_yaml(path)
    tree["test_suite_config"]["files"][0]["unlisted_test_mode"] = "xfail"
    out = edit.dump(tree)
    assert "path: 'x.py'  # keep me" in out and "unlisted_test_mode: xfail" in out


def test_read_yaml_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("a:\n  - [\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml:3: YAML syntax error"):
        read_yaml(path)
    with pytest.raises(ConfigError, match="cannot read config"):
        read_yaml(tmp_path / "missing.yaml")


def test_bucket_new_adds_a_file_entry_and_rekeys_flow_style_names():
    from testing.config.load import parse_yaml

    text = (
        "test_suite_config:\n"
        "  files:\n"
        "    - {path: '${TORCH_ROOT}/test/test_a.py', tests: [{names: [TestA::test_x], mode: xfail}]}  # kept\n"
    )
    after = edit.bucket_new(text, "test/test_a.py", ["TestAA::test_w"], {"TestA": "TestAA"}, "abc")
    fe = parse_yaml(after, "<t>")["test_suite_config"]["files"][0]
    assert [list(t["names"]) for t in fe["tests"]] == [["TestAA::test_x"], ["TestAA::test_w"]]
    assert fe["tests"][0]["mode"] == "xfail" and fe["tests"][1]["since"] == "abc"
    other = edit.bucket_new(text, "test/test_b.py", ["TestB::test_y"], {}, "abc")
    files = parse_yaml(other, "<t>")["test_suite_config"]["files"]
    assert (
        files[1]["path"] == "${TORCH_ROOT}/test/test_b.py" and files[1]["tests"][0]["mode"] == "xfail_strict"
    )
    assert "# kept" in after and "# kept" in other
