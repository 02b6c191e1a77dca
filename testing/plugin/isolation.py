"""Crash isolation: a controller pytest drives a worker pytest and survives its death.

Design (see testing/README.md "Crash isolation"):

* With ``--isolate`` the invoked pytest becomes the *controller*. It imports
  no torch and collects nothing; it starts a *worker*: the same command line
  in a subprocess, with a pipe (fd in ``OOT_WORKER_FD``) for events.
* The worker runs normally and streams: collected count, begin (node id +
  the bucket properties), every report (pytest's own serializable form, as
  pytest-xdist does), finish. It writes no JUnit/summary files.
* The controller replays these through its own hooks, so terminal output,
  ``--junitxml`` and the JSON summary are produced once, by the controller.
* If the worker dies while a test is in flight (segfault, abort, os._exit)
  or a test overruns ``--oot-timeout`` (watchdog kill), the controller
  reports that node id as ERROR ("crashed") and starts a new worker that
  skips every node id already finished. A crash costs one worker start-up.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from typing import Optional

import pytest

ENV_FD = "OOT_WORKER_FD"
ENV_SKIP = "OOT_WORKER_SKIP"
_WORKER = pytest.StashKey["WorkerStream"]()
MAX_RESTARTS = 200


def addoption(group) -> None:
    """Isolation has no options beyond --isolate/--oot-timeout (plugin.py)."""


def is_worker(config: pytest.Config) -> bool:
    return _WORKER in config.stash


def is_controller(config: pytest.Config) -> bool:
    return bool(config.option.oot_isolate) and not os.environ.get(ENV_FD) and not is_worker(config)


# ---------------------------------------------------------------- worker side


class WorkerStream:
    def __init__(self, config: pytest.Config, fd: int, skip: set[str]) -> None:
        self.config = config
        self.out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
        self.skip = skip

    def send(self, **event) -> None:
        self.out.write(json.dumps(event) + "\n")
        self.out.flush()

    def _ser(self, report) -> dict:
        return self.config.hook.pytest_report_to_serializable(config=self.config, report=report)

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.send(e="collect", data=self._ser(report))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.send(e="collected", n=len(session.items), ids=[i.nodeid for i in session.items])

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem) -> None:
        self.send(e="begin", nodeid=item.nodeid, location=list(item.location), props=[list(p) for p in item.user_properties])

    def pytest_runtest_logstart(self, nodeid, location) -> None:
        self.send(e="start", nodeid=nodeid, location=list(location))

    def pytest_runtest_logreport(self, report) -> None:
        self.send(e="report", data=self._ser(report))

    def pytest_runtest_logfinish(self, nodeid, location) -> None:
        self.send(e="finish", nodeid=nodeid, location=list(location))


def configure_worker(config: pytest.Config) -> None:
    fd = os.environ.pop(ENV_FD, None)
    if not fd:
        return
    skip_file = os.environ.pop(ENV_SKIP, "")
    skip = set(open(skip_file, encoding="utf-8").read().split("\n")) - {""} if skip_file else set()
    stream = WorkerStream(config, int(fd), skip)
    config.stash[_WORKER] = stream
    config.workerinput = {"oot_worker": True}  # junitxml & friends: only the controller writes
    config.pluginmanager.register(stream, "oot-worker")


def worker_filter(config: pytest.Config, items: list) -> None:
    stream = config.stash.get(_WORKER, None)
    if stream is not None and stream.skip:
        items[:] = [i for i in items if i.nodeid not in stream.skip]


# ---------------------------------------------------------------- controller side


def skip_collection(session: pytest.Session) -> bool:
    session.items = []
    return True


class Controller:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.done: set[str] = set()
        self.collected: Optional[int] = None
        self.all_ids: set[str] = set()
        self.restarts = 0
        self.tmp = tempfile.mkdtemp(prefix="oot-isolate-")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        while True:
            crashed = self._run_worker(session)
            if crashed is None or self.restarts >= MAX_RESTARTS or self.all_ids <= self.done:
                break  # finished, too many crashes, or the crash was the last test
            self.restarts += 1
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        rc = self.config.stash.get(_FAILED, None)
        if rc is not None:
            session.exitstatus = rc if rc in (2, 3, 4) else pytest.ExitCode.TESTS_FAILED

    def _command(self) -> list[str]:
        return [sys.executable, "-m", "pytest", *self.config.invocation_params.args]

    def _run_worker(self, session: pytest.Session) -> Optional[str]:
        """Run one worker to its end; return the node id it crashed on, if any."""
        skip_file = os.path.join(self.tmp, f"skip-{self.restarts}.txt")
        with open(skip_file, "w", encoding="utf-8") as f:
            f.write("\n".join(sorted(self.done)))
        log_path = os.path.join(self.tmp, f"worker-{self.restarts}.log")
        r, w = os.pipe()
        # The worker imports exactly what the controller can (Bazel runfiles, PYTHONPATH, ...).
        path = os.pathsep.join(p for p in sys.path if p)
        env = dict(os.environ, **{ENV_FD: str(w), ENV_SKIP: skip_file, "PYTHONPATH": path})
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                self._command(), pass_fds=(w,), env=env, stdout=log, stderr=subprocess.STDOUT,
                cwd=str(self.config.invocation_params.dir), start_new_session=True,
            )
        os.close(w)
        inflight = self._pump(session, r, proc)
        rc = proc.wait()
        os.close(r)
        if inflight is not None:
            nodeid, location, props, why = inflight
            why = why or _describe_exit(rc)
            self._report_crash(nodeid, location, props, why, log_path)
            self.done.add(nodeid)
            return nodeid
        if self.collected is None and rc != 0:
            self._report_worker_failure(rc, log_path)
        return None

    def _pump(self, session: pytest.Session, fd: int, proc: subprocess.Popen):
        hook = self.config.hook
        inflight = None
        started = 0.0
        timeout = self.config.option.oot_timeout
        buf = b""
        while True:
            wait = 1.0
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                if inflight and timeout and time.monotonic() - started > timeout * 1.25 + 2:
                    os.killpg(proc.pid, signal.SIGKILL)
                    return inflight[:3] + (f"timeout: no result after {timeout:g}s (watchdog killed the worker)",)
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return inflight
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                ev = json.loads(line)
                kind = ev["e"]
                if kind == "collected":
                    if self.collected is None:
                        self.collected = ev["n"]
                        self.all_ids = set(ev["ids"])
                        session.testscollected = ev["n"]
                        tw = self.config.get_terminal_writer()
                        tw.line(f"isolated worker collected {ev['n']} items")
                elif kind == "collect":
                    hook.pytest_collectreport(report=hook.pytest_report_from_serializable(config=self.config, data=ev["data"]))
                elif kind == "begin":
                    inflight = (ev["nodeid"], tuple(ev["location"]), [tuple(p) for p in ev["props"]], None)
                    started = time.monotonic()
                elif kind == "start":
                    hook.pytest_runtest_logstart(nodeid=ev["nodeid"], location=tuple(ev["location"]))
                elif kind == "report":
                    hook.pytest_runtest_logreport(report=self._report(ev["data"]))
                elif kind == "finish":
                    hook.pytest_runtest_logfinish(nodeid=ev["nodeid"], location=tuple(ev["location"]))
                    self.done.add(ev["nodeid"])
                    inflight = None

    def _report(self, data: dict):
        report = self.config.hook.pytest_report_from_serializable(config=self.config, data=data)
        if isinstance(report.longrepr, list):
            report.longrepr = tuple(report.longrepr)  # JSON turned the skip (path, line, reason) tuple into a list
        if report.skipped and not hasattr(report, "wasxfail") and not isinstance(report.longrepr, tuple):
            report.longrepr = _skip_location(report)
        return report

    def _report_crash(self, nodeid, location, props, why: str, log_path: str) -> None:
        tail = _tail(log_path)
        report = pytest.TestReport(
            nodeid=nodeid, location=location, keywords={}, outcome="failed",
            longrepr=f"worker crashed: {why}\n--- worker output (tail) ---\n{tail}", when="setup",
            user_properties=list(props) + [("crash", why)],
        )
        hook = self.config.hook
        hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
        hook.pytest_runtest_logreport(report=report)
        hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)

    def _report_worker_failure(self, rc: int, log_path: str) -> None:
        tw = self.config.get_terminal_writer()
        tw.line(f"isolated worker exited with {_describe_exit(rc)} before collecting; its output:", red=True)
        tw.line(_tail(log_path, 40))
        self.config.stash[_FAILED] = rc


_FAILED = pytest.StashKey[int]()


def _describe_exit(rc: int) -> str:
    if rc < 0:
        try:
            return f"signal {-rc} ({signal.Signals(-rc).name})"
        except ValueError:
            return f"signal {-rc}"
    return f"exit code {rc}"


def _tail(path: str, lines: int = 15) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def configure_controller(config: pytest.Config) -> None:
    config.pluginmanager.register(Controller(config), "oot-controller")


def worker_exit_status(config: pytest.Config) -> Optional[int]:
    return config.stash.get(_FAILED, None)


def _skip_location(report) -> tuple:
    """A skip whose reason arrived as a rendered traceback (unittest.SkipTest raised inside
    a torch decorator) becomes the (path, line, reason) triple junitxml and the terminal
    summary require of skipped reports."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return (crash.path, crash.lineno, crash.message)
    path, line, _ = report.location
    return (path, (line or 0) + 1, str(report.longrepr))
