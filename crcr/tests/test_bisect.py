"""Bisection to the first bad upstream commit: the pure search (⌈log2 N⌉ runs, skips, caps)
and `bisect_range` over a real local git repository (first-parent range, a native-change
midpoint skipped, the culprit re-run so a flip is a flake, an unknown commit)."""

import math

import pytest

from crcr.handler.investigate import Rerunner
from crcr.upstream.bisect import BAD, GOOD, SKIP, Limits, Probe, bisect, expected_runs
from crcr.upstream.localrepo import build_repo, file_url
from crcr.upstream.source import Commit, UpstreamSource


def line(n):
    return [Commit(f"{i:040x}", f"change {i} (#{1000 + i})", ()) for i in range(1, n + 1)]


def probe_for(first_bad: int, skip=(), calls=None):
    def probe(c):
        i = int(c.sha, 16)
        if calls is not None:
            calls.append(i)
        if i in skip:
            return Probe(SKIP, "needs native changes (aten/x.cpp)", ran=False)
        return Probe(BAD if i >= first_bad else GOOD)

    return probe


@pytest.mark.parametrize("n", [2, 3, 8, 31, 32, 100])
def test_finds_every_position_in_ceil_log2_runs(n):
    for first_bad in range(1, n + 1):
        b = bisect("0" * 40, line(n), probe_for(first_bad))
        assert b.status == "found" and int(b.culprit.sha, 16) == first_bad
        assert b.runs <= math.ceil(math.log2(n)) == expected_runs(n)


def test_the_line_names_the_commit_subject_and_pr():
    b = bisect("0" * 40, line(31), probe_for(20))
    assert b.line() == f"first bad commit {20:040x} (change 20 (#1020), PR #1020) in 5 bisection runs"
    assert b.as_json()["first_bad"] == {"sha": f"{20:040x}", "subject": "change 20 (#1020)", "pr": 1020}


def test_a_skipped_midpoint_is_stepped_around_and_named():
    calls = []
    b = bisect("0" * 40, line(31), probe_for(20, skip={15}, calls=calls), Limits(8, 60))
    assert b.status == "found" and int(b.culprit.sha, 16) == 20 and calls[:2] == [15, 14]
    assert [int(s.sha, 16) for s in b.skipped] == [15] and b.runs <= 6


def test_skips_next_to_the_culprit_leave_a_narrowed_range():
    b = bisect("0" * 40, line(8), probe_for(5, skip={4}))
    assert b.status == "narrowed" and [int(c.sha, 16) for c in b.candidates] == [4, 5]
    assert "first bad commit in" in b.line() and "skipped 000000000000" in b.line()


def test_cap_reached_reports_the_narrowed_range():
    b = bisect("0" * 40, line(31), probe_for(20), Limits(max_steps=2, max_seconds=60))
    assert b.status == "capped" and b.runs == 2 and "cap reached: 2 runs" in b.reason
    ids = [int(c.sha, 16) for c in b.candidates]
    assert 20 in ids and len(ids) < 31 and ids == list(range(ids[0], ids[-1] + 1))
    ticks = iter(range(0, 1000, 100))  # each clock read is 100 s later: the wall cap after one run
    b = bisect("0" * 40, line(31), probe_for(20), Limits(8, 150), clock=lambda: next(ticks))
    assert b.status == "capped" and b.runs == 1 and "max 8, 150s" in b.reason


# -- over a real repository ---------------------------------------------------------------
FLAG = "torch/flag.py"


@pytest.fixture
def repo(tmp_path):
    """16 commits; commit 11 sets the flag bad; commit 6 also changes a .cpp (native)."""
    commits = [("base", {FLAG: "OK = True\n", "test/test_flag.py": "# test\n"})]
    for i in range(2, 17):
        files = {f"torch/notes_{i}.py": f"# {i}\n"}
        if i == 11:
            files[FLAG] = "OK = False\n"
        if i == 6:
            files["aten/src/op.cpp"] = "// native\n"
        commits.append((f"change {i} (#{500 + i})", files))
    shas = build_repo(tmp_path / "up.git", commits, {})
    return UpstreamSource(file_url(tmp_path / "up.git"), tmp_path / "cache"), shas


