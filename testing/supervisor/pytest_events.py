"""pytest over the supervisor's events: the child side streams, the parent side replays.

Child (a fork of the zygote, or a spawned worker): ``Planned`` after collection,
``Begin`` before each test's protocol (location + user properties), one
``Payload`` per report (pytest's own serializable form, as pytest-xdist sends),
``End`` after ``pytest_runtest_logfinish``, ``Finished`` at its normal end.

Parent: replays them through its own hooks (logstart, logreport, logfinish), so
terminal output, ``--junitxml`` and any result plugin see one ordinary run;
``Crashed`` and ``NotRun`` become ERROR reports under the test's node id.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import pytest

from testing.supervisor.events import Begin, Crashed, End, Event, Finished, NotRun, Payload, Planned, Writer

# Hooks a forked child must not deliver to the parent's plugins: the parent replays
# them, and plugins that write as they go (a journal, a report log) would write twice.
REPLAYED_HOOKS = (
    "pytest_runtest_logstart",
    "pytest_runtest_logreport",
    "pytest_runtest_logfinish",
    "pytest_warning_recorded",
)


class ChildStream:
    """Registered in the child: turns its hooks into events on ``writer``."""

    def __init__(self, config: pytest.Config, writer: Writer) -> None:
        self.config = config
        self.writer = writer

    def send(self, event: Event) -> None:
        self.writer.send(event)

    def plan(self, items: list) -> None:
        self.send(Planned([i.nodeid for i in items], {i.nodeid: list(i.location) for i in items}))

    def _ser(self, report) -> dict:
        return self.config.hook.pytest_report_to_serializable(config=self.config, report=report)

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.send(Payload({"collect": self._ser(report)}))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem) -> None:
        self.send(
            Begin(
                item.nodeid,
                {"location": list(item.location), "props": [list(p) for p in item.user_properties]},
            )
        )

    def pytest_runtest_logreport(self, report) -> None:
        self.send(Payload({"report": self._ser(report)}))

    def pytest_runtest_logfinish(self, nodeid, location) -> None:
        self.send(End(nodeid))

    def finish(self) -> None:
        self.send(Finished())


def mute_replayed_hooks(config: pytest.Config, keep: object) -> None:
    """In a forked child: the replayed hooks reach only ``keep`` (pluggy's subset callers)."""
    pm = config.pluginmanager
    others = [p for p in pm.get_plugins() if p is not keep]
    for name in REPLAYED_HOOKS:
        setattr(pm.hook, name, pm.subset_hook_caller(name, remove_plugins=others))


class Replayer:
    """The parent's sink: events back into pytest's hooks.

    ``collection``: also replay collection (the restart-mode controller collects
    nothing itself); otherwise the parent already reported its own collection."""

    def __init__(
        self, config: pytest.Config, session: pytest.Session, collection: bool, on_data=None
    ) -> None:
        self.config = config
        self.session = session
        self.collection = collection
        self.on_data = on_data  # the user's own payloads (neither a report nor a collection error)
        self.planned = False
        self.locations: dict[str, tuple] = {}

    def __call__(self, event: Event) -> None:
        hook = self.config.hook
        if isinstance(event, Planned):
            self.locations.update({k: tuple(v) for k, v in event.info.items()})
            if self.collection and not self.planned:
                self.session.testscollected = len(event.keys)
                self.config.get_terminal_writer().line(f"isolated worker collected {len(event.keys)} items")
            self.planned = True
        elif isinstance(event, Begin):
            self.locations[event.key] = tuple(event.info["location"])
            hook.pytest_runtest_logstart(nodeid=event.key, location=tuple(event.info["location"]))
        elif isinstance(event, Payload):
            if "report" in event.data:
                hook.pytest_runtest_logreport(report=self.report(event.data["report"]))
            elif "collect" in event.data and self.collection:
                hook.pytest_collectreport(
                    report=hook.pytest_report_from_serializable(
                        config=self.config, data=event.data["collect"]
                    )
                )
            elif "collect" not in event.data and self.on_data is not None:
                self.on_data(event.data)
        elif isinstance(event, End):
            hook.pytest_runtest_logfinish(nodeid=event.key, location=self._location(event.key))
        elif isinstance(event, Crashed):
            props = [tuple(p) for p in event.info.get("props", [])] + [
                ("crash", event.why),
                ("trouble", event.trouble),
            ]
            self._error(
                event.key,
                f"worker crashed: {event.why}\n--- worker output (tail) ---\n{event.tail}",
                props,
                started=True,
            )
        elif isinstance(event, NotRun):
            for key in event.keys:
                self._error(key, event.reason, [("not_run", event.reason)], started=False)

    def _location(self, key: str) -> tuple:
        return self.locations.get(key) or (key.split("::")[0], None, key.split("::")[-1])

    def _error(self, nodeid: str, longrepr: str, props: list, started: bool) -> None:
        hook = self.config.hook
        location = self._location(nodeid)
        report = pytest.TestReport(
            nodeid=nodeid,
            location=location,
            keywords={},
            outcome="failed",
            longrepr=longrepr,
            when="setup",
            user_properties=props,
        )
        if not started:
            hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
        hook.pytest_runtest_logreport(report=report)
        hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)

    def report(self, data: dict):
        report = self.config.hook.pytest_report_from_serializable(config=self.config, data=data)
        if isinstance(report.longrepr, list):
            report.longrepr = tuple(
                report.longrepr
            )  # JSON turned the skip (path, line, reason) tuple into a list
        if report.skipped and not hasattr(report, "wasxfail") and not isinstance(report.longrepr, tuple):
            report.longrepr = skip_location(report)
        return report


def skip_location(report) -> tuple:
    """A skip whose reason arrived as a rendered traceback (unittest.SkipTest raised inside
    a torch decorator) becomes the (path, line, reason) triple junitxml and the terminal
    summary require of skipped reports."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return (crash.path, crash.lineno, crash.message)
    path, line, _ = report.location
    return (path, (line or 0) + 1, str(report.longrepr))
