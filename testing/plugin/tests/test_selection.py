"""selection.py: matching, support filters, decisions, mark filter (pure, no torch)."""

from testing.base.errors import Loc
from testing.config.models import Mode, TestEntry
from testing.plugin.plan import FilePlan, Rule
from testing.plugin.selection import (
    MarkFilter,
    OpSupport,
    Support,
    Variant,
    decide,
    is_plugin_mark,
    mark_name,
    marks_for,
    match_rule,
    should_instantiate,
    unknown_patterns,
)


def plan(*entries, unlisted=Mode.skip):
    rules = tuple(Rule(TestEntry(**e), Loc("c.yaml", i + 1)) for i, e in enumerate(entries))
    return FilePlan(
        "/t.py", unlisted, "why" if unlisted != Mode.skip else None, False, False, rules, Loc("c.yaml", 0)
    )


def v(test="test_x", op=None, dtypes=(), module=None, cls="TestA", name=None):
    return Variant(cls, test, name or f"{test}_{op or ''}_dev", op=op, aten=op, dtypes=dtypes, module=module)


def test_most_specific_entry_wins():
    fp = plan(
        {"names": "TestA::test_x"},
        {"names": "TestA::test_x", "ops": ["mul"], "mode": "xfail", "reason": "r"},
        {"names": "test_x_mul_dev", "mode": "skip", "reason": "r"},
        {"names": "Test*::test_*", "mode": "xfail_strict", "reason": "r"},
        {"names": "TestA::test_x_*_train_mode_dev", "mode": "xfail", "reason": "r"},
    )
    assert match_rule(fp, v(op="add")).loc.line == 1
    assert match_rule(fp, v(op="mul", name="test_x_mul_other")).loc.line == 2
    assert match_rule(fp, v(op="mul")).loc.line == 3  # exact variant name beats selectors
    assert match_rule(fp, v(test="test_y")).loc.line == 4
    assert match_rule(fp, v(cls="Other", test="test_y")) is None
    assert (
        match_rule(fp, v(op="m", name="test_x_m_train_mode_dev")).loc.line == 5
    )  # variant glob > exact test


def test_unlisted_default_skip_and_reasoned_unlisted_mode():
    assert decide(plan(), Support(), v()) is None
    d = decide(plan(unlisted=Mode.xfail), Support(), v())
    assert d.mode == Mode.xfail and d.reason == "why"


def test_support_filters_ops_dtypes_and_edits():
    support = Support(
        ops={"add": OpSupport(), "mul": OpSupport(dtypes=frozenset({"float32"}))},
        dtypes=frozenset({"float32", "int64"}),
    )
    fp = plan(
        {
            "names": "test_x",
            "edits": {
                "ops": {"include": ["sub"], "exclude": ["add"]},
                "dtypes": {"include": ["float64"], "exclude": ["int64"]},
            },
        }
    )
    assert decide(fp, support, v(op="add", dtypes=("float32",))) is None  # excluded by edit
    assert decide(fp, support, v(op="sub", dtypes=("float32",))) is not None  # included by edit
    assert decide(fp, support, v(op="mul", dtypes=("float32",))) is not None
    assert (
        decide(fp, support, v(op="mul", dtypes=("float64",))) is not None
    )  # the test's include is most specific
    assert (
        decide(plan({"names": "test_x"}), support, v(op="mul", dtypes=("int64",))) is None
    )  # op-level dtypes
    assert decide(fp, support, v(op="sub", dtypes=("float64",))) is not None
    assert decide(fp, support, v(op="sub", dtypes=("int64",))) is None
    assert decide(fp, support, v(op="sub", dtypes=("float32", "int64"))) is None  # tuple: all members
    assert decide(fp, support, v(op="sub")) is not None  # no dtype (OpDTypes.none) passes


def test_force_xfail_and_precision():
    support = Support(
        ops={"sum": OpSupport(precision=(("float32", 1e-2, 1e-3),), xfail_reason="fp16 accumulation")},
        dtype_precision={"float32": (1e-4, 0.0), "float16": (1e-2, 0.0)},
    )
    fp = plan({"names": "test_x"}, {"names": "test_y", "mode": "xfail_strict", "reason": "own"})
    d = decide(fp, support, v(op="sum", dtypes=("float32",)))
    assert (d.mode, d.reason, d.precision) == (Mode.xfail, "fp16 accumulation", (("float32", 1e-2, 1e-3),))
    assert decide(fp, support, v(test="test_y", op="sum")).mode == Mode.xfail_strict  # explicit mode kept


def test_marks_are_sanitised_and_complete():
    d = decide(
        plan({"names": "test_x", "tags": ["slow"], "mode": "xfail", "reason": "r"}),
        Support(),
        v(op="div.no_rounding_mode", dtypes=("float32", "int64"), module="nn.Linear"),
    )
    assert marks_for(v(op="div.no_rounding_mode", dtypes=("float32", "int64"), module="nn.Linear"), d) == [
        "op__div_no_rounding_mode",
        "dtype__float32",
        "dtype__int64",
        "module__nn_Linear",
        "bucket__xfail",
        "slow",
        "xfail",
    ]
    assert mark_name("op__", "_refs.add") == "op___refs_add"


def test_should_instantiate_and_unknown_patterns():
    fp = plan({"names": "TestA::test_x_add_*"}, {"names": "TestA::test_z", "mode": "skip", "reason": "r"})
    assert should_instantiate(fp, "TestA", "test_x")
    assert not should_instantiate(fp, "TestA", "test_z")  # only a skip entry names it
    assert not should_instantiate(fp, "TestA", "test_w")
    missing = unknown_patterns(
        plan({"names": ["TestA::test_x", "TestA::nope", "TestB::*"]}), [("TestA", "test_x")]
    )
    assert [p for _, p in missing] == ["TestA::nope", "TestB::*"]


def test_mark_filter_generation_time_semantics():
    known = lambda n: is_plugin_mark(n)  # noqa: E731
    f = MarkFilter("op__add", known)
    assert f.may_select(["op__add", "dtype__float32"]) and not f.may_select(["op__mul"])
    f = MarkFilter("op__add and slow", known)  # unknown 'slow' may be set later
    assert f.may_select(["op__add"]) and not f.may_select(["op__mul"])
    f = MarkFilter("not (op__add or slow)", known)
    assert not f.may_select(["op__add"]) and f.may_select(["op__mul"])
    f = MarkFilter("op__add and dtype__int64", known)
    assert f.may_select(["op__add"], open_prefixes=("dtype__",))  # dtype not known yet while narrowing ops
    assert not f.may_select(["op__add", "dtype__float32"])
    assert not MarkFilter("timeout(5)", known).active and not MarkFilter(None, known).active
