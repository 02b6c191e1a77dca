"""The one YAML reader: round trip, and every problem at file:line."""

import io

import pytest

from testing.base.errors import ConfigError, Loc
from testing.yamldoc.locate import YamlSyntaxError, at, line_at
from testing.yamldoc.read import parse_yaml, read_yaml, round_trip

DOC = "# a comment\nL1:\n  - a/b  # why\nL3:\n  spyre:\n    o/r: ['@x']\n"


def test_a_tree_keeps_comments_and_dumps_back_the_same():
    tree = parse_yaml(DOC, "x.yml")
    assert tree["L3"]["spyre"]["o/r"] == ["@x"]
    out = io.StringIO()
    round_trip().dump(tree, out)
    assert out.getvalue() == DOC


def test_parts_of_a_tree_are_at_their_lines():
    tree = parse_yaml(DOC, "x.yml")
    assert line_at(tree, ("L1", 0)) == 3
    assert at("x.yml", tree["L3"], "spyre", "o/r") == Loc("x.yml", 6)
    assert line_at(tree, ("L3", "missing")) == 4  # the deepest part found


def test_bad_yaml_is_one_line_at_its_line_with_the_parsers_words():
    with pytest.raises(YamlSyntaxError) as err:
        parse_yaml("L1: [a/b\n", "x.yml")
    assert err.value.loc == Loc("x.yml", 2) and err.value.detail
    assert str(err.value).startswith("x.yml:2: YAML syntax error: ") and "\n" not in str(err.value)


def test_an_unreadable_file_names_the_file(tmp_path):
    with pytest.raises(ConfigError) as err:
        read_yaml(tmp_path / "missing.yaml")
    assert str(err.value) == f"{tmp_path / 'missing.yaml'}:0: cannot read config: No such file or directory"
    (tmp_path / "ok.yaml").write_text(DOC)
    tree, text = read_yaml(tmp_path / "ok.yaml")
    assert text == DOC and list(tree) == ["L1", "L3"]
