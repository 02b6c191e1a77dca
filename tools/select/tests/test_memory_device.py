"""Device-aware memory over an upstream-style suite: real traced CPU runs (subprocesses)."""

import shutil

import pytest

from testing.config.modes import Mode
from tools.select.bucket import rules
from tools.select.bucket.engines import Context, DeterministicEngine
from tools.select.bucket.facts import gather
from tools.select.memory.memory import MemoryBuilder, SourceRoot, TracePlan
from tools.select.memory.store import Memory
from tools.select.tests.helpers import FIXTURES, HashEmbedder

OUT = {"autograd": "scope file marks it out"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from tools.select.common import capabilities

    caps = capabilities.from_file(FIXTURES / "caps_small.json")
    repo = tmp_path_factory.mktemp("repo")
    shutil.copytree(FIXTURES / "suite_device", repo / "suite")
    db = repo / "memory.db"
    with Memory(db) as memory:
        stats = MemoryBuilder(
            memory, HashEmbedder(), progress=False, plan=TracePlan.for_device(caps, OUT)
        ).build([SourceRoot("${REPO_ROOT}", repo, "suite/test_*.py")])
        units = {u.test: u for u in gather(memory)}
    return caps, stats, units


def test_units_are_traced_at_every_dtype_the_device_runs(built):
    _, _, units = built
    unit = units["test_add_in_place"]
    assert [d for _, d in unit.device] == [("float32",), ("int64",)]
    assert sorted(t.dtype for t in unit.traces) == ["float32", "int64"]
    assert unit.trace_at("int64").kernel_dtypes["aten::add_.Tensor"] == ("int64",)


def test_every_dtype_a_kernel_sees_is_recorded(built):
    caps, _, units = built
    unit = units["test_doubled_reference"]
    assert "float64" in unit.trace_at("float32").kernel_dtypes["aten::uniform_"]
    verdict = rules.decide(unit, caps, OUT)
    assert verdict.mode == Mode.skip and "uniform_(float64)" in verdict.rationale


def test_device_side_lowerings_are_required(built):
    caps, _, units = built
    unit = units["test_gru_cell_step"]
    assert "aten::_thnn_fused_gru_cell" in unit.kernel_ops
    assert "_thnn_fused_gru_cell" in rules.decide(unit, caps, OUT).evidence


def test_convolution_needs_the_overridable_kernel_not_the_cpu_one(built):
    caps, _, units = built
    unit = units["test_conv2d_step"]
    assert "aten::convolution_overrideable" in unit.kernel_ops
    # the CPU branch's kernels (slow conv / oneDNN) are not what a privateuse1 device runs
    assert not {"aten::_slow_conv2d_forward", "aten::mkldnn_convolution"} & set(unit.kernel_ops)
    assert "float32" in unit.trace_at(unit.traces[0].dtype).kernel_dtypes["aten::convolution_overrideable"]
    assert "convolution_overrideable" in rules.decide(unit, caps, OUT).evidence


def test_a_tracer_induced_error_is_confirmed_untraced(built):
    caps, _, units = built
    unit = units["test_mode_sensitive"]
    assert unit.status == "trace_error" and "passed untraced" in unit.traces[0].note
    assert rules.decide(unit, caps, OUT) is None  # not "fails on CPU already"


def test_out_of_scope_tests_are_not_traced(built):
    caps, stats, units = built
    unit = units["test_gradcheck_slow"]
    assert unit.traces == () and unit.status is None
    verdict = DeterministicEngine().decide([unit], Context(caps, OUT, {}))[unit.unit_id]
    assert verdict.mode == Mode.skip and "autograd" in verdict.rationale


def test_device_restrictions_are_bucketed_skip_and_not_traced(built):
    caps, _, units = built
    for name in ("test_cpu_only", "test_native_only"):
        assert units[name].traces == ()  # it never runs on spyre: no trace needed
        verdict = DeterministicEngine().decide([units[name]], Context(caps, OUT, {}))[units[name].unit_id]
        assert verdict.mode == Mode.skip and "skip itself on spyre" in verdict.rationale
