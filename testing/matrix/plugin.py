"""pytest plugin: run this process's duration-balanced shard of the selected tests.

Load with `-p testing.matrix.plugin` (``testing.config.runs.SHARD_PLUGIN``). Selection
happens after every other collection filter (-m, -k, the adaptation plugin), so shards split
exactly the tests that would otherwise run; with no sharding requested it selects nothing
away. Which shard: ``request.py`` (CI leg options or environment, then Bazel's test sharding);
the plan: ``lpt.py`` over the durations ``timings.py`` reads. Here, below crcr and tools, so
the CRCR handler's legs and tools/shard's runner load the same plugin.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from testing.matrix import lpt as planner
from testing.matrix import request, timings

# Where tools/shard's pipeline (`python -m tools.shard update`) keeps the recorded durations
# in a checkout: data it writes, read here (DESIGN.md "Data flow").
DEFAULT_TIMINGS = Path("tools/shard/timings/timings.json")
_NAME = "testing-matrix-shard"  # the registered ShardSelection
# The environment this plugin reads (request.py's two levels, the timings, Bazel's status file).
ENV = (
    "OOT_SHARD_INDEX",
    "OOT_SHARD_TOTAL",
    "TEST_SHARD_INDEX",
    "TEST_TOTAL_SHARDS",
    "OOT_SHARD_TIMINGS",
    "TEST_SHARD_STATUS_FILE",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("shard", "duration-balanced sharding")
    group.addoption("--shard-index", type=int, default=None, help="0-based shard to run (CI leg level)")
    group.addoption("--shard-total", type=int, default=None, help="number of shards (CI leg level)")
    group.addoption(
        "--shard-timings",
        default=None,
        help=f"timings file (default: $OOT_SHARD_TIMINGS, else <rootdir>/{DEFAULT_TIMINGS})",
    )
    group.addoption(
        "--shard-strategy",
        choices=("lpt", "round-robin"),
        default="lpt",
        help="bucketing: lpt = balanced by recorded durations (default)",
    )
    group.addoption(
        "--shard-only",
        default=None,
        help="file of node ids, one a line: run exactly these (overrides sharding)",
    )


class ShardSelection:
    """This process's shard (registered as a plugin in pytest_configure)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        opt = config.option
        try:
            self.levels = request.resolve(os.environ, opt.shard_index, opt.shard_total)
        except request.ShardRequestError as err:
            raise pytest.UsageError(str(err)) from None
        self.only = _read_only(opt.shard_only) if opt.shard_only else None
        self.timings_path = _timings_path(config)
        self.kept = 0
        _acknowledge_bazel_sharding()

    def recorded(self) -> dict[str, float]:
        if self.timings_path is None:
            return {}
        try:
            return dict(timings.load(self.timings_path).tests)
        except timings.TimingsError as err:
            raise pytest.UsageError(str(err)) from None

    def select(self, nodeids: list[str]) -> set[str]:
        if self.only is not None:
            return set(nodeids) & self.only
        keep = list(nodeids)
        plan_fn = planner.lpt_plan if self.config.option.shard_strategy == "lpt" else planner.round_robin_plan
        recorded = self.recorded() if self.levels else {}
        for level in self.levels:
            keep = list(plan_fn(keep, level.total, recorded).shards[level.index])
        return set(keep)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        keep = self.select([item.nodeid for item in items])
        dropped = [item for item in items if item.nodeid not in keep]
        if dropped:
            items[:] = [item for item in items if item.nodeid in keep]
            config.hook.pytest_deselected(items=dropped)
        self.kept = len(items)

    def pytest_report_collectionfinish(self) -> str | None:
        if not self.levels or self.only is not None:
            return None
        where = ", ".join(f"{lvl.origin} shard {lvl.index + 1}/{lvl.total}" for lvl in self.levels)
        return f"shard: {where}, {self.config.option.shard_strategy}, {self.kept} tests"


def _read_only(path: str) -> set[str]:
    try:
        return {line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()}
    except OSError as err:
        raise pytest.UsageError(f"--shard-only {path}: cannot read: {err.strerror}") from None


def _timings_path(config: pytest.Config) -> Path | None:
    explicit = config.option.shard_timings or os.environ.get("OOT_SHARD_TIMINGS")
    if explicit:
        return Path(explicit)
    default = config.rootpath / DEFAULT_TIMINGS
    return default if default.exists() else None


def _acknowledge_bazel_sharding() -> None:
    """Bazel's protocol: touching this file says the runner honours sharding."""
    status = os.environ.get("TEST_SHARD_STATUS_FILE")
    if status:
        Path(status).touch()


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(ShardSelection(config), _NAME)


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.pluginmanager.has_plugin(_NAME):
        config.pluginmanager.unregister(name=_NAME)
