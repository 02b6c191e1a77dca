"""The triage verdict from evidence: one case per category (and the confidence rules),
each checked to be what the relay keeps whole."""

from crcr.callback_client.verdict_rules import relay_keeps
from crcr.handler.triage import Evidence, Failure, verdict
from crcr.upstream.bisect import BAD, GOOD, Bisection, Probe, Step
from crcr.upstream.source import Commit

CULPRIT = Commit("6a99c39d6d4532d1f4377b090999f16a02b85747", "nn.Flatten: dim 0 by default (#90001)", ())
FAIL = (Failure("test/nn/test_flat.py::T::test_a", "AssertionError: 1 != 2"),)
UPSTREAM_ONLY = dict(
    has_last_green=True, backend_moved=False, upstream_moved=True, upstream_range="aaaa..bbbb"
)


def ev(**kw):
    base = dict(job_name="test-nn", conclusion="failure", failures=FAIL)
    base.update(kw)
    return Evidence(**base)


def found(status="found"):
    steps = (Step(CULPRIT.sha, CULPRIT.subject, Probe(BAD, failing=("t",))),)
    return Bisection(status, "a" * 40, CULPRIT.sha, (CULPRIT,), steps, culprit=CULPRIT, total=31)


def check(e):
    v = verdict(e, now=0)
    assert relay_keeps(v) == (v, ""), "the relay must keep our verdict whole"
    return v


def test_upstream_high_names_the_first_bad_commit_and_its_pr():
    v = check(ev(**UPSTREAM_ONLY, retry_failing=("t",), bisection=found()))
    assert (v["category"], v["confidence"], v["reproduced_on_retry"]) == ("upstream", "high", True)
    assert v["suspected_upstream"] == {
        "commit": CULPRIT.sha,
        "pr": 90001,
        "reason": "first bad commit by bisection: nn.Flatten: dim 0 by default (#90001)",
    }
    assert f"first bad commit {CULPRIT.sha}" in v["summary"]
    assert v["evidence"] == [{"job": "test-nn", "test": FAIL[0].test, "excerpt": "AssertionError: 1 != 2"}]


def test_upstream_medium_when_bisection_only_narrowed_and_low_without_a_rerun():
    narrowed = Bisection("capped", "a" * 40, "b" * 40, (CULPRIT, CULPRIT), (), "cap reached", total=31)
    v = check(ev(**UPSTREAM_ONLY, retry_failing=("t",), bisection=narrowed))
    assert (v["category"], v["confidence"]) == ("upstream", "medium") and "suspected_upstream" not in v
    assert "bisection capped" in v["summary"]
    v = check(ev(**UPSTREAM_ONLY))
    assert (v["category"], v["confidence"]) == ("upstream", "low") and "reproduced_on_retry" not in v
    v = check(ev(**UPSTREAM_ONLY, retry_failing=("t",), range_commits=1))
    assert (v["category"], v["confidence"]) == ("upstream", "high")


def test_backend_when_only_the_backend_moved_or_it_reproduces_at_last_green():
    v = check(ev(has_last_green=True, backend_moved=True, upstream_moved=False))
    assert (v["category"], v["confidence"]) == ("backend", "high") and "suspected_upstream" not in v
    v = check(ev(**UPSTREAM_ONLY, retry_failing=("t",), bisection=found(), at_last_green_failing=True))
    assert (v["category"], v["confidence"]) == ("backend", "medium")
    assert "suspected_upstream" not in v  # only for upstream: the relay would drop it


def test_infra_when_the_leg_failed_outside_its_tests():
    v = check(ev(conclusion="timed_out", failures=(), outside_tests="the leg timed out"))
    assert (v["category"], v["confidence"]) == ("infra", "high") and "timed out" in v["summary"]
    v = check(ev(failures=(), outside_tests="exit code 1 with no failed test", outside_certain=False))
    assert (v["category"], v["confidence"]) == ("infra", "medium")


