"""capabilities.py: the backend table, name checks, config ∩ capabilities."""

import pytest

from testing.plugin import capabilities
from testing.plugin.capabilities import build_support, normalize_capabilities, validate_names
from testing.plugin.config import ConfigError, default_roots, load_plan

# The shape torch_spyre.capabilities() returns (a tiny fake).
FAKE = {"version": 1, "ops": {
    "add": {"aten": ["add"], "dtypes": ["float16", "float32", "int64"], "precision": "float16", "layout": "any"},
    "softmax": {"aten": ["_softmax"], "dtypes": ["float16", "float32"], "precision": "float16", "layout": "any"},
}}


@pytest.fixture(scope="module")
def known():
    return capabilities.known_names()


def support_for(write_yaml, body, known, caps=FAKE):
    plan = load_plan([write_yaml("test_suite_config:\n  global:\n" + body)], default_roots())
    validate_names(plan, known)
    return build_support(plan, known, normalize_capabilities(caps) if caps else None, "spyre")


def test_normalize_accepts_several_shapes():
    caps = normalize_capabilities(FAKE)
    assert caps["add"] == {"float16": None, "float32": None, "int64": None} and "_softmax" in caps
    assert normalize_capabilities({"mul": {"float32": {"atol": 1e-3}}}) == {"mul": {"float32": (1e-3, 0.0)}}
    assert normalize_capabilities({"aten::mul.Tensor": ["torch.float32"]}) == {"mul": {"float32": None}}


def test_capabilities_drive_ops_and_dtypes(write_yaml, known):
    support = support_for(write_yaml, "    capabilities: backend\n", known)
    assert "add" in support.ops and "mul" not in support.ops
    assert "nn.functional.relu" not in support.ops
    assert {"softmax", "softmax.with_dtype"} <= set(support.ops)  # variants share aten_name
    assert support.ops["add"].dtypes == {"float16", "float32", "int64"}
    assert support.dtypes == {"float16", "float32", "int64"}
    narrowed = support_for(write_yaml, "    capabilities: backend\n    supported_dtypes: [float32]\n", known)
    assert narrowed.ops["add"].dtypes == {"float32"}  # capability dtypes ∩ supported_dtypes


def test_op_or_dtype_the_device_lacks_needs_a_reason(write_yaml, known):
    with pytest.raises(ConfigError, match=r"cfg.yaml:4: global.supported_ops: 'mul': spyre has no aten::mul"):
        support_for(write_yaml, "    capabilities: backend\n    supported_ops: [add, mul]\n", known)
    with pytest.raises(ConfigError, match=r"'add': spyre has no aten::add for float64"):
        support_for(write_yaml, "    supported_ops: [{name: add, dtypes: [float64]}]\n", known)
    with pytest.raises(ConfigError, match=r"supported_dtypes: 'bool': no op of spyre supports it"):
        support_for(write_yaml, "    supported_dtypes: [bool]\n", known)
    support = support_for(write_yaml, "    supported_ops: [add, {name: mul, reason: checks the refusal path}]\n", known)
    assert set(support.ops) == {"add", "mul"}


def test_unknown_names_are_errors(write_yaml, known):
    for body, message in (
        ("    supported_ops: [addd]\n", "unknown op 'addd'"),
        ("    supported_dtypes: [float33]\n", "unknown dtype 'float33'"),
        ("    supported_modules: [nn.Linearr]\n", "unknown module 'nn.Linearr'"),
        ("    supported_ops: [{name: add, dtypes: [f32]}]\n", "unknown dtype 'f32'"),
    ):
        with pytest.raises(ConfigError, match=message):
            support_for(write_yaml, body, known, caps=None)


def test_config_precision_overrides_and_no_caps(write_yaml, known):
    support = support_for(write_yaml, "    supported_ops: [{name: add, dtypes: [{name: float32, precision: {atol: 0.01}}]}]\n"
                          "    supported_dtypes: [{name: float16, precision: {atol: 0.1, rtol: 0.01}}]\n", known, caps=None)
    assert support.ops["add"].precision == (("float32", 0.01, 0.0),)
    assert support.dtype_precision == {"float16": (0.1, 0.01)}
