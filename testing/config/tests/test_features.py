import pytest

from testing.config.features import (
    Feature,
    FeatureError,
    Suites,
    config_suites,
    discover_features,
    lists_files,
)
from testing.config.runs import PLUGIN, SHARD_PLUGIN, config_key, config_target, has_module

FEATURE = "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/suites/test_*.py\n"
DEVICE = "test_suite_config:\n  global:\n    backend: torch_spyre\n"


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "configs" / "spyre").mkdir(parents=True)
    (tmp_path / "configs" / "schema").mkdir()
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "test_a.py").write_text("")
    (tmp_path / "configs" / "spyre" / "device.yaml").write_text(DEVICE)
    (tmp_path / "configs" / "spyre" / "ops.yaml").write_text(FEATURE)
    (tmp_path / "configs" / "spyre" / "broken.yaml").write_text("test_suite_config: [\n")
    (tmp_path / "configs" / "schema" / "x.yaml").write_text(FEATURE)
    return tmp_path


def test_features_carry_their_directorys_device_configs(ws):
    found = discover_features(ws)
    assert found == [
        Feature("spyre-broken", ("configs/spyre/device.yaml", "configs/spyre/broken.yaml")),
        Feature("spyre-ops", ("configs/spyre/device.yaml", "configs/spyre/ops.yaml")),
    ]  # schema/ is skipped; a broken file is a feature (its leg reports the error)
    assert found[1].name == "spyre-ops" and found[1].config == "configs/spyre/ops.yaml"


def test_extra_directories_inherit_device_wide_configs(ws, tmp_path_factory):
    extra = tmp_path_factory.mktemp("x") / "upstream"
    (extra / "spyre").mkdir(parents=True)
    (extra / "spyre" / "nn.yaml").write_text(
        "test_suite_config:\n  files:\n    - path: ${TORCH_ROOT}/test/nn.py\n"
    )
    nn = [f for f in discover_features(ws, [extra]) if f.name == "upstream-spyre-nn"]
    assert nn == [
        Feature("upstream-spyre-nn", ("configs/spyre/device.yaml", str(extra / "spyre" / "nn.yaml")))
    ]
    with pytest.raises(FeatureError, match="not a directory"):
        discover_features(ws, [extra / "missing"])


def test_no_configs_is_one_catch_all(tmp_path):
    assert discover_features(tmp_path) == [Feature("all", ())]


def test_lists_files(ws):
    assert lists_files(ws / "configs/spyre/ops.yaml")
    assert not lists_files(ws / "configs/spyre/device.yaml")
    assert lists_files(ws / "configs/spyre/broken.yaml")


def test_config_suites_split_in_tree_and_upstream(ws, tmp_path_factory):
    checkout = tmp_path_factory.mktemp("checkout")
    (checkout / "test").mkdir()
    (checkout / "test" / "test_here.py").write_text("")
    (ws / "configs" / "mixed.yaml").write_text(
        FEATURE + "    - path: ${TORCH_ROOT}/test/test_here.py\n    - path: ${TORCH_ROOT}/test/test_gone.py\n"
    )
    assert config_suites(ws, "configs/mixed.yaml", checkout) == Suites(
        ("suites/test_a.py",), (str(checkout / "test" / "test_here.py"),), ("test/test_gone.py",)
    )
    assert config_suites(ws, "configs/mixed.yaml").missing == ("test/test_here.py", "test/test_gone.py")
    assert config_suites(ws, "configs/spyre/broken.yaml") == Suites()


def test_run_names():
    assert config_key("configs/spyre/op_consistency.yaml") == "spyre_op_consistency"
    assert config_key("configs/cpu/smoke-2.yml") == "cpu_smoke_2"
    assert config_target("configs/spyre/ops.yaml") == "//testing:config_spyre_ops"


def test_a_workspace_carries_a_plugin_as_package_or_module(tmp_path):
    assert not has_module(tmp_path, PLUGIN) and not has_module(tmp_path, SHARD_PLUGIN)
    (tmp_path / "testing" / "plugin").mkdir(parents=True)
    (tmp_path / "testing" / "matrix").mkdir(parents=True)
    (tmp_path / "testing" / "matrix" / "plugin.py").write_text("")
    assert has_module(tmp_path, PLUGIN) and has_module(tmp_path, SHARD_PLUGIN)
