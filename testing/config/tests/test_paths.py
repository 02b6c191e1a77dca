import os

import pytest

from testing.base.errors import ConfigError, Loc
from testing.config.paths import default_roots, expand_path, files_under, split_root


def test_split_root():
    assert split_root("${TORCH_ROOT}/test/test_x.py") == ("TORCH_ROOT", "test/test_x.py")
    assert split_root("${REPO_ROOT}/testing/suites/*.py") == ("REPO_ROOT", "testing/suites/*.py")
    assert split_root("rel/test_x.py") == (None, "rel/test_x.py")
    assert split_root("${TORCH_ROOT}x/y.py") == (None, "${TORCH_ROOT}x/y.py")


def test_expand_substitutes_roots_resolves_relative_paths_and_keeps_globs(tmp_path):
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    loc = Loc("c.yaml", 3)
    assert expand_path("${TORCH_ROOT}/a.py", {"TORCH_ROOT": str(tmp_path / "link")}, "/x", loc) == str(
        tmp_path / "real" / "a.py"
    )
    assert expand_path("b/*.py", {}, str(tmp_path / "link"), loc) == str(tmp_path / "real" / "b" / "*.py")


def test_an_unset_root_names_the_config_line_and_the_fix(monkeypatch):
    monkeypatch.delenv("TORCH_ROOT", raising=False)
    with pytest.raises(
        ConfigError, match=r"c\.yaml:3: path: \$\{TORCH_ROOT\} is not set \(pass --upstream-root"
    ):
        expand_path("${TORCH_ROOT}/a.py", {}, "/x", Loc("c.yaml", 3))


def test_default_roots(monkeypatch, tmp_path):
    monkeypatch.delenv("REPO_ROOT", raising=False)
    monkeypatch.setenv("TORCH_ROOT", str(tmp_path))
    roots = default_roots()
    assert os.path.isfile(os.path.join(roots["REPO_ROOT"], "testing", "config", "paths.py"))
    assert roots["TORCH_ROOT"] == os.path.realpath(tmp_path)
    assert default_roots(str(tmp_path / "other"))["TORCH_ROOT"] == os.path.realpath(tmp_path / "other")


def test_files_under(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    for f in ("a/test_1.py", "a/b/test_2.py"):
        (tmp_path / f).write_text("")
    assert files_under(tmp_path, "a/**/test_*.py") == [tmp_path / "a/b/test_2.py", tmp_path / "a/test_1.py"]
    assert files_under(tmp_path, "a/test_1.py") == [tmp_path / "a/test_1.py"]
    assert files_under(tmp_path, "a/missing.py") == []


def test_device_root_defaults_to_the_checkout_the_config_sits_in(monkeypatch, tmp_path):
    monkeypatch.delenv("TORCH_DEVICE_ROOT", raising=False)
    checkout = tmp_path / "their-backend"
    configs = checkout / "tests" / "configs" / "upstream_tests"
    configs.mkdir(parents=True)
    got = expand_path("${TORCH_DEVICE_ROOT}/tests/inductor/test_x.py", {}, str(configs), Loc("c.yaml", 4))
    assert got == str(checkout.resolve() / "tests" / "inductor" / "test_x.py")


def test_an_underivable_device_root_says_what_to_set(monkeypatch, tmp_path):
    monkeypatch.delenv("TORCH_DEVICE_ROOT", raising=False)
    with pytest.raises(ConfigError) as err:
        expand_path("${TORCH_DEVICE_ROOT}/tests/test_x.py", {}, str(tmp_path), Loc("c.yaml", 4))
    assert str(err.value) == (
        "c.yaml:4: path: ${TORCH_DEVICE_ROOT} is not set: set TORCH_DEVICE_ROOT to the backend's "
        "source checkout (the directory holding its tests/), or keep the config in that checkout's "
        "tests/configs/"
    )
