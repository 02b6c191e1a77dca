from tools.select import rules
from tools.select.tests.helpers import unit


def test_supported_unit_is_mandatory_with_runnable_dtypes(small_caps):
    verdict = rules.decide(unit(), small_caps, {})
    assert verdict.mode == rules.MANDATORY
    assert verdict.dtypes == ("float32", "int64")
    assert "add.Tensor" in verdict.rationale and "float16" in verdict.rationale  # precision note


def test_missing_op_skips_and_names_it(small_caps):
    facts = unit(kernel_ops=("aten::mm", "aten::add.Tensor"))
    verdict = rules.decide(facts, small_caps, {})
    assert verdict.mode == rules.SKIP and "mm" in verdict.rationale and verdict.evidence == ("mm",)


def test_dtypes_narrow_and_all_refused_skips(small_caps):
    narrowed = rules.decide(unit(variant="exp", kernel_ops=("aten::exp",)), small_caps, {})
    assert narrowed.mode == rules.MANDATORY and narrowed.dtypes == ("float32",)
    assert "int64 refused by exp" in narrowed.rationale
    refused = rules.decide(unit(variant="exp", kernel_ops=("aten::exp",), dtypes=("float64",)), small_caps, {})
    assert refused.mode == rules.SKIP and "float64" in refused.rationale


def test_input_creation_ops_do_not_veto_a_dtype(small_caps):
    # uniform_ has no int64 on the device, but int64 inputs are made with random_ instead
    verdict = rules.decide(unit(kernel_ops=("aten::add.Tensor", "aten::uniform_")), small_caps, {})
    assert "int64" in verdict.dtypes


def test_cpu_status_and_features_come_first(small_caps):
    assert "crash" in rules.decide(unit(status="crash", error="died"), small_caps, {}).rationale
    assert rules.decide(unit(status="failed", error="AssertionError"), small_caps, {}).mode == rules.SKIP
    assert rules.decide(unit(status="skipped"), small_caps, {}).mode == rules.SKIP
    out = {"autograd": "scope file marks it out"}
    verdict = rules.decide(unit(features=("autograd",)), small_caps, out)
    assert verdict.mode == rules.SKIP and "autograd" in verdict.rationale


def test_layout_rule(small_caps):
    facts = unit(name="test_noncontiguous_matches", variant="cumsum", kernel_ops=("aten::cumsum",))
    assert "non-contiguous" in rules.decide(facts, small_caps, {}).rationale


def test_untraced_unit_is_a_tie(small_caps):
    assert rules.decide(unit(status=None), small_caps, {}) is None
