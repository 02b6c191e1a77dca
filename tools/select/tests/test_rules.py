from testing.config.modes import Mode
from tools.select.bucket import rules
from tools.select.tests.helpers import unit


def test_supported_unit_is_mandatory_with_runnable_dtypes(small_caps):
    verdict = rules.decide(unit(), small_caps, {})
    assert verdict.mode == Mode.mandatory_success
    assert verdict.dtypes == ("float32", "int64")
    assert "add.Tensor" in verdict.rationale and "float16" in verdict.rationale  # precision note


def test_missing_op_skips_and_names_it(small_caps):
    facts = unit(kernel_ops=("aten::mm", "aten::add.Tensor"))
    verdict = rules.decide(facts, small_caps, {})
    assert verdict.mode == Mode.skip and "mm" in verdict.rationale and verdict.evidence == ("mm",)


def test_dtypes_narrow_and_all_refused_skips(small_caps):
    narrowed = rules.decide(unit(variant="exp", kernel_ops=("aten::exp",)), small_caps, {})
    assert narrowed.mode == Mode.mandatory_success and narrowed.dtypes == ("float32",)
    assert "left out int64: exp lacks it" in narrowed.rationale and "refused by" not in narrowed.rationale
    refused = rules.decide(
        unit(variant="exp", kernel_ops=("aten::exp",), dtypes=("float64",)), small_caps, {}
    )
    assert refused.mode == Mode.skip and "float64" in refused.rationale


def test_input_creation_ops_do_not_veto_a_dtype(small_caps):
    # uniform_ has no int64 on the device, but int64 inputs are made with random_ instead
    verdict = rules.decide(unit(kernel_ops=("aten::add.Tensor", "aten::uniform_")), small_caps, {})
    assert "int64" in verdict.dtypes


def test_cpu_status_and_features_come_first(small_caps):
    assert "crash" in rules.decide(unit(status="crashed", error="died"), small_caps, {}).rationale
    assert rules.decide(unit(status="failed", error="AssertionError"), small_caps, {}).mode == Mode.skip
    assert rules.decide(unit(status="skipped"), small_caps, {}).mode == Mode.skip
    out = {"autograd": "scope file marks it out"}
    verdict = rules.decide(unit(features=("autograd",)), small_caps, out)
    assert verdict.mode == Mode.skip and "autograd" in verdict.rationale


def test_layout_rule(small_caps):
    facts = unit(name="test_noncontiguous_matches", variant="cumsum", kernel_ops=("aten::cumsum",))
    assert "non-contiguous" in rules.decide(facts, small_caps, {}).rationale


def test_untraced_unit_is_a_tie(small_caps):
    assert rules.decide(unit(status=None), small_caps, {}) is None


# ---------------------------------------------------------------- per-dtype traces (issue 17)


def _trace(dtype, kernel_dtypes, status="passed", error=""):
    from tools.select.memory.store import TraceRow

    ops = tuple(sorted(kernel_dtypes))
    return TraceRow(
        dtype, status, ops, ops, {op: tuple(d) for op, d in kernel_dtypes.items()}, ("aten::isclose",), error
    )


def _device(*dtypes):
    return tuple((f"test_x_add_{{device}}_{d}", (d,)) for d in dtypes)


def test_a_float64_tensor_a_float32_test_creates_blocks_it(small_caps):
    # the float32 run draws a float64 reference with uniform_: the device has no float64 uniform_
    traces = (
        _trace("float32", {"aten::add.Tensor": ["float32"], "aten::uniform_": ["float32", "float64"]}),
        _trace("int64", {"aten::add.Tensor": ["int64"], "aten::random_.from": ["int64"]}),
    )
    facts = unit(
        device=_device("float32", "int64"),
        traces=traces,
        kernel_ops=("aten::add.Tensor", "aten::uniform_", "aten::random_.from"),
    )
    verdict = rules.decide(facts, small_caps, {})
    assert verdict.mode == Mode.mandatory_success and verdict.dtypes == ("int64",)
    assert "float32: uniform_(float64) lacks it" in verdict.rationale


def test_cpu_failure_at_one_dtype_leaves_only_that_dtype_out(small_caps):
    traces = (
        _trace("float32", {"aten::add.Tensor": ["float32"]}),
        _trace("int64", {"aten::add.Tensor": ["int64"]}, status="failed", error="AssertionError: boom"),
    )
    verdict = rules.decide(
        unit(device=_device("float32", "int64"), traces=traces, kernel_ops=("aten::add.Tensor",)),
        small_caps,
        {},
    )
    assert verdict.dtypes == ("float32",) and "int64: CPU failed: AssertionError: boom" in verdict.rationale


def test_a_tracer_error_is_never_blamed_on_cpu(small_caps):
    facts = unit(
        status="trace_error", error="RuntimeError: crow_indices expected sparse row compressed layout"
    )
    assert rules.decide(facts, small_caps, {}) is None  # the engine's neighbours decide, not "fails on CPU"


def test_out_of_scope_units_are_skipped_without_a_trace(small_caps):
    facts = unit(status=None, kernel_ops=(), features=("autograd",))
    verdict = rules.decide(facts, small_caps, {"autograd": "scope file marks it out"})
    assert verdict.mode == Mode.skip and "autograd" in verdict.rationale


def test_precision_note_only_where_floats_are_compared(small_caps):
    ints = rules.decide(
        unit(
            dtypes=("int64",),
            device=_device("int64"),
            traces=(_trace("int64", {"aten::add.Tensor": ["int64"]}),),
        ),
        small_caps,
        {},
    )
    assert ints.mode == Mode.mandatory_success and "float16" not in ints.rationale
    repr_like = rules.decide(
        unit(name="test_repr", variant="", dtypes=(), compare_ops=(), kernel_ops=("aten::add.Tensor",)),
        small_caps,
        {},
    )
    assert repr_like.mode == Mode.mandatory_success and "tolerance" not in repr_like.rationale
    floats = rules.decide(
        unit(
            dtypes=("float32",),
            device=_device("float32"),
            traces=(_trace("float32", {"aten::add.Tensor": ["float32"]}),),
        ),
        small_caps,
        {},
    )
    assert "; add.Tensor compute through float16 on spyre" in floats.rationale


def test_device_restrictions_skip_as_the_plugin_runs_them(small_caps):
    only_cpu = rules.decide(unit(decorators=("onlyCPU",)), small_caps, {})
    assert only_cpu.mode == Mode.skip and "@onlyCPU makes it skip itself on spyre" in only_cpu.rationale
    native = rules.decide(unit(decorators=("onlyNativeDeviceTypes",)), small_caps, {})
    assert native.mode == Mode.skip and "onlyNativeDeviceTypes" in native.rationale
    on = rules.decide(unit(decorators=("onlyOn(['cpu', 'cuda'])",)), small_caps, {})
    assert on.mode == Mode.skip
    allowed = rules.decide(
        unit(decorators=("onlyOn(['cuda', 'privateuse1'])", "onlyCUDAAndPRIVATEUSE1")), small_caps, {}
    )
    assert allowed.mode == Mode.mandatory_success
    only_for = rules.decide(
        unit(restrictions={"only_for": ["cpu", "cuda"], "except_for": []}), small_caps, {}
    )
    assert only_for.mode == Mode.skip and "only_for" in only_for.rationale
