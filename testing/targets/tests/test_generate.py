"""The generator on a small repository tree built in tmp_path."""

import textwrap

import pytest

from testing.targets import generate
from testing.targets.model import label_of, sanitize

DEVICE = """
test_suite_config:
  global:
    backend: fakedev
    device_type: cpu
    capabilities: none
    supported_dtypes: [float32, int64]
"""

CPU = """
test_suite_config:
  global:
    device_type: cpu
  files:
    - path: ${REPO_ROOT}/testing/suites/test_ops.py
"""

OPS = """
test_suite_config:
  files:
    - path: ${REPO_ROOT}/testing/suites/test_ops.py
      unlisted_test_mode: mandatory_success
"""

UPSTREAM = """
test_suite_config:
  files:
    - path: ${TORCH_ROOT}/test/test_view_ops.py
"""

SUITE = """
import pytest

@pytest.mark.op__add
@pytest.mark.dtype__float32
def test_add_float32(): pass

@pytest.mark.op__div_no_rounding_mode
@pytest.mark.dtype__int64
def test_div_int64(): pass

def test_unmarked(): pass
"""

MARKS = {
    "testing/suites/test_ops.py::TestOps::test_add_float32": ["dtype__float32", "op__add"],
    "testing/suites/test_ops.py::TestOps::test_add_int64": ["dtype__int64", "op__add"],
    "testing/suites/test_ops.py::TestOps::test_div_no_rounding_mode_int64": [
        "dtype__int64",
        "op__div_no_rounding_mode",
    ],
}


def fake_collect(calls):
    def collect(root, configs, suites):
        calls.append((configs, suites))
        return MARKS

    return collect


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_ROOT", str(tmp_path / "pytorch"))
    for path, text in {
        "pytorch/test/test_view_ops.py": "",
        "BUILD.bazel": "",
        "testing/BUILD.bazel": "",
        "testing/targets/BUILD.bazel": "",
        "testing/suites/test_ops.py": SUITE,
        "configs/spyre/device.yaml": DEVICE,
        "configs/spyre/ops.yaml": OPS,
        "configs/upstream/view.yaml": UPSTREAM,
        "configs/cpu/smoke.yaml": CPU,
        "fakedev.py": "",
    }.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(textwrap.dedent(text))
    return tmp_path


def test_targets_follow_collected_marks(repo):
    calls = []
    data = generate.build(repo, fake_collect(calls))
    assert calls == [
        (["configs/spyre/device.yaml", "configs/spyre/ops.yaml"], ["testing/suites/test_ops.py"])
    ]
    assert sorted(data["ops"]) == ["add", "div_no_rounding_mode"]
    assert sorted(data["dtypes"]) == ["float32", "int64"]
    add = data["ops"]["add"]
    assert (add["mark"], add["suites"]) == ("op__add", ["testing/suites/test_ops.py"])
    assert add["configs"] == ["configs/spyre/device.yaml", "configs/spyre/ops.yaml"]
    assert add["data"] == [
        "//:configs/spyre/device.yaml",
        "//:configs/spyre/ops.yaml",
        "//testing:suites/test_ops.py",
    ]


def test_feature_configs_run_with_base_configs(repo):
    data = generate.build(repo, fake_collect([]))
    ops = data["configs"]["spyre_ops"]
    assert ops["configs"] == ["configs/spyre/device.yaml", "configs/spyre/ops.yaml"]
    assert ops["suites"] == ["testing/suites/test_ops.py"]
    assert data["configs"]["spyre_device"]["suites"] == []  # base config: no target of its own
    assert data["configs"]["cpu_smoke"]["configs"] == ["configs/cpu/smoke.yaml"]  # other set, no base
    view = data["configs"]["upstream_view"]
    assert view["suites"] == [] and view["upstream"] == ["${TORCH_ROOT}/test/test_view_ops.py"]