class FlagRerunner(Rerunner):
    """The leg's failing test reads torch/flag.py at a real checkout of each commit
    (the pytest re-run is covered by test_upstream_cycle); `flaky` shas pass when re-run."""

    def __init__(self, source, flaky=()):
        super().__init__(None, None, None, {}, source, None)
        self.seen, self.flaky = [], set(flaky)

    def probe(self, sha, tests):
        root = self.source.checkout(sha)
        self.seen.append(sha)
        bad = "False" in (root / FLAG).read_text()
        if sha in self.flaky and self.seen.count(sha) > 1:
            bad = False
        self.runs += 1
        return Probe(BAD if bad else GOOD, failing=tuple(tests) if bad else (), seconds=0.1)


def test_real_range_finds_the_seeded_commit_and_skips_the_native_one(repo):
    from crcr.handler.investigate import bisect_range

    source, shas = repo
    r = FlagRerunner(source)
    b = bisect_range(r, shas[0], shas[-1], ["test/test_flag.py::T::t"], Limits(8, 600))
    assert b.status == "found" and b.culprit.sha == shas[10] and b.total == 15
    assert b.runs == 4 and not b.skipped  # ⌈log2 15⌉; the search never lands on commit 6
    assert [s.kind for s in b.steps][-1] == "confirm" and r.seen.count(shas[10]) == 2


def test_native_midpoint_is_skipped_when_the_search_lands_on_it(repo):
    from crcr.handler.investigate import bisect_range

    source, shas = repo
    for first_bad in (8, 7):  # commit 6 (native) is the third midpoint either way
        r = FlagRerunner(source)
        r.probe = lambda sha, tests, fb=first_bad: Probe(BAD if shas.index(sha) >= fb - 1 else GOOD)
        b = bisect_range(r, shas[0], shas[-1], ["t"], Limits(8, 600))
        (skip,) = b.skipped
        assert skip.sha == shas[5] and skip.probe.reason == "needs native changes (aten/src/op.cpp)"
        assert not skip.probe.ran
        if first_bad == 8:
            assert b.status == "found" and b.culprit.sha == shas[7]
        else:  # right after the skipped commit: either may be the culprit, as git bisect says
            assert b.status == "narrowed" and [c.sha for c in b.candidates] == [shas[5], shas[6]]
            assert "skipped" in b.line() and "aten/src/op.cpp" in b.line()


def test_a_culprit_that_passes_on_rerun_is_a_flake(repo):
    from crcr.handler.investigate import bisect_range

    source, shas = repo
    r = FlagRerunner(source, flaky={shas[10]})
    b = bisect_range(r, shas[0], shas[-1], ["t"], Limits(8, 600))
    assert b.status == "flake" and b.culprit is None and "then passed when re-run" in b.reason
    assert b.line().startswith("bisection: flake, not a culprit")


def test_unknown_last_green_commit_is_one_line_and_no_bisection(repo):
    from crcr.handler.investigate import bisect_range

    source, shas = repo
    b = bisect_range(FlagRerunner(source), "f" * 40, shas[-1], ["t"])
    assert b.status == "nothing_to_do" and "\n" not in b.reason and b.reason


def flag_repo(tmp_path):
    """(source, shas): a test reading torch/flag.py, which change 6 (shas[5]) turns False."""
    test = (
        "import pathlib\n\n\n"
        "def test_flag():\n"
        "    assert 'True' in (pathlib.Path(__file__).parents[1] / 'torch' / 'flag.py').read_text()\n\n\n"
        "def test_other():\n"
        "    pass\n"
    )
    commits = [("base", {FLAG: "OK = True\n", "test/test_flag.py": test})]
    commits += [
        (f"change {i} (#{700 + i})", {FLAG: "OK = False\n"} if i == 6 else {f"torch/n{i}.py": ""})
        for i in range(2, 10)
    ]
    shas = build_repo(tmp_path / "up2.git", commits, {})
    return UpstreamSource(file_url(tmp_path / "up2.git"), tmp_path / "cache2"), shas


