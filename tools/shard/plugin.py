"""pytest plugin of the shard runner: journal each test's progress and outcome, and keep an
XPASS visible in the JUnit XML.

The runner loads it (`-p tools.shard.plugin`, ``PLUGIN``) beside the sharding plugin below
it (``testing.matrix.plugin``: which tests this shard runs) and follows the journal
(``--shard-journal``) to see which test a dead process was running.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from testing.results.outcomes import Outcome, junit_property, of_report, worst
from tools.shard import journal

PLUGIN = __name__  # what the runner passes to `-p`
_NAME = "tools-shard-journal"  # the registered JournalSession


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("shard", "duration-balanced sharding")
    group.addoption("--shard-journal", default=None, help="append progress events (JSON lines) here")


class JournalSession:
    def __init__(self, config: pytest.Config) -> None:
        path = config.option.shard_journal
        self.writer = journal.JournalWriter(Path(path)) if path else None
        self.phases: dict[str, list[Outcome]] = {}
        self.seconds: dict[str, float] = {}
        self.crashes: dict[str, str] = {}

    # -- hooks (this object is registered as a plugin in pytest_configure) --

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # after every filter and the sharding plugin: the tests this process will run
        if self.writer:
            self.writer.selected([item.nodeid for item in session.items])

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


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(JournalSession(config), _NAME)


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.pluginmanager.has_plugin(_NAME):
        config.pluginmanager.unregister(name=_NAME)
