import pytest

from testing.matrix import lpt as planner


def ids(n, prefix="t.py::test_"):
    return [f"{prefix}{i}" for i in range(n)]


def test_lpt_puts_longest_tests_on_separate_shards():
    nodeids = ids(6)
    recorded = dict(zip(nodeids, [10, 9, 1, 1, 1, 1]))
    plan = planner.lpt_plan(nodeids, 2, recorded)
    assert plan.shard_of(nodeids[0]) != plan.shard_of(nodeids[1])
    assert plan.loads == (12.0, 11.0) or sorted(plan.loads) == [11.0, 12.0]
    assert plan.makespan == 12.0


def test_round_robin_deals_in_collection_order():
    nodeids = ids(5)
    plan = planner.round_robin_plan(nodeids, 2, {})
    assert plan.shards == ((nodeids[0], nodeids[2], nodeids[4]), (nodeids[1], nodeids[3]))


def test_every_test_exactly_once_and_collection_order_kept():
    nodeids = ids(37)
    recorded = {n: (i * 7919) % 13 + 0.5 for i, n in enumerate(nodeids)}
    for total in (1, 2, 3, 8, 50):
        plan = planner.lpt_plan(nodeids, total, recorded)
        flat = [n for shard in plan.shards for n in shard]
        assert sorted(flat) == sorted(nodeids)
        for shard in plan.shards:
            assert list(shard) == sorted(shard, key=nodeids.index)


def test_lpt_beats_round_robin_on_skewed_durations():
    nodeids = ids(48)  # 12 tests of 30 s (every 4th), 36 of 1 s
    recorded = {n: (30.0 if i % 4 == 0 and i < 48 else 1.0) for i, n in enumerate(nodeids)}
    lpt = planner.lpt_plan(nodeids, 4, recorded)
    rr = planner.round_robin_plan(nodeids, 4, recorded)
    ideal = planner.ideal_makespan(recorded.values(), 4)
    assert lpt.makespan / ideal <= 1.05
    assert rr.makespan / ideal > 1.5


def test_plan_is_deterministic_under_ties():
    nodeids = ids(10)
    a = planner.lpt_plan(nodeids, 3, {})
    b = planner.lpt_plan(list(nodeids), 3, {})
    assert a.shards == b.shards


def test_estimates_prefer_class_then_file_then_median():
    recorded = {
        "a.py::TestX::test_1": 4.0,
        "a.py::TestX::test_2": 6.0,
        "a.py::test_free": 100.0,
        "b.py::test_b": 1.0,
    }
    wanted = [
        "a.py::TestX::test_1",
        "a.py::TestX::test_new",
        "a.py::TestY::test_new",
        "c.py::test_c",
        "a.py::test_free",
        "b.py::test_b",
        "a.py::TestX::test_2",
    ]
    est = planner.estimate_durations(wanted, recorded)
    assert est["a.py::TestX::test_1"] == planner.Estimate(4.0, "recorded")
    assert est["a.py::TestX::test_new"] == planner.Estimate(5.0, "class-mean")
    assert est["a.py::TestY::test_new"].source == "file-mean"
    assert est["a.py::TestY::test_new"].seconds == pytest.approx((4 + 6 + 100) / 3)
    assert est["c.py::test_c"] == planner.Estimate(5.0, "median")  # median of 1, 4, 6, 100


def test_estimates_without_any_data_use_default():
    est = planner.estimate_durations(["x.py::test_a"], {})
    assert est["x.py::test_a"] == planner.Estimate(planner.DEFAULT_SECONDS, "default")


def test_recorded_under_junit_key_is_found():
    recorded = {"pkg.test_m.TestC::test_z[1]": 3.0}
    assert planner.lookup(recorded, "pkg/test_m.py::TestC::test_z[1]") == 3.0


@pytest.mark.parametrize("total", [0, -1])
def test_rejects_bad_shard_count(total):
    with pytest.raises(ValueError, match="shard count"):
        planner.lpt_plan(ids(3), total, {})


def test_rejects_duplicate_nodeids():
    with pytest.raises(ValueError, match="duplicate"):
        planner.lpt_plan(["a.py::t", "a.py::t"], 2, {})


def test_true_makespan_scores_plan_with_actual_durations():
    nodeids = ids(4)
    plan = planner.round_robin_plan(nodeids, 2, {})
    actual = dict(zip(nodeids, [5.0, 1.0, 5.0, 1.0]))
    assert planner.true_makespan(plan, actual) == 10.0
