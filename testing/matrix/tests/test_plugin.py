"""pytester acceptance tests of the sharding plugin (testing.matrix.plugin)."""

import json

import pytest

pytest_plugins = ["pytester"]

# hypothesis' pytest plugin re-imports hypothesis on every in-process run (pytester
# restores sys.modules), several seconds each; these runs never use it.
PLUGIN = ("-p", "no:hypothesispytest", "-p", "testing.matrix.plugin")

SUITE = """
import pytest

@pytest.mark.parametrize("i", range(7))
def test_a(i):
    pass

class TestB:
    @pytest.mark.parametrize("i", range(5))
    def test_b(self, i):
        pass

@pytest.mark.slowish
def test_long():
    pass
"""


@pytest.fixture
def suite(pytester):
    pytester.makepyfile(test_suite=SUITE)
    pytester.makeini("[pytest]\nmarkers =\n    slowish: marked\n")
    return pytester


def ran(reprec):
    return [r.nodeid for r in reprec.getreports("pytest_runtest_logreport") if r.when == "call"]


def run_shard(suite, monkeypatch, index, total, *args):
    monkeypatch.setenv("TEST_SHARD_INDEX", str(index))
    monkeypatch.setenv("TEST_TOTAL_SHARDS", str(total))
    return ran(suite.inline_run(*PLUGIN, *args))


def all_ids(suite, *args):
    return ran(suite.inline_run(*PLUGIN, *args))


@pytest.mark.parametrize("total", [2, 3, 5])
def test_bazel_shards_cover_every_test_exactly_once(suite, monkeypatch, total):
    everything = all_ids(suite)
    assert len(everything) == 13
    seen = [n for i in range(total) for n in run_shard(suite, monkeypatch, i, total)]
    assert sorted(seen) == sorted(everything)


def test_shards_split_after_mark_selection(suite, monkeypatch):
    selected = all_ids(suite, "-m", "not slowish", "-k", "test_a or test_b")
    seen = [
        n
        for i in range(3)
        for n in run_shard(suite, monkeypatch, i, 3, "-m", "not slowish", "-k", "test_a or test_b")
    ]
    assert sorted(seen) == sorted(selected) and len(selected) == 12


def test_recorded_durations_balance_shards(suite, monkeypatch, tmp_path):
    timings = tmp_path / "timings.json"
    tests = {f"test_suite.py::test_a[{i}]": 1.0 for i in range(7)}
    tests["test_suite.py::test_long"] = 7.0
    timings.write_text(json.dumps({"format": "oot-ci-timings", "version": 1, "tests": tests}))
    shards = [
        run_shard(suite, monkeypatch, i, 2, "-k", "test_a or test_long", f"--shard-timings={timings}")
        for i in range(2)
    ]
    long_shard = next(s for s in shards if "test_suite.py::test_long" in s)
    assert long_shard == ["test_suite.py::test_long"]  # 7 s alone vs seven 1 s tests


def test_round_robin_strategy_is_available(suite, monkeypatch):
    first = run_shard(suite, monkeypatch, 0, 2, "--shard-strategy=round-robin", "-k", "test_a")
    assert first == [f"test_suite.py::test_a[{i}]" for i in (0, 2, 4, 6)]


def test_status_file_is_touched(suite, monkeypatch, tmp_path):
    status = tmp_path / "shard_status"
    monkeypatch.setenv("TEST_SHARD_STATUS_FILE", str(status))
    run_shard(suite, monkeypatch, 0, 2)
    assert status.exists()


def test_leg_and_bazel_levels_nest(suite, monkeypatch):
    everything = all_ids(suite)
    seen = []
    for leg in range(2):
        for bazel in range(3):
            monkeypatch.setenv("OOT_SHARD_INDEX", str(leg))
            monkeypatch.setenv("OOT_SHARD_TOTAL", "2")
            seen += run_shard(suite, monkeypatch, bazel, 3)
    assert sorted(seen) == sorted(everything)


def test_command_line_shard_overrides_environment(suite, monkeypatch):
    monkeypatch.setenv("OOT_SHARD_INDEX", "1")
    monkeypatch.setenv("OOT_SHARD_TOTAL", "2")
    a = ran(suite.inline_run(*PLUGIN, "--shard-index=0", "--shard-total=2"))
    b = ran(suite.inline_run(*PLUGIN))
    assert a and b and not set(a) & set(b)


@pytest.mark.parametrize(
    "env, message",
    [
        (
            {"TEST_SHARD_INDEX": "3", "TEST_TOTAL_SHARDS": "3"},
            "Bazel: need 0 <= TEST_SHARD_INDEX < TEST_TOTAL_SHARDS",
        ),
        ({"OOT_SHARD_INDEX": "x", "OOT_SHARD_TOTAL": "2"}, "environment: OOT_SHARD_INDEX='x'"),
        ({"OOT_SHARD_TOTAL": "2"}, "environment: OOT_SHARD_INDEX is missing"),
    ],
)
def test_bad_shard_settings_are_usage_errors(suite, monkeypatch, env, message):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    result = suite.runpytest(*PLUGIN)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_bad_timings_file_is_a_usage_error(suite, monkeypatch, tmp_path):
    timings = tmp_path / "t.json"
    timings.write_text("{not json")
    monkeypatch.setenv("TEST_SHARD_INDEX", "0")
    monkeypatch.setenv("TEST_TOTAL_SHARDS", "2")
    result = suite.runpytest(*PLUGIN, f"--shard-timings={timings}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*t.json:1: not valid JSON*"])


def test_shard_only_runs_exactly_the_listed_tests(suite, monkeypatch, tmp_path):
    only = tmp_path / "only.txt"
    only.write_text("test_suite.py::test_long\ntest_suite.py::TestB::test_b[2]\n")
    monkeypatch.setenv("TEST_SHARD_INDEX", "1")  # ignored: --shard-only wins
    monkeypatch.setenv("TEST_TOTAL_SHARDS", "2")
    assert sorted(ran(suite.inline_run(*PLUGIN, f"--shard-only={only}"))) == [
        "test_suite.py::TestB::test_b[2]",
        "test_suite.py::test_long",
    ]


def test_header_names_the_shard(suite, monkeypatch):
    monkeypatch.setenv("TEST_SHARD_INDEX", "1")
    monkeypatch.setenv("TEST_TOTAL_SHARDS", "4")
    result = suite.runpytest(*PLUGIN)
    result.stdout.fnmatch_lines(["shard: Bazel shard 2/4, lpt, * tests"])
