import json

import pytest

from tools.errors import SelectError
from tools.select.common import capabilities as caps_mod


def test_spyre_shape_registers_every_aten_alias(small_caps):
    assert small_caps.supports("aten::add.Tensor", "float32")
    assert small_caps.supports("aten::empty_strided", "bool")
    assert not small_caps.supports("aten::exp", "int64")
    assert not small_caps.supports("aten::mm")
    assert small_caps.lookup("aten::cumsum").layout == "contiguous"
    assert small_caps.lookup("exp").internal_precision == "float16"
    assert small_caps.features == {"autograd": False}


def test_minimal_kernels_are_assumed():
    table = caps_mod.from_mapping({"add": ["float32"]})
    assert table.supports("aten::_local_scalar_dense")
    assert not table.supports("aten::clone")


def test_bare_map_with_precision_per_dtype():
    table = caps_mod.from_mapping({"ops": {"mul.Tensor": {"float32": {"atol": 1e-3}, "int64": None}}})
    assert table.supports("aten::mul.Tensor", "int64")
    assert table.precision_for("mul.Tensor", "float32") == {"atol": 1e-3}
    assert not table.supports("aten::mul.Scalar", "float32")  # overload listed, not the packet


def test_bad_shapes_are_one_line_errors(tmp_path):
    with pytest.raises(SelectError, match="no 'ops'"):
        caps_mod.from_mapping({"features": {}})
    with pytest.raises(SelectError, match="expected a dtype list"):
        caps_mod.from_mapping({"add": 3})
    bad = tmp_path / "caps.json"
    bad.write_text('{"ops": {"add": [}')
    with pytest.raises(SelectError, match=r"caps.json:1: invalid JSON"):
        caps_mod.from_file(bad)
    yaml_bad = tmp_path / "caps.yaml"
    yaml_bad.write_text("ops:\n  add: [float32\n  mul: x\n")
    with pytest.raises(SelectError, match=r"caps.yaml:\d+: invalid YAML"):
        caps_mod.from_file(yaml_bad)


def test_round_trip_through_json(small_caps, tmp_path):
    path = tmp_path / "again.json"
    path.write_text(json.dumps(small_caps.to_json()))
    again = caps_mod.from_file(path)
    assert again.supports("aten::add.Tensor", "int64") and not again.supports("aten::add.Tensor", "bool")


def test_missing_backend_module_is_a_clear_error():
    with pytest.raises(SelectError, match="not importable"):
        caps_mod.load("backend:no_such_backend_module_xyz")