def test_op_targets_take_only_their_suites_configs(repo):
    (repo / "testing/suites/test_mod.py").write_text("")
    (repo / "configs/spyre/mods.yaml").write_text(OPS.replace("test_ops.py", "test_mod.py"))
    marks = dict(MARKS, **{"testing/suites/test_mod.py::T::test_linear_float32": ["dtype__float32"]})
    data = generate.build(repo, lambda root, configs, suites: marks)
    assert data["ops"]["add"]["configs"] == ["configs/spyre/device.yaml", "configs/spyre/ops.yaml"]
    assert data["dtypes"]["float32"]["configs"] == [
        "configs/spyre/device.yaml",
        "configs/spyre/mods.yaml",
        "configs/spyre/ops.yaml",
    ]
    assert data["dtypes"]["float32"]["suites"] == ["testing/suites/test_mod.py", "testing/suites/test_ops.py"]


def test_editing_a_config_changes_targets_and_check_sees_it(repo, monkeypatch, capsys):
    monkeypatch.setattr(generate, "collect_marks", fake_collect([]))
    assert generate.main(["--root", str(repo)]) == 0
    assert generate.main(["--root", str(repo), "--check"]) == 0
    capsys.readouterr()
    (repo / "configs/spyre/more.yaml").write_text(OPS.replace("test_ops.py", "test_more.py"))
    (repo / "testing/suites/test_more.py").write_text("")
    assert generate.main(["--root", str(repo), "--check"]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        "testing/targets/configs.bzl is stale (configs +spyre_more): "
        "run tools/bazel run //testing/targets:generate"
    )
    assert generate.main(["--root", str(repo)]) == 0
    # it said only "updated": now which targets came, went or changed
    assert capsys.readouterr().out == ("testing/targets/configs.bzl: updated: configs +spyre_more\n")
    assert '"spyre_more": {' in (repo / generate.OUTPUT).read_text()
    (repo / "configs/spyre/more.yaml").unlink()
    assert generate.main(["--root", str(repo), "--check"]) == 1
    assert "(configs -spyre_more)" in capsys.readouterr().err


def test_real_collection_with_the_plugin(repo):
    """The real `pytest --collect-only` with testing.plugin on CPU."""
    data = generate.build(repo)
    assert sorted(data["ops"]) == ["add", "div_no_rounding_mode"]
    assert data["dtypes"]["float32"]["suites"] == ["testing/suites/test_ops.py"]


def test_collection_failure_is_one_line(repo, capsys):
    (repo / "testing/suites/test_ops.py").write_text("import no_such_module_here\n")
    assert generate.main(["--root", str(repo)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: collecting testing/suites/test_ops.py failed") and "\n" not in err


def test_bad_config_is_one_line_with_file_and_line(repo, capsys, monkeypatch):
    monkeypatch.setattr(generate, "collect_marks", fake_collect([]))
    generate.main(["--root", str(repo)])
    before = (repo / generate.OUTPUT).read_text()
    (repo / "configs/bad.yaml").write_text("test_suite_config:\n  files: [\n")
    assert generate.main(["--root", str(repo)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "bad.yaml:" in err and "\n" not in err
    assert (repo / generate.OUTPUT).read_text() == before  # nothing half-written


def test_missing_suite_file_is_named(repo, capsys):
    (repo / "configs/gone.yaml").write_text(
        "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/testing/suites/test_gone.py\n"
    )
    assert generate.main(["--root", str(repo)]) == 2
    assert (
        "configs/gone.yaml: ${REPO_ROOT}/testing/suites/test_gone.py: no such file" in capsys.readouterr().err
    )


def test_output_is_starlark_friendly(repo):
    text = generate.render(generate.build(repo, fake_collect([])))
    assert "true" not in text and "null" not in text  # only strings, numbers, lists, dicts
    assert text.startswith('"""') and "CONFIGS = {" in text and "OPS = {" in text and "DTYPES = {" in text


def test_label_of_uses_nearest_package():
    packages = {"", "testing", "testing/targets"}
    assert label_of("configs/ops.yaml", packages) == "//:configs/ops.yaml"
    assert label_of("testing/suites/test_x.py", packages) == "//testing:suites/test_x.py"
    assert label_of("testing/targets/tests/x.py", packages) == "//testing/targets:tests/x.py"


def test_sanitize_matches_plugin_marks():
    from testing.plugin.selection import mark_name

    for name in ("add", "div.no_rounding_mode", "nn.functional.relu", "__radd__"):
        assert "op__" + sanitize(name) == mark_name("op__", name)
