"""Crash isolation (--isolate): a test that kills its process is an ERROR and the run goes on.

Two modes (``--isolate-mode``, declared in plugin.py; testing/README.md "Crash isolation"):

* ``fork`` (default): this pytest process is the zygote (testing/supervisor/zygote.py).
  It configures (torch, the backend) and collects (the test modules) once, then
  runs the tests in forked children; a crash costs one fork. Where fork is
  unsafe (testing/supervisor/forksafety.py) it falls back to fresh workers.
* ``restart`` (the previous design, and the default on macOS): this process is a
  *controller* that imports no torch and collects nothing; a *worker* (the same
  command line in a fresh interpreter) runs the tests and streams events, and a
  new worker starts after each crash, skipping every node id already finished.

Either way the events are the supervisor's (testing/supervisor/events.py) and
this process replays them, so terminal output, ``--junitxml`` and the JSON
summary are written once, here. One file's collection error does not stop the
other files' tests; the exit status is then 2, as plain pytest's.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
import sys
from typing import Optional

import pytest

from testing.plugin import registry, reporting, roles
from testing.supervisor import forksafety, supervisor, zygote
from testing.supervisor.children import Spawned, inherited_events_fd, tail
from testing.supervisor.events import Payload, Writer
from testing.supervisor.pytest_events import ChildStream, Replayer
from testing.supervisor.scratch import scratch_dir
from testing.supervisor.supervisor import Progress, describe_exit, supervise

ENV_SKIP = "OOT_WORKER_SKIP"
_POLICY = pytest.StashKey["ExitPolicy"]()


def _mode(config: pytest.Config) -> str:
    chosen = config.option.oot_isolate_mode
    if chosen:
        return chosen
    return (
        "restart"
        if forksafety.hazards(forksafety.Probe(sys.platform, hasattr(os, "fork"), (), ()))
        else "fork"
    )


is_worker = roles.is_worker


def is_controller(config: pytest.Config) -> bool:
    """The restart-mode process that collects nothing (decided before configuration)."""
    return (
        bool(config.option.oot_isolate)
        and not os.environ.get(roles.EVENTS_FD)
        and not is_worker(config)
        and _mode(config) == "restart"
    )


def configure(config: pytest.Config) -> None:
    """Worker, zygote or nothing, for a process that collects (controllers: configure_controller)."""
    fd = inherited_events_fd()
    if fd is not None:
        _configure_worker(config, fd)
    elif config.option.oot_isolate:
        policy = _register_policy(config)
        zygote.register(
            config,
            timeout=config.option.oot_timeout,
            stall=zygote.stall_policy(config),
            keep_going_after_collection_errors=True,
            fallback=lambda session, why: Restarter(config, policy, collected_here=True).run(session),
        )


def configure_controller(config: pytest.Config) -> None:
    policy = _register_policy(config)
    registry.register(config, Controller(config, policy), "oot-controller")


# ---------------------------------------------------------------- worker side


class WorkerStream(ChildStream):
    """A spawned worker's stream: it plans after its own collection and runs in-process."""

    def __init__(self, config: pytest.Config, writer: Writer, skip: set[str]) -> None:
        super().__init__(config, writer)
        self.skip = skip

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.plan(session.items)
        # the controller configured nothing: the adapter/provenance/scope listings and the config
        # problems are ours to send
        self.send(
            Payload(
                {
                    "sections": reporting.sections_json(self.config),
                    "problems": reporting.problems_for_controller(self.config),
                }
            )
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self.finish()


def _configure_worker(config: pytest.Config, fd: int) -> None:
    skip_file = os.environ.pop(ENV_SKIP, "")
    skip = set(open(skip_file, encoding="utf-8").read().split("\n")) - {""} if skip_file else set()
    stream = WorkerStream(config, Writer(fd), skip)
    config.stash[roles.WORKER] = stream
    config.workerinput = {"oot_worker": True}  # junitxml & friends: only the supervising process writes
    config.option.continue_on_collection_errors = True  # one file's ImportError must not stop the others
    registry.register(config, stream, "oot-worker")


# ---------------------------------------------------------------- supervising side


class ExitPolicy:
    """The supervising process's exit status: plain pytest's for collection errors (2),
    the worker's own when it could not even collect."""

    def __init__(self) -> None:
        self.collection_errors = 0
        self.worker_status: Optional[int] = None

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.collection_errors += 1

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        rc = self.worker_status
        if rc is not None:
            session.exitstatus = rc if rc in (2, 3, 4) else pytest.ExitCode.TESTS_FAILED
        elif self.collection_errors:
            session.exitstatus = pytest.ExitCode.INTERRUPTED


def _register_policy(config: pytest.Config) -> ExitPolicy:
    policy = ExitPolicy()
    config.stash[_POLICY] = policy
    registry.register(config, policy, "oot-isolation-exit")
    return policy


class Restarter:
    """Fresh workers, one after each crash (restart mode, and the zygote's fallback)."""

    def __init__(self, config: pytest.Config, policy: ExitPolicy, collected_here: bool) -> None:
        self.config = config
        self.policy = policy
        self.collected_here = collected_here
        self.tmp = scratch_dir("oot-isolate-")
        self.started = 0

    def run(self, session: pytest.Session) -> bool:
        progress = supervise(
            self._spawn,
            Replayer(self.config, session, collection=not self.collected_here, on_data=self._data),
            timeout=self.config.option.oot_timeout,
            max_restarts=supervisor.MAX_RESTARTS,
            should_stop=lambda: bool(session.shouldfail or session.shouldstop),
        )
        if progress.planned is None and progress.status:
            self._report_worker_failure(progress.status)
        return True

    def _data(self, data: dict) -> None:
        if "sections" in data:
            reporting.receive_sections(self.config, data["sections"])
            reporting.receive_problems(self.config, data.get("problems", []))

    def _spawn(self, progress: Progress) -> Spawned:
        n = self.started
        self.started += 1
        skip_file = os.path.join(self.tmp, f"skip-{n}.txt")
        with open(skip_file, "w", encoding="utf-8") as f:
            f.write("\n".join(sorted(progress.done)))
        # The worker imports exactly what this process can (Bazel runfiles, PYTHONPATH, ...).
        path = os.pathsep.join(p for p in sys.path if p)
        env = dict(os.environ, **{ENV_SKIP: skip_file, "PYTHONPATH": path})
        cmd = [sys.executable, "-m", "pytest", *self.config.invocation_params.args]
        self.log = os.path.join(self.tmp, f"worker-{n}.log")
        return Spawned(cmd, env, str(self.config.invocation_params.dir), self.log)

    def _report_worker_failure(self, rc: int) -> None:
        tw = self.config.get_terminal_writer()
        tw.line(f"isolated worker exited with {describe_exit(rc)} before collecting; its output:", red=True)
        tw.line(tail(self.log, 40))
        self.policy.worker_status = rc


class Controller:
    """Restart mode's supervising process: it collected nothing; the workers do everything."""

    def __init__(self, config: pytest.Config, policy: ExitPolicy) -> None:
        self.restarter = Restarter(config, policy, collected_here=False)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        """The workers collect; this process collects nothing."""
        session.items = []
        return True

    def pytest_report_header(self) -> list[str]:
        return ["oot: isolated controller (tests run in a worker process)"]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        return self.restarter.run(session)
