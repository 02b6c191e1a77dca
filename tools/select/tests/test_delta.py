"""Delta on two small synthetic torch/testing/_internal trees and a hand-filled memory."""

import textwrap

import pytest

from testing.config.modes import Mode
from tools.select.bucket import bucket
from tools.select.bucket.engines import DeterministicEngine
from tools.select.bucket.rules import Verdict
from tools.select.delta import delta as dl
from tools.select.delta import deltarun
from tools.select.memory import opinfo_index as oi
from tools.select.memory.store import Memory
from tools.select.tests.helpers import HashEmbedder

OLD = """
import unittest
def sample_inputs_foo(op_info, device, dtype, requires_grad, **kwargs):
    yield 1
def sample_inputs_bar(op_info, device, dtype, requires_grad, **kwargs):
    yield 2
op_db = [
    OpInfo('foo', dtypes=floating_types(), sample_inputs_func=sample_inputs_foo,
           skips=(DecorateInfo(unittest.expectedFailure, 'TestA', 'test_x'),)),
    OpInfo('bar', dtypes=floating_types(), sample_inputs_func=sample_inputs_bar),
    OpInfo('baz', dtypes=floating_types(), dtypesIfCUDA=floating_types()),
    OpInfo('gone', dtypes=floating_types()),
    OpInfo('qux', dtypes=floating_types()),
    OpInfo('cpuonly', dtypes=floating_types()),
]
"""
NEW = """
import unittest
def sample_inputs_foo(op_info, device, dtype, requires_grad, **kwargs):
    yield 1
def sample_inputs_bar(op_info, device, dtype, requires_grad, **kwargs):
    yield 3
op_db = [
    OpInfo('foo', dtypes=floating_types(), sample_inputs_func=sample_inputs_foo),
    OpInfo('bar', dtypes=floating_types(), sample_inputs_func=sample_inputs_bar),
    OpInfo('baz', dtypes=floating_types(), dtypesIfCUDA=floating_types_and(torch.half)),
    OpInfo('qux', dtypes=floating_types_and(torch.int64),
           skips=(DecorateInfo(unittest.skip("flaky"), 'TestA', 'test_y'),)),
    OpInfo('cpuonly', dtypes=floating_types(),
           skips=(DecorateInfo(unittest.expectedFailure, 'TestA', 'test_x', device_type='cpu'),)),
    OpInfo('fresh', dtypes=floating_types()),
]
"""


@pytest.fixture
def trees(tmp_path):
    roots = {}
    for name, text in (("old", OLD), ("new", NEW)):
        internal = tmp_path / name / "torch" / "testing" / "_internal"
        internal.mkdir(parents=True)
        (internal / "common_methods_invocations.py").write_text(textwrap.dedent(text))
        roots[name] = internal
    return roots


def test_field_level_diff(trees):
    changes = dl.diff_indexes(oi.build_index(trees["old"]), oi.build_index(trees["new"]))
    assert changes["gone"].status == "removed" and changes["fresh"].status == "added"
    assert changes["bar"].samples and not changes["bar"].decorations_removed
    assert len(changes["foo"].decorations_removed) == 1 and not changes["foo"].samples
    assert changes["baz"].foreign_only  # CUDA dtypes only
    assert changes["cpuonly"].foreign_only  # a cpu-only decorator never reaches the device
    assert changes["qux"].dtypes_added == {"int64"} and len(changes["qux"].decorations_added) == 1


def _fill(memory: Memory):
    tests = []
    for name in ("test_x", "test_y"):
        tests.append(
            {
                "test_id": f"f.py::TestA::{name}",
                "file": "f.py",
                "cls": "TestA",
                "name": name,
                "lineno": 1,
                "kind": "ops",
                "op_list": "op_db",
                "decorators": "[]",
                "dtypes": "[]",
                "features": "[]",
                "device_generic": 1,
                "content_hash": name,
                "summary": f"{name} over ops",
                "embed_hash": name,
            }
        )
    memory.put_file("f.py", "h", "f", [], tests)
    items = []
    for test in ("test_x", "test_y"):
        for op in ("foo", "bar", "baz", "gone", "qux", "cpuonly"):
            key = f"{test}-{op}"
            status = "xfailed" if (test, op) == ("test_x", "foo") else "passed"
            memory.put_trace(key, status, "float32", [f"aten::{op}"], ["aten::add.Tensor"], [], "")
            items.append({"cls": "TestA", "test": test, "variant": op, "dtypes": ["float32"], "key": key})
    memory.put_variants("f.py", items)
    memory.put_embeddings(
        "t", [("test_x", b"\x00\x00\x80\x3f" + b"\x00" * 4), ("test_y", b"\x00" * 4 + b"\x00\x00\x80\x3f")]
    )


def test_delta_reevaluates_only_what_the_device_can_see(trees, tmp_path, small_caps):
    with Memory(tmp_path / "m.db") as memory:
        _fill(memory)
        result = deltarun.run(
            memory,
            small_caps,
            DeterministicEngine(),
            {},
            trees["new"],
            "9.9",
            old_internal=trees["old"],
            embedder=HashEmbedder(),
        )
    affected = {uid.split("::", 1)[1]: why for uid, why in result.plan.affected.items()}
    assert set(affected) == {
        "TestA::test_x[foo]",
        "TestA::test_x[bar]",
        "TestA::test_x[qux]",
        "TestA::test_y[bar]",
        "TestA::test_y[qux]",
        "TestA::test_x[fresh]",
        "TestA::test_y[fresh]",
    }
    assert "decorators" in affected["TestA::test_x[foo]"] and "sample-input" in affected["TestA::test_y[bar]"]
    assert len(result.plan.removed) == 2  # gone, for both tests
    assert result.full_units == 12 - 2 + 2
    # the removed expectedFailure leaves test_x[foo] to the neighbours; it was skip before
    x_foo = next(uid for uid in result.verdicts if uid.endswith("test_x[foo]"))
    assert (
        result.verdicts[x_foo].mode == Mode.mandatory_success
        and "re-evaluated for 9.9" in result.verdicts[x_foo].rationale
    )
    assert x_foo in result.flipped
    # the new generic skip on qux for test_y makes it skip
    y_qux = next(uid for uid in result.verdicts if uid.endswith("test_y[qux]"))
    assert result.verdicts[y_qux].mode == Mode.skip
    assert result.unchanged_mismatch == [] and result.delta_mismatch == []
    assert "units: full 12, delta 7" in result.report()


def test_dtype_expressions_evaluate_with_torch_helpers():
    assert dl.eval_dtypes("floating_types_and(torch.half)") == {"float32", "float64", "float16"}
    assert dl.eval_dtypes("some_helper_only_in_2_99()") is None


def test_a_prior_demoted_by_the_base_configs_matches_a_full_mandatory_decision():
    # `select bucket --base-config` demotes mandatory units its configs generate no test of;
    # the delta's full run decides before that check: 497 "mismatches" on the README's run.
    demoted = Verdict(Mode.skip, "the plugin generates no test of it", source=bucket.GENERATION)
    assert deltarun.same(demoted, Verdict(Mode.mandatory_success, "traced", dtypes=("float32",)))
    assert not deltarun.same(demoted, Verdict(Mode.xfail, "numerics"))
    decided = Verdict(Mode.skip, "op not in the table")
    assert not deltarun.same(decided, Verdict(Mode.mandatory_success, "traced", dtypes=("float32",)))
    assert deltarun.same(decided, Verdict(Mode.skip, "op not in the table, said otherwise"))