def test_flake_when_the_failing_tests_pass_on_rerun():
    v = check(ev(**UPSTREAM_ONLY, retry_failing=()))
    assert (v["category"], v["confidence"], v["reproduced_on_retry"]) == ("flake", "high", False)
    flipped = Bisection("flake", "a" * 40, "b" * 40, (CULPRIT,), (), "failed once, then passed", total=31)
    v = check(ev(**UPSTREAM_ONLY, retry_failing=("t",), bisection=flipped))
    assert (v["category"], v["confidence"]) == ("flake", "medium")


def test_unknown_otherwise():
    for e in (
        ev(),  # no last green
        ev(has_last_green=True, backend_moved=True, upstream_moved=True),
        ev(has_last_green=True),  # nothing moved, still red
    ):
        v = check(e)
        assert (v["category"], v["confidence"]) == ("unknown", "low")


def test_evidence_is_at_most_ten_and_log_urls_are_http_only():
    many = tuple(Failure(f"t{i}", "x" * 2000) for i in range(25))
    v = check(ev(failures=many, log_url="https://github.com/acme/oot/actions/runs/1"))
    assert len(v["evidence"]) == 10 and all(e["log_url"].startswith("https://") for e in v["evidence"])
    assert "(+22 more)" in v["summary"]


def test_tests_that_flip_on_retry_are_named_flaky_and_the_rest_still_decide():
    two = FAIL + (Failure("test/nn/test_flat.py::T::test_b", "boom"),)
    v = check(ev(**UPSTREAM_ONLY, failures=two, retry_failing=(FAIL[0].test,), bisection=found()))
    assert (v["category"], v["confidence"]) == ("upstream", "high")
    assert "1 of 2 failing tests passed on retry (flaky)" in v["summary"]
    steps = found().steps
    assert steps[0].probe.outcome == BAD and GOOD != BAD


def test_what_counts_as_failing_outside_the_tests(tmp_path):
    from crcr.callback_client.junit import Counts, read_report
    from crcr.handler.investigate import outside_tests
    from crcr.handler.runner import LegResult

    junit = tmp_path / "j.xml"
    junit.write_text("<testsuite><testcase classname='m.T' name='ok'/></testsuite>")
    torn = tmp_path / "torn.xml"
    torn.write_text("<testsuite><testcase")
    report = read_report([junit])

    def leg(conclusion, code, counts=None, rep=report, timed_out=False):
        counts = Counts(1, 0, 0) if counts is None else counts
        return LegResult(conclusion, code, counts, 1.0, rep.files, report=rep, timed_out=timed_out)

    assert outside_tests(leg("timed_out", -15, timed_out=True)) == ("the leg timed out", True)
    assert (
        outside_tests(leg("failure", 137))[0]
        == "the test process was killed: SIGKILL (out of memory or runner lost)"
    )
    assert outside_tests(leg("failure", -9))[0] == "the test process was killed: SIGKILL"
    assert outside_tests(leg("failure", 2, Counts(), read_report([torn])))[0].startswith(
        "no readable JUnit (exit 2)"
    )
    assert outside_tests(leg("failure", 1, Counts(), read_report([])))[0].startswith("no readable JUnit")
    assert outside_tests(leg("failure", 1)) == ("exit code 1 with no failed test", False)
    assert outside_tests(leg("failure", 1, Counts(0, 1, 0))) == ("", True)  # a test failed: not infra
    assert outside_tests(leg("success", 0)) == ("", True)


def test_device_trouble_is_infra_never_upstream_backend_or_flake():
    hung = (Failure(FAIL[0].test, "worker crashed: hang: no progress for 300s", "hang"),)
    for extra in (dict(UPSTREAM_ONLY, retry_failing=("t",), bisection=found()), dict(retry_failing=())):
        v = check(ev(failures=hung + FAIL, **extra))
        assert (v["category"], v["confidence"]) == ("infra", "high")
        assert "test-nn: device trouble in 1 of 2 failing tests (hang): worker crashed: hang" in v["summary"]
        assert "suspected_upstream" not in v