def test_rerunner_runs_only_the_failing_tests_with_pytest_at_each_commit(tmp_path):
    """The real re-run: checkout at the SHA, pytest on the failing node ids only (a plain
    workspace: no plugin), JUnit read back; a missing test file is a skip, not a pass."""
    from crcr.dispatch.plan import Candidate, Leg
    from crcr.handler.investigate import bisect_range

    source, shas = flag_repo(tmp_path)
    ws = tmp_path / "ws"
    ws.mkdir()
    leg = Leg(0, Candidate("primary", "HEAD", shas[-1], shas[-1], True), "flag", (), 0, 1, "test-flag")
    r = Rerunner(
        leg, ws, tmp_path / "out", {"PATH": "/usr/bin:/bin"}, source, lambda root, sha: (None, None, ""), 120
    )
    failing = ["test/test_flag.py::test_flag"]
    assert r.probe(shas[0], failing).outcome == GOOD
    bad = r.probe(shas[-1], failing)
    assert bad.outcome == BAD and bad.failing == tuple(failing) and bad.ran
    assert r.probe(shas[0], ["test/test_gone.py::test_x"]).outcome == SKIP
    lost = r.probe("e" * 40, failing)  # a midpoint that fails to check out: skipped, named, one line
    assert lost.outcome == SKIP and lost.reason.startswith("does not check out: upstream has no commit")
    assert "\n" not in lost.reason and not lost.ran
    junit = sorted((tmp_path / "out" / "reruns").glob("*.xml"))[0].read_text()
    assert "test_flag" in junit and "test_other" not in junit  # only the failing test ran
    b = bisect_range(r, shas[0], shas[-1], failing, Limits(8, 600))
    assert b.status == "found" and b.culprit.sha == shas[5] and b.runs == 3


def test_generated_upstream_is_32_commits_seeded_at_21_and_reused(tmp_path):
    from crcr.upstream import fixture
    from crcr.upstream.gitcmd import git
    from crcr.upstream.overlay import wheel_torch_dir, wheel_version

    torch_dir = wheel_torch_dir()
    f = fixture.generate(tmp_path, torch_dir, wheel_version(torch_dir), {})
    bare = tmp_path / "pytorch.git"
    log = git(["log", "--reverse", "--first-parent", "--format=%H %s", "main"], cwd=bare).stdout.splitlines()
    assert len(log) == fixture.COMMITS == 32 and (f.base, f.head) == (log[0][:40], log[-1][:40])
    assert log[fixture.SEEDED - 1] == f"{f.seeded} {fixture.REGRESSION_SUBJECT}" and fixture.SEEDED < 32
    shown = git(["show", f.seeded, "--", "torch/nn/modules/flatten.py"], cwd=bare).stdout
    assert "+    def __init__(self, start_dim: int = 0" in shown
    stamp = (bare / "HEAD").stat().st_mtime_ns
    again = fixture.generate(tmp_path, torch_dir, wheel_version(torch_dir), {})
    assert again == f and (bare / "HEAD").stat().st_mtime_ns == stamp  # same content: not rebuilt


