"""The generator on a small repository tree built in tmp_path."""
import textwrap

import pytest

from testing.targets import generate
from testing.targets.model import label_of, sanitize

OPS_CONFIG = """
test_suite_config:
  files:
    - path: ${REPO_ROOT}/testing/suites/test_ops.py
      tests:
        - names: TestOps::test_consistency
          ops: [mul]
          dtypes: [bfloat16]
  global:
    supported_dtypes: [float32, {name: float16, precision: {atol: 0.01}}]
    supported_ops: [add, {name: div.no_rounding_mode, dtypes: [float32, int64]}]
"""

UPSTREAM_CONFIG = """
test_suite_config:
  files:
    - path: ${TORCH_ROOT}/test/test_view_ops.py
  global:
    supported_ops: [view]
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_ROOT", str(tmp_path / "pytorch"))
    (tmp_path / "pytorch/test").mkdir(parents=True)
    (tmp_path / "pytorch/test/test_view_ops.py").write_text("")
    for path, text in {
        "BUILD.bazel": "",
        "testing/BUILD.bazel": "",
        "testing/targets/BUILD.bazel": "",
        "testing/suites/test_ops.py": "",
        "configs/ops.yaml": OPS_CONFIG,
        "configs/upstream/view.yaml": UPSTREAM_CONFIG,
    }.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(textwrap.dedent(text))
    return tmp_path


def test_every_configured_op_and_dtype_gets_a_target(repo):
    data = generate.build(repo)
    assert sorted(data["ops"]) == ["add", "div_no_rounding_mode", "mul"]
    assert sorted(data["dtypes"]) == ["bfloat16", "float16", "float32", "int64"]
    div = data["ops"]["div_no_rounding_mode"]
    assert div["mark"] == "op__div_no_rounding_mode"
    assert div["configs"] == ["configs/ops.yaml"]
    assert div["suites"] == ["testing/suites/test_ops.py"]
    assert div["data"] == ["//:configs/ops.yaml", "//testing:suites/test_ops.py"]


def test_upstream_only_configs_make_no_op_targets(repo):
    data = generate.build(repo)
    assert "view" not in data["ops"]
    assert data["configs"]["upstream_view"]["suites"] == []
    assert data["configs"]["upstream_view"]["upstream"] == ["${TORCH_ROOT}/test/test_view_ops.py"]


def test_editing_a_config_changes_targets_and_check_sees_it(repo, monkeypatch):
    monkeypatch.chdir(repo)
    assert generate.main(["--root", str(repo)]) == 0
    assert generate.main(["--root", str(repo), "--check"]) == 0
    config = repo / "configs/ops.yaml"
    config.write_text(config.read_text().replace("supported_ops: [add,", "supported_ops: [add, sub,"))
    assert generate.main(["--root", str(repo), "--check"]) == 1
    assert generate.main(["--root", str(repo)]) == 0
    assert '"op__sub"' in (repo / generate.OUTPUT).read_text()
    assert generate.main(["--root", str(repo), "--check"]) == 0


def test_removing_a_config_removes_its_targets(repo):
    generate.main(["--root", str(repo)])
    (repo / "configs/ops.yaml").unlink()
    assert generate.main(["--root", str(repo), "--check"]) == 1
    generate.main(["--root", str(repo)])
    assert '"op__add"' not in (repo / generate.OUTPUT).read_text()


def test_bad_config_is_one_line_with_file_and_line(repo, capsys):
    (repo / "configs/bad.yaml").write_text("test_suite_config:\n  files: [\n")
    before = (repo / generate.OUTPUT).read_text() if (repo / generate.OUTPUT).exists() else None
    assert generate.main(["--root", str(repo)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "bad.yaml:" in err and "\n" not in err
    after = (repo / generate.OUTPUT).read_text() if (repo / generate.OUTPUT).exists() else None
    assert after == before  # nothing half-written


def test_missing_suite_file_is_named(repo, capsys):
    (repo / "configs/gone.yaml").write_text("test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/testing/suites/test_gone.py\n")
    assert generate.main(["--root", str(repo)]) == 2
    assert "configs/gone.yaml: ${REPO_ROOT}/testing/suites/test_gone.py: no such file" in capsys.readouterr().err


def test_output_is_starlark_friendly(repo):
    text = generate.render(generate.build(repo))
    assert "true" not in text and "null" not in text  # only strings, lists, dicts
    assert text.startswith('"""') and "CONFIGS = {" in text and "OPS = {" in text and "DTYPES = {" in text


def test_label_of_uses_nearest_package():
    packages = {"", "testing", "testing/targets"}
    assert label_of("configs/ops.yaml", packages) == "//:configs/ops.yaml"
    assert label_of("testing/suites/test_x.py", packages) == "//testing:suites/test_x.py"


def test_sanitize_matches_plugin_marks():
    from testing.plugin.selection import mark_name
    for name in ("add", "div.no_rounding_mode", "nn.functional.relu", "__radd__"):
        assert "op__" + sanitize(name) == mark_name("op__", name)
