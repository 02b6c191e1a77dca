"""Flaky tests, promotion candidates, first-seen/last-passed, pass rates, history and the
heat map on hand-made histories (both backends)."""

from __future__ import annotations

from crcr.warehouse import queries
from crcr.warehouse.ingest import ingest
from crcr.warehouse.tests.history import DAY, NOW, case, leg


def fill(wh, outcomes_by_run, name="test_t", **kw):
    """One leg per run, `name` with the given outcome, plus a steady passing neighbour."""
    for run, outcome in enumerate(outcomes_by_run):
        tests = [case(name, outcome, rule=kw.get("rule", "")), case("test_steady", "passed")]
        ingest(
            wh, leg(run, tests, started=NOW - DAY + run * 600, **{k: v for k, v in kw.items() if k != "rule"})
        )


def test_flaky_at_the_same_shas_with_evidence(wh):
    fill(wh, ["passed", "failed"], upstream="a" * 40)  # same upstream and backend SHAs
    (flake,) = queries.flaky(wh, NOW)
    assert flake.test_id.endswith("::test_t") and flake.reason == "same SHAs"
    assert [e[4] for e in flake.evidence] == ["passed", "failed"]
    assert {e[1] for e in flake.evidence} == {"a" * 40}


def test_flaky_by_flip_rate_but_a_regression_is_not_a_flake(wh):
    fill(wh, ["passed", "failed", "passed", "failed", "passed"])  # a new upstream SHA each run
    (flake,) = queries.flaky(wh, NOW)
    assert (flake.reason, flake.flip_rate, flake.runs) == ("flip rate", 1.0, 5)
    assert queries.flaky(wh, NOW + 2 * DAY, days=1) == []  # out of the window


def test_a_flip_rate_flake_shows_its_latest_runs_in_order(wh):
    runs = ["passed", "failed"] * 12  # 24 runs, each at a new upstream SHA
    fill(wh, runs)
    (flake,) = queries.flaky(wh, NOW)
    assert (flake.reason, flake.runs, flake.flip_rate) == ("flip rate", 24, 1.0)
    assert len(flake.evidence) == queries.EVIDENCE_RUNS
    assert [e[4] for e in flake.evidence] == runs[-queries.EVIDENCE_RUNS :]
    assert [e[1] for e in flake.evidence] == [f"{r:040x}" for r in range(24 - queries.EVIDENCE_RUNS, 24)]
    assert {e[3] for e in flake.evidence} == {"test-ops"}  # the leg's job, from legs


def test_one_change_of_state_is_a_regression_not_a_flake(wh):
    fill(wh, ["passed", "passed", "failed", "failed"])
    assert queries.flaky(wh, NOW) == []
    (failing,) = queries.failing_tests(wh)
    assert failing.test_id.endswith("::test_t") and failing.outcome == "failed"
    assert failing.first_seen == int(NOW - DAY)
    assert failing.first_failed == int(NOW - DAY + 2 * 600)
    assert failing.last_passed == int(NOW - DAY + 600) and failing.last_passed_sha == f"{1:040x}"
    assert failing.latest_sha == f"{3:040x}"


def test_promotion_needs_k_passing_runs_in_a_row(wh):
    rule = "configs/spyre/op_consistency.yaml:36"
    fill(wh, ["xfailed", "xpassed_strict", "xpassed_strict"], rule=rule)
    assert queries.promotion_candidates(wh, k=3) == []
    (p,) = queries.promotion_candidates(wh, k=2)
    assert p.rule == rule and [o for _, _, o in p.last] == ["xpassed_strict", "xpassed_strict"]
    ingest(wh, leg(9, [case("test_t", "xfailed", rule=rule)], started=NOW))
    assert queries.promotion_candidates(wh, k=2) == []  # the latest run failed again


def test_promotion_counts_every_run_not_only_the_promotable_ones(wh):
    # the promotable runs alone would say "3 XPASSes"; the xfailed one between breaks the row
    fill(wh, ["xpassed", "xpassed_strict", "xfailed", "xpassed_strict"], rule="configs/x.yaml:5")
    assert queries.promotion_candidates(wh, k=2) == []
    (p,) = queries.promotion_candidates(wh, k=1)
    assert [o for _, _, o in p.last] == ["xpassed_strict"]
    # the same start time: ingest order decides which run is the later one
    ingest(wh, leg(7, [case("test_t", "xfailed", rule="configs/x.yaml:5")], started=NOW - DAY + 3 * 600))
    assert queries.promotion_candidates(wh, k=1) == []


