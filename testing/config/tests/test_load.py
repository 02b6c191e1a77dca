import pytest

from testing.base.errors import ConfigError
from testing.config.load import load
from testing.config.models import Mode


def write(tmp_path, text, name="c.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_loads_the_model_the_tree_and_the_lines(tmp_path):
    path = write(
        tmp_path,
        "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/t.py\n      tests:\n"
        "        - names: T::test_a  # flaky here\n          mode: xfail\n",
    )
    one = load(path)
    entry = one.doc.test_suite_config.files[0].tests[0]
    assert entry.mode is Mode.xfail and entry.name_list == ["T::test_a"]
    assert one.lines[4].endswith("# flaky here")
    assert one.raw["test_suite_config"]["files"][0]["path"] == "${REPO_ROOT}/t.py"


@pytest.mark.parametrize(
    "text, where",
    [
        ("test_suite_config:\n  files:\n    - path: [unclosed\n", r"c\.yaml:4: YAML syntax error"),
        ("other: 1\n", r"c\.yaml:1: test_suite_config: missing top-level key"),
        (
            "test_suite_config:\n  files:\n    - path: x.py\n      tests:\n        - names: a\n          mode: maybe\n",
            r"c\.yaml:6: files\[0\]\.tests\[0\]\.mode: bad value 'maybe'",
        ),
        (
            "test_suite_config:\n  global:\n    bakend: x\n",
            r"c\.yaml:3: global\.bakend: unknown key 'bakend'",
        ),
    ],
)
def test_errors_name_file_line_and_key(tmp_path, text, where):
    with pytest.raises(ConfigError, match=where):
        load(write(tmp_path, text))


def test_unreadable_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=r"nope\.yaml:0: cannot read config"):
        load(str(tmp_path / "nope.yaml"))
