from testing.matrix.legs import Feature, build_matrix, shard_count


def feature(name, n, prefix):
    return Feature(name, (), f"//testing:{name}", tuple(f"{prefix}.py::test_{i}" for i in range(n)))


def test_fixed_shards_give_one_leg_each():
    doc = build_matrix([feature("op_add", 10, "a"), feature("op_mul", 1, "m")], {}, shards=3)
    legs = doc["include"]
    assert [(x["feature"], x["shard_index"], x["shard_total"]) for x in legs] == [
        ("op_add", 0, 3),
        ("op_add", 1, 3),
        ("op_add", 2, 3),
        ("op_mul", 0, 1),
    ]  # never more shards than tests
    assert sum(x["tests"] for x in legs if x["feature"] == "op_add") == 10
    assert legs[0]["name"] == "op_add 1/3" and legs[0]["target"] == "//testing:op_add"


def test_duration_cap_splits_slow_features_only():
    slow = feature("slow", 20, "s")
    fast = feature("fast", 20, "f")
    recorded = {n: 30.0 for n in slow.tests} | {n: 0.1 for n in fast.tests}
    legs = build_matrix([slow, fast], recorded, max_leg_seconds=120)["include"]
    assert {x["feature"]: x["shard_total"] for x in legs} == {"slow": 5, "fast": 1}
    assert max(x["estimated_seconds"] for x in legs) <= 120


def test_shard_count_bounds():
    assert shard_count(1000, 3, 10, None, 16) == 3
    assert shard_count(1000, 100, 10, None, 16) == 16
    assert shard_count(0, 0, 10, None, 16) == 1
    assert shard_count(50, 10, None, None, 16) == 1


FEATURE = "test_suite_config:\n  files:\n    - path: ${{REPO_ROOT}}/testing/suites/{}.py\n"


def workspace(tmp_path):
    """configs/ as the generated targets see it: two feature configs, one device-wide, one upstream."""
    (tmp_path / "configs" / "spyre").mkdir(parents=True)
    (tmp_path / "testing" / "suites").mkdir(parents=True)
    for name in ("test_ops", "test_new"):
        (tmp_path / "testing" / "suites" / f"{name}.py").write_text("")
    (tmp_path / "configs" / "spyre" / "ops.yaml").write_text(FEATURE.format("test_ops"))
    (tmp_path / "configs" / "spyre" / "new.yaml").write_text(FEATURE.format("test_new"))
    (tmp_path / "configs" / "spyre" / "device.yaml").write_text(
        "test_suite_config:\n  global:\n    backend: torch_spyre\n"
    )
    (tmp_path / "configs" / "spyre" / "upstream.yaml").write_text(
        "test_suite_config:\n  files:\n    - path: ${TORCH_ROOT}/test/test_x.py\n"
    )
    return tmp_path


def test_generated_config_targets_become_features(tmp_path):
    from testing.matrix.legs import generated_features

    recorded = {
        "testing/suites/test_ops.py::T::test_a": 100.0,
        "testing/suites/test_ops.py::T::test_b": 100.0,
        "testing/suites/test_other.py::T::test_c": 5.0,
    }
    features = {f.name: f for f in generated_features(workspace(tmp_path), recorded)}
    # no in-tree suites (device-wide, upstream only): no leg
    assert set(features) == {"config_spyre_ops", "config_spyre_new"}
    assert features["config_spyre_ops"].target == "//testing:config_spyre_ops"
    assert features["config_spyre_ops"].tests == (
        "testing/suites/test_ops.py::T::test_a",
        "testing/suites/test_ops.py::T::test_b",
    )
    assert features["config_spyre_new"].tests == ("testing/suites/test_new.py::<unrecorded>",)
    legs = build_matrix(list(features.values()), recorded, max_leg_seconds=120)["include"]
    assert {(x["feature"], x["shard_total"]) for x in legs} == {
        ("config_spyre_ops", 2),
        ("config_spyre_new", 1),
    }


def test_generated_features_name_the_targets_testing_targets_generates():
    """The real configs/: every feature is a config_ target of the checked-in configs.bzl."""
    import json
    import re
    from pathlib import Path

    from testing.matrix.legs import generated_features

    root = Path(__file__).resolve().parents[3]
    bzl = (root / "testing" / "targets" / "configs.bzl").read_text(encoding="utf-8")
    configs = json.loads(re.search(r"^CONFIGS = (\{.*?^\})$", bzl, re.S | re.M).group(1))
    with_suites = {f"config_{k}": v["suites"] for k, v in configs.items() if v["suites"]}
    found = generated_features(root, {})
    assert {f.name for f in found} == set(with_suites)
    for f in found:
        assert {n.split("::")[0] for n in f.tests} == set(with_suites[f.name])
