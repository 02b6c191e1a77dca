import pytest

from testing.matrix.request import Level, ShardRequestError, resolve


def test_nothing_requested():
    assert resolve({}) == ()


def test_single_shard_is_no_sharding():
    assert resolve({"TEST_SHARD_INDEX": "0", "TEST_TOTAL_SHARDS": "1"}) == ()


def test_bazel_level():
    assert resolve({"TEST_SHARD_INDEX": "2", "TEST_TOTAL_SHARDS": "4"}) == (Level(2, 4, "Bazel"),)


def test_leg_then_bazel():
    env = {"OOT_SHARD_INDEX": "1", "OOT_SHARD_TOTAL": "3", "TEST_SHARD_INDEX": "0", "TEST_TOTAL_SHARDS": "2"}
    assert resolve(env) == (Level(1, 3, "environment"), Level(0, 2, "Bazel"))


def test_cli_beats_environment():
    env = {"OOT_SHARD_INDEX": "1", "OOT_SHARD_TOTAL": "3"}
    assert resolve(env, 0, 2) == (Level(0, 2, "command line"),)


@pytest.mark.parametrize(
    "env, message",
    [
        (
            {"TEST_SHARD_INDEX": "4", "TEST_TOTAL_SHARDS": "4"},
            "need 0 <= TEST_SHARD_INDEX < TEST_TOTAL_SHARDS",
        ),
        ({"TEST_SHARD_INDEX": "-1", "TEST_TOTAL_SHARDS": "4"}, "got -1 and 4"),
        ({"TEST_TOTAL_SHARDS": "4"}, "TEST_SHARD_INDEX is missing"),
        ({"OOT_SHARD_INDEX": "a", "OOT_SHARD_TOTAL": "2"}, "not integers"),
    ],
)
def test_bad_settings(env, message):
    with pytest.raises(ShardRequestError, match=message):
        resolve(env)