def test_promotion_diff_is_the_plugins(wh, tmp_path):
    from crcr.warehouse.promote import candidate_diff

    cfg = tmp_path / "configs" / "x.yaml"
    cfg.parent.mkdir()
    cfg.write_text(
        "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/pkg/test_x.py\n      tests:\n"
        "        - names: [TestX::test_t]\n          mode: xfail_strict\n          reason: not yet\n"
    )
    fill(wh, ["xpassed_strict"] * 3, rule="configs/x.yaml:5")
    diff = candidate_diff(wh, queries.promotion_candidates(wh, k=3), tmp_path)
    assert "--- configs/x.yaml" in diff and "-          mode: xfail_strict" in diff
    assert "mandatory_success" in diff  # every test of the rule passed: the entry flips


def test_pass_rate_per_feature_over_commits_and_days(wh):
    ingest(
        wh, leg(1, [case("a", "passed"), case("b", "failed"), case("c", "skipped")], started=NOW - 2 * DAY)
    )
    ingest(wh, leg(2, [case("a", "passed"), case("b", "passed"), case("c", "xfailed")], started=NOW - DAY))
    ingest(wh, leg(3, [case("a", "xpassed_strict")], job="test-mods", started=NOW - DAY))
    points = sorted(queries.pass_rate_over_commits(wh), key=lambda p: (p.at, p.series))
    assert [(p.series, p.passed, p.failed, p.rate) for p in points] == [
        ("ops", 1, 1, 0.5),
        ("mods", 1, 0, 1.0),  # a strict XPASS passed (testing/results' tally)
        ("ops", 2, 0, 1.0),
    ]
    days = queries.pass_rate_by_day(wh, NOW, days=2)  # strictly after NOW - 2 days
    assert sorted((p.series, p.passed, p.failed) for p in days) == [("mods", 1, 0), ("ops", 2, 0)]


def test_history_of_an_op_and_the_latest_heatmap(wh):
    for run, outcome in enumerate(["passed", "failed"]):
        tests = [
            case("test_add_f32", outcome, op="add", dtype="float32"),
            case("test_add_f16", "passed", op="add", dtype="float16"),
            case("test_mul_two", "passed", op="mul", dtype="float32,float16"),
        ]
        ingest(wh, leg(run, tests, started=NOW - DAY + run * 60))
    hist = queries.history(wh, op="add")
    assert [h.outcomes for h in hist] == [{"passed": 2}, {"failed": 1, "passed": 1}]
    head, cells = queries.heatmap_latest(wh)
    assert head.run_id == "1"
    assert [(c.op, c.dtype, c.passed, c.failed) for c in cells] == [
        ("add", "float16", 1, 0),
        ("add", "float32", 0, 1),
        ("mul", "float16", 1, 0),
        ("mul", "float32", 1, 0),
    ]


def test_dispatches_carry_triage_verdict_and_bisection(wh):
    from dataclasses import replace

    red = replace(
        leg(1, [case("a", "failed")], conclusion="failure"),
        triage_verdict={"schema_version": 1, "category": "upstream", "confidence": "high", "summary": "x"},
        bisection={"first_bad": "c" * 40, "last_good": "d" * 40},
    )
    ingest(wh, red)
    ingest(wh, leg(1, [case("a", "passed")], job="test-other"))
    (d,) = queries.dispatches(wh)
    assert (d.legs, d.legs_green) == (2, 1)
    assert d.verdicts == (
        {
            "job": "test-ops",
            "schema_version": 1,
            "category": "upstream",
            "confidence": "high",
            "summary": "x",
        },
    )
    assert d.bisections[0]["first_bad"] == "c" * 40


def test_a_leg_stored_twice_counts_once_in_the_windowed_questions(wh, monkeypatch):
    """Two writers racing past the "already stored?" check (possible on a server) leave two
    ingests of one leg; the windowed questions read only their window's legs for liveness
    (schema.live's `since`) and must still take one of them."""
    from crcr.warehouse import ingest as mod

    fill(wh, ["passed", "failed", "passed", "failed"])
    monkeypatch.setattr(mod, "has_leg", lambda wh, key, status: False)  # the race: both writers store it
    ingest(wh, leg(3, [case("test_t", "failed"), case("test_steady", "passed")], started=NOW - DAY + 3 * 600))
    old = leg(90, [case("test_t", "failed")], started=NOW - 20 * DAY)  # outside every window below
    ingest(wh, old)
    ingest(wh, old)
    (flake,) = queries.flaky(wh, NOW, days=14)
    assert (flake.runs, flake.flip_rate) == (4, 1.0)
    by_day = queries.pass_rate_by_day(wh, NOW, days=14)
    assert sum(p.passed + p.failed for p in by_day) == 8
    assert queries.l3_metrics(wh, NOW, 14)["acme/oot-ci"].jobs == 4


