"""//tools/ci:target_timeouts_test: each generated config target's recorded test time, per
Bazel shard, fits half the timeout of its size, so a run on a loaded machine still ends.

`tools/bazel test //testing:configs` timed config_spyre_op_consistency out at 300 s (medium)
under load 7: its suite records 183 s of spyre tests in one shard, collection and start-up on top.
Reads the generated targets (testing/targets/configs.bzl), their shard counts and size (the
config_test_targets call in testing/BUILD.bazel) and the recorded timings (tools/shard).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path.cwd()
TIMEOUT = {"small": 60, "medium": 300, "large": 900, "enormous": 3600}  # Bazel's defaults, seconds
HEADROOM = 0.5  # a loaded 2-core machine runs the same tests 1.5-2x slower


def _literal(text: str, name: str):
    """The Python-literal value of `name = {...}` in a Starlark file."""
    start = re.search(rf"^{name} = ", text, re.M).end()
    end = text.index("\n}\n", start) + 2
    return ast.literal_eval(text[start:end])


def _call_arguments(build: str) -> tuple[dict[str, int], str]:
    """shard_count and size of the config_test_targets call (size defaults to medium)."""
    call = build[build.index("config_test_targets(") :]
    call = call[: call.index("\n)\n")]
    shards = re.search(r"shard_count = (\{[^}]*\})", call)
    size = re.search(r'\n    size = "(\w+)"', call)
    return (ast.literal_eval(shards[1]) if shards else {}), (size[1] if size else "medium")


def per_shard_seconds(shards: dict[str, int]) -> dict[str, float]:
    """Each config target's recorded seconds divided by its `shards` (target -> count, else 1)."""
    configs = _literal((ROOT / "testing/targets/configs.bzl").read_text(), "CONFIGS")
    recorded = json.loads((ROOT / "tools/shard/timings/timings.json").read_text())["tests"]
    out = {}
    for key, config in configs.items():
        files = set(config["suites"])
        # configs/<device>/...: a target instantiates that device's test classes only
        device = key.split("_")[0].upper()
        total = sum(
            seconds
            for nodeid, seconds in recorded.items()
            if nodeid.split("::")[0] in files and nodeid.split("::")[1].endswith(device)
        )
        target = f"config_{key}"
        out[target] = total / shards.get(target, 1)
    return out


def test_every_config_target_fits_half_its_timeout_per_shard():
    shards, size = _call_arguments((ROOT / "testing/BUILD.bazel").read_text())
    limit = TIMEOUT[size] * HEADROOM
    seconds = per_shard_seconds(shards)
    assert seconds["config_spyre_op_consistency"] > 50  # the timings are read (not all zero)
    over = {t: round(s) for t, s in seconds.items() if s > limit}
    assert over == {}, (
        f"recorded seconds per shard over {limit:.0f} s: {over}; raise shard_count in testing/BUILD.bazel"
    )
