"""Which shard this process runs: pure resolution from options and environment.

Two levels can apply, outermost first:
  1. a CI leg: --shard-index/--shard-total, else OOT_SHARD_INDEX/OOT_SHARD_TOTAL
     (passed into Bazel tests with --test_env);
  2. Bazel's test sharding protocol: TEST_SHARD_INDEX/TEST_TOTAL_SHARDS, set by
     Bazel when a target has shard_count > 1.
Each level splits what the previous level kept, so together they still run
every selected test exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from testing.base.errors import OotError


class ShardRequestError(OotError, ValueError):
    """Bad shard settings; the message names the option or variable."""


@dataclass(frozen=True)
class Level:
    index: int
    total: int
    origin: str  # where it came from, for messages and the report header


def _parse(
    index: str | int | None, total: str | int | None, origin: str, names: tuple[str, str]
) -> Level | None:
    if index is None and total is None:
        return None
    if index is None or total is None:
        missing = names[0] if index is None else names[1]
        raise ShardRequestError(f"{origin}: {missing} is missing (set both {names[0]} and {names[1]})")
    try:
        index_i, total_i = int(index), int(total)
    except ValueError:
        raise ShardRequestError(
            f"{origin}: {names[0]}={index!r} / {names[1]}={total!r} are not integers"
        ) from None
    if total_i < 1 or not 0 <= index_i < total_i:
        raise ShardRequestError(f"{origin}: need 0 <= {names[0]} < {names[1]}, got {index_i} and {total_i}")
    return Level(index_i, total_i, origin)


def resolve(
    env: Mapping[str, str], cli_index: int | None = None, cli_total: int | None = None
) -> tuple[Level, ...]:
    """Sharding levels to apply, outermost first (empty: run everything)."""
    leg = _parse(cli_index, cli_total, "command line", ("--shard-index", "--shard-total"))
    if leg is None:
        leg = _parse(
            env.get("OOT_SHARD_INDEX"),
            env.get("OOT_SHARD_TOTAL"),
            "environment",
            ("OOT_SHARD_INDEX", "OOT_SHARD_TOTAL"),
        )
    bazel = _parse(
        env.get("TEST_SHARD_INDEX"),
        env.get("TEST_TOTAL_SHARDS"),
        "Bazel",
        ("TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS"),
    )
    return tuple(level for level in (leg, bazel) if level is not None and level.total > 1)