def test_the_page_reads_its_horizon_not_every_leg_ever_stored(wh):
    """A quarter-old leg (a failing test, op tests, an xfail that passed) is in the command
    line's unbounded answers and in none of the page's (PageContext.horizon_days), which
    still show the recent leg."""
    from crcr.relay.panels import PageContext, render_panels

    old, new = "d" * 40, "e" * 40
    for run, (sha, started, outcome) in enumerate(
        [(old, NOW - 100 * DAY, "failed"), (new, NOW - DAY, "passed")]
    ):
        tests = [case("test_old" if run == 0 else "test_new", outcome, op="add", dtype="float32")]
        tests += [case("test_xp", "xpassed_strict", rule="c.yaml:1")]
        ingest(wh, leg(run, tests, started=started, upstream=sha, repo=f"acme/r{run}"))
    since = NOW - 90 * DAY
    assert len(queries.dispatches(wh)) == 2 and len(queries.dispatches(wh, since=since)) == 1
    assert [f.test_id[-8:] for f in queries.failing_tests(wh)] == ["test_old"]
    assert queries.failing_tests(wh, since=since) == []
    assert {p.x for p in queries.pass_rate_over_commits(wh)} == {old[:10], new[:10]}
    assert {p.x for p in queries.pass_rate_over_commits(wh, since=since)} == {new[:10]}
    assert queries.heatmap_latest(wh, since)[0].upstream_sha == new
    assert queries.repos(wh) == ["acme/r0", "acme/r1"] and queries.repos(wh, since=since) == ["acme/r1"]
    assert (
        len(queries.promotion_candidates(wh, 2)) == 1
        and queries.promotion_candidates(wh, 2, since=since) == []
    )
    assert {leg.upstream_sha for leg in queries.recent_legs(wh, since=since)} == {new}
    page = render_panels(wh, PageContext(NOW))
    assert new[:10] in page and old[:10] not in page and "test_old" not in page


def test_device_health_per_card_and_day_with_infra_verdicts(wh):
    """Issue 41: a card's failures and its legs' infra verdicts per UTC day, from the tally
    kept at ingest; a result's own device wins over its leg's; outside the horizon nothing."""
    from dataclasses import replace

    def on(device, outcome, name):
        return replace(case(name, outcome), device=device)

    infra = {"schema_version": 1, "category": "infra", "confidence": "high", "summary": "spyre:1 hung"}
    ingest(
        wh, replace(leg(1, [on("", "passed", "test_a"), on("spyre:0", "passed", "test_b")]), device="spyre:1")
    )
    hung = [on("spyre:0", "passed", "test_a"), on("spyre:1", "failed", "test_b")]
    ingest(wh, replace(leg(2, hung, started=NOW - DAY + 60), conclusion="failure", triage_verdict=infra))
    ingest(wh, leg(3, [on("spyre:1", "failed", "test_c")], started=NOW - 100 * DAY))  # a quarter ago
    day = queries.DeviceDay
    d1 = "2027-01-14"
    assert queries.device_health(wh, since=NOW - 90 * DAY) == [
        day("spyre:0", d1, 2, 0, 2, 1, False),
        day("spyre:1", d1, 2, 1, 2, 1, False),  # test_a took its leg's card; test_b failed on it
    ]
    assert [(d.device, d.day) for d in queries.device_health(wh)][-1] == ("spyre:1", d1)
    assert len(queries.device_health(wh)) == 3  # unbounded: the old day too


def test_a_leg_that_lost_its_card_counts_for_the_card_not_for_its_tests(wh):
    """Issue 41: the failures of a leg judged `infra` (its card hung, faulted or went wrong)
    are the card's: the device-health panel shows them, while flaky, failing tests and the
    pass rate leave them out (an injected corruption once listed a steady test as flaky)."""
    from dataclasses import replace

    infra = {
        "schema_version": 1,
        "category": "infra",
        "confidence": "high",
        "summary": "spyre:0: wrong result",
    }
    tests = lambda outcome: [replace(case("test_t", outcome), device="spyre:0")]  # noqa: E731
    ingest(wh, leg(0, tests("passed"), started=NOW - DAY, upstream="a" * 40))
    sick = leg(1, tests("failed"), started=NOW - DAY + 600, upstream="a" * 40)
    ingest(wh, replace(sick, conclusion="failure", triage_verdict=infra))
    assert queries.flaky(wh, NOW) == []
    assert queries.failing_tests(wh) == []
    assert [(p.passed, p.failed) for p in queries.pass_rate_over_commits(wh)] == [(1, 0)]
    assert [(d.device, d.failed) for d in queries.device_health(wh)] == [("spyre:0", 1)]
    ingest(wh, leg(2, tests("failed"), started=NOW - DAY + 1200, upstream="a" * 40))  # a real failure
    assert [f.reason for f in queries.flaky(wh, NOW)] == ["same SHAs"]
    assert len(queries.failing_tests(wh)) == 1
