"""pytest plugin: run this process's duration-balanced shard, and journal progress.

Load with `-p tools.shard.plugin`. Selection happens after every other
collection filter (-m, -k, the adaptation plugin), so shards split exactly the
tests that would otherwise run. With no sharding requested it only journals.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from testing.matrix import lpt as planner
from testing.results.outcomes import Outcome, junit_property, of_report, worst
from tools.shard import journal, request, store

DEFAULT_TIMINGS = Path("tools/shard/timings/timings.json")
_STATE = pytest.StashKey["ShardSession"]()


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
    group.addoption("--shard-journal", default=None, help="append progress events (JSON lines) here")


class ShardSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        opt = config.option
        try:
            self.levels = request.resolve(os.environ, opt.shard_index, opt.shard_total)
        except request.ShardRequestError as err:
            raise pytest.UsageError(str(err)) from None
        self.only = _read_only(opt.shard_only) if opt.shard_only else None
        self.timings_path = _timings_path(config)
        self.writer = journal.JournalWriter(Path(opt.shard_journal)) if opt.shard_journal else None
        self.phases: dict[str, list[Outcome]] = {}
        self.seconds: dict[str, float] = {}
        self.crashes: dict[str, str] = {}
        self.kept = 0
        _acknowledge_bazel_sharding()

    def recorded(self) -> dict[str, float]:
        if self.timings_path is None:
            return {}
        try:
            return dict(store.load(self.timings_path).tests)
        except store.TimingsError as err:
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

    # -- hooks (this object is registered as a plugin in pytest_configure) --

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        keep = self.select([item.nodeid for item in items])
        dropped = [item for item in items if item.nodeid not in keep]
        if dropped:
            items[:] = [item for item in items if item.nodeid in keep]
            config.hook.pytest_deselected(items=dropped)
        self.kept = len(items)
        if self.writer:
            self.writer.selected([item.nodeid for item in items])

    def pytest_report_collectionfinish(self) -> str | None:
        if not self.levels or self.only is not None:
            return None
        where = ", ".join(f"{lvl.origin} shard {lvl.index + 1}/{lvl.total}" for lvl in self.levels)
        return f"shard: {where}, {self.config.option.shard_strategy}, {self.kept} tests"

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call):
        report = yield
        prop = junit_property(of_report(report))  # an XPASS: the merged JUnit keeps it
        if prop and prop not in item.user_properties:
            item.user_properties.append(prop)
        return report

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        if self.writer:
            self.writer.start(nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        phases = self.phases.setdefault(report.nodeid, [])
        phases.append(of_report(report))
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration
        crash = dict(report.user_properties).get("crash")
        if crash:  # a zygote's child died on this test (testing/supervisor)
            self.crashes[report.nodeid] = crash

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        # at logfinish, not on the teardown report: a crashed test has no teardown
        if self.writer and nodeid in self.phases:
            crash = self.crashes.get(nodeid)
            self.writer.end(
                nodeid,
                Outcome.CRASHED.value if crash else worst(self.phases[nodeid]).value,
                self.seconds[nodeid],
                crash or "",
            )

    def pytest_sessionfinish(self) -> None:
        if self.writer:
            self.writer.complete()
            self.writer = None


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
    session = ShardSession(config)
    config.stash[_STATE] = session
    config.pluginmanager.register(session, "tools-shard-session")


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_STATE, None)
    if session is not None:
        config.pluginmanager.unregister(session)
        del config.stash[_STATE]