def test_a_bazel_runner_leg_says_in_one_line_why_it_is_not_bisected(repo, tmp_path):
    """The bazel runner runs configs/' generated targets on the pinned core without the
    overlay: upstream's range cannot change its outcome. Triage re-runs nothing there (no
    probe, no checkout), the leg says why in one line, and the verdict is not `upstream`;
    the same leg from the pytest runner is re-run and bisected."""
    from dataclasses import replace as _replace

    from crcr.callback_client.junit import read_report
    from crcr.dispatch.plan import Candidate, Leg
    from crcr.handler.investigate import Triage
    from crcr.handler.runner import LegResult
    from crcr.handler.upstream_setup import UpstreamSetup
    from crcr.upstream.attribution import Attribution, Inputs

    source, shas = repo
    junit = tmp_path / "leg.xml"
    junit.write_text(
        "<testsuite><testcase classname='test.test_flag.T' name='t'>"
        "<failure message='AssertionError: flag'>AssertionError: flag</failure></testcase></testsuite>"
    )
    report = read_report([junit])
    red = LegResult(
        "failure",
        3,
        report.counts,
        1.0,
        (junit,),
        report=report,
        runner="bazel",
        failing_tests=("test/test_flag.py::T::t",),
    )
    leg = Leg(0, Candidate("primary", "HEAD", shas[-1], shas[-1], True), "flag", (), 0, 1, "test-flag")
    found = Attribution(
        "test-flag",
        "only_upstream",
        "only upstream moved",
        Inputs("b", shas[0], shas[0]),
        Inputs("b", shas[-1], shas[-1]),
        range=(shas[0], shas[-1]),
    )
    setup = UpstreamSetup("fixture", source.url, shas[-1], source.checkout(shas[-1]), source)
    probed = []

    class Counting(FlagRerunner):
        def probe(self, sha, tests):
            probed.append(sha)
            return super().probe(sha, tests)

    class OnTheRepo(Triage):
        def rerunner(self, setup, leg, out):
            return Counting(source)

    triage = OnTheRepo(tmp_path, {})
    out = triage.apply(setup, leg, red, found, tmp_path / "out")
    line = [n for n in out.notes if n.startswith("triage: not re-run or bisected: ")]
    assert len(line) == 1 and "\n" not in line[0] and "bazel runner" in line[0]
    assert probed == [] and out.bisection is None
    assert out.verdict["category"] != "upstream" and "suspected_upstream" not in out.verdict
    assert "nothing it changed reaches this leg" in out.verdict["summary"]
    # another pinned core (--core-config): the same, naming the config
    core_leg = _replace(leg, candidate=Candidate("core-x", "HEAD", shas[-1], shas[-1], False, "torch-x"))
    out = triage.apply(setup, core_leg, _replace(red, runner="bazel"), found, tmp_path / "out")
    assert any("--config=torch-x" in n for n in out.notes) and probed == []
    # the pytest runner's leg: re-run at the SHA, then bisected to the seeded commit
    out = triage.apply(setup, leg, _replace(red, runner="pytest"), found, tmp_path / "out")
    assert probed and out.bisection.status == "found" and out.bisection.culprit.sha == shas[10]
    assert out.verdict["category"] == "upstream" and out.verdict["confidence"] == "high"
    assert not any(n.startswith("triage: not re-run") for n in out.notes)


def test_a_red_midpoint_on_an_inexact_core_is_skipped_and_named(tmp_path):
    """Bisection over mixed midpoints: where the core resolved for a midpoint lacks native
    changes (base..midpoint), a red result there is no evidence: skipped and named; the
    exact midpoints still find the culprit."""
    from crcr.dispatch.plan import Candidate, Leg
    from crcr.handler.investigate import bisect_range
    from crcr.upstream.overlay import core_delta

    source, shas = flag_repo(tmp_path)
    inexact = set(shas[6:])  # a native change landed at 7 that no base wheel for these holds

    def core_at(root, sha):
        delta = core_delta(shas[0], sha, [("M", "aten/src/ATen/native/K.cpp")] if sha in inexact else [])
        return delta, None, ""

    (tmp_path / "ws").mkdir()
    leg = Leg(0, Candidate("primary", "HEAD", shas[-1], shas[-1], True), "flag", (), 0, 1, "test-flag")
    r = Rerunner(leg, tmp_path / "ws", tmp_path / "out", {"PATH": "/usr/bin:/bin"}, source, core_at, 120)
    b = bisect_range(r, shas[0], shas[-1], ["test/test_flag.py::test_flag"], Limits(8, 600))
    assert b.status == "found" and b.culprit.sha == shas[5]
    skipped = {s.sha: s.probe.reason for s in b.skipped}
    assert skipped and set(skipped) <= inexact
    for reason in skipped.values():
        assert (
            reason.startswith("core inexact here (")
            and "1 native not applied, aten/src/ATen/native/K.cpp" in reason
        )
    assert b.as_json()["skipped"] == [{"sha": k, "reason": v} for k, v in skipped.items()]