def test_device_trouble_is_read_from_each_failing_test(tmp_path):
    from crcr.callback_client.junit import Counts, read_report
    from crcr.handler.investigate import troubles
    from crcr.handler.runner import LegResult

    junit = tmp_path / "j.xml"
    junit.write_text(
        "<testsuite>"
        "<testcase classname='m.T' name='hung'><properties><property name='trouble' value='hang'/>"
        "</properties><error message='worker crashed: hang: no progress for 300s'/></testcase>"
        "<testcase classname='m.T' name='fault'><failure message='RuntimeError: spyre: device fault on "
        "spyre:1: the runtime reported an error'/></testcase>"
        "<testcase classname='m.T' name='busy'><error message='spyre: device spyre:0 is busy: held by pid 7'/>"
        "</testcase>"
        "<testcase classname='m.T' name='plain'><failure message='AssertionError: 1 != 2'/></testcase>"
        # a drained card's spoiled attempt (tools/shard/devices.py) is infra too
        "<testcase classname='m.T' name='spoilt'><properties><property name='infra' value='infra: ran on "
        "spyre:2 after its last good probe; spyre:2: wrong result'/></properties><error message='x'/></testcase>"
        # a crash or a slow test on a healthy card is the test's own: judged as any failure
        "<testcase classname='m.T' name='crash'><properties><property name='trouble' value='crash'/>"
        "</properties><error message='worker crashed: signal 11 (SIGSEGV)'/></testcase>"
        "<testcase classname='m.T' name='slow'><properties><property name='trouble' value='slow'/>"
        "</properties><error message='worker crashed: slow: still making progress past its 3s budget'/>"
        "</testcase>"
        "</testsuite>"
    )
    report = read_report([junit])
    result = LegResult("failure", 1, Counts(0, 7, 0), 1.0, report.files, report=report)
    names = [f"m.py::T::{n}" for n in ("hung", "fault", "busy", "plain", "spoilt", "crash", "slow")]
    assert troubles(result, names) == {
        "m.py::T::hung": "hang",
        "m.py::T::fault": "device fault",
        "m.py::T::busy": "device busy",
        "m.py::T::spoilt": "infra",
    }


def test_a_last_green_at_another_backend_and_upstream_is_both_moved(tmp_path):
    """A last green recorded by another checkout (the default state dir is the user's, shared):
    the backend moved and so did upstream. The verdict is unknown/low `both moved`, never
    backend/high `upstream did not` (the attribution keeps no range when the backend moved)."""
    from crcr.callback_client.junit import read_report
    from crcr.dispatch.plan import Candidate, Leg
    from crcr.handler.investigate import investigate, upstream_moved
    from crcr.handler.runner import LegResult
    from crcr.upstream.attribution import Inputs, attribute
    from crcr.upstream.bisect import DEFAULT_LIMITS

    junit = tmp_path / "leg.xml"
    junit.write_text(
        "<testsuite><testcase classname='test.nn.T' name='t'>"
        "<failure message='AssertionError'>AssertionError</failure></testcase></testsuite>"
    )
    report = read_report([junit])
    red = LegResult(
        "failure", 1, report.counts, 1.0, (junit,), report=report, failing_tests=("test/nn.py::T::t",)
    )
    leg = Leg(0, Candidate("primary", "HEAD", "b" * 40, "b" * 40, True), "nn", (), 0, 1, "test-nn")
    last = Inputs("old-backend", "a" * 40, "a" * 40)
    both = attribute("test-nn", Inputs("new-backend", "b" * 40, "b" * 40), last)
    assert both.verdict == "backend_moved" and both.range is None and upstream_moved(both)
    e = investigate(leg, red, both, None, "b" * 40, DEFAULT_LIMITS)
    v = check(e)
    assert (v["category"], v["confidence"]) == ("unknown", "low")
    assert "both the backend and upstream moved" in v["summary"]
    # only the backend moved (upstream at the last green's SHAs): backend/high, as before
    only = attribute("test-nn", Inputs("new-backend", "a" * 40, "a" * 40), last)
    assert not upstream_moved(only)
    v = check(investigate(leg, red, only, None, "a" * 40, DEFAULT_LIMITS))
    assert (v["category"], v["confidence"]) == ("backend", "high")
    assert not upstream_moved(None)
