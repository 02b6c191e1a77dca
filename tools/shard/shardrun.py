"""The shard runner's pytest children and one supervised run over them (``ShardRun``):
shared by the runner's single chain (runner.py) and each card's worker (devices.py)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from testing.config import runs
from testing.supervisor.children import Spawned
from testing.supervisor.events import Crashed, End, NotRun
from testing.supervisor.supervisor import Progress, describe_exit
from tools.shard import plugin as journal_plugin
from tools.shard.child import as_child
from tools.shard.merge_junit import Attempt, case_for, index_cases


@dataclass
class Workspace:
    root: Path
    mode: str = "fork"
    children: list[dict] = field(default_factory=list)
    devices: list[dict] | None = None  # each card's state, when the shard ran on a pool

    def paths(self) -> tuple[Path, Path]:
        n = len(self.children)
        return self.root / f"junit.{n}.xml", self.root / f"only.{n}.txt"


class PytestChild(Spawned):
    """One pytest process of the shard; its exit is recorded in the summary's ``processes``."""

    def __init__(
        self, ws: Workspace, pytest_args: list[str], only: list[str] | None, env: dict[str, str] | None = None
    ) -> None:
        self.ws, self.tests = ws, None if only is None else len(only)
        self.xml_path, only_path = ws.paths()
        if only is not None:
            only_path.write_text("".join(f"{n}\n" for n in only), encoding="utf-8")
        cmd = runs.PytestCommand(
            args=pytest_args,
            plugins=[runs.SHARD_PLUGIN, journal_plugin.PLUGIN] + [runs.ZYGOTE_PLUGIN] * (ws.mode == "fork"),
            junitxml=str(self.xml_path),
            # xunit1, as the handler's pytest runner writes it: each testcase also says its
            # file and line (node ids for the timings); after the user's own args, so ours wins
            extra=["-o", "junit_family=xunit1"] + ([] if only is None else [f"--shard-only={only_path}"]),
        ).argv()
        cmd = as_child(cmd)  # pytest, as the runner's child (child.py says why)
        # the journal is the pipe the supervisor follows
        environ = dict(os.environ if env is None else env)
        super().__init__(lambda fd: cmd + [f"--shard-journal=/dev/fd/{fd}"], environ, None, None)
        self.recorded = False

    def wait(self) -> int:
        code = super().wait()
        if not self.recorded:
            self.recorded = True
            self.ws.children.append({"returncode": code, "detail": describe_exit(code), "tests": self.tests})
        return code


def log(message: str) -> None:
    print(f"[shard runner] {message}", file=sys.stderr, flush=True)


class ShardRun:
    """The supervisor's launch and sink for one run over the shard (or the tests `only`)."""

    def __init__(
        self, pytest_args: list[str], only: list[str] | None, ws: Workspace, env: dict[str, str] | None = None
    ) -> None:
        self.pytest_args, self.only, self.ws, self.env = pytest_args, only, ws, env
        self.attempts: dict[str, Attempt] = {}
        self.ended_in: dict[str, PytestChild] = {}
        self.children: list[PytestChild] = []
        self.progress: Progress | None = None

    def launch(self, progress: Progress) -> PytestChild:
        self.progress = progress
        pending = self.only if not self.children else progress.remaining()
        self.children.append(PytestChild(self.ws, self.pytest_args, pending, self.env))
        return self.children[-1]

    def sink(self, event) -> None:
        # The journal's End carries the outcome; a zygote child's own End (testing.supervisor's
        # pytest_events, when the leg also runs --isolate) only marks progress.
        if isinstance(event, End) and "outcome" in (event.info or {}):
            info = event.info
            self.attempts[event.key] = Attempt(
                info["outcome"], float(info["seconds"]), None, info.get("detail", "")
            )
            self.ended_in[event.key] = self.children[-1]
        elif isinstance(event, Crashed):
            self.attempts[event.key] = Attempt("crashed", 0.0, None, event.why)
            left = [k for k in self.progress.remaining() or [] if k != event.key]
            log(
                f"pytest {event.why} while running {event.key}; "
                f"rerunning the {len(left)} tests not yet run in a new process"
            )
        elif isinstance(event, NotRun):
            for key in event.keys:
                self.attempts[key] = Attempt("error", 0.0, None, event.reason)

    def with_cases(self) -> dict[str, Attempt]:
        """Each attempt with its <testcase> from the JUnit XML of the child that ran it."""
        cases = {id(child): index_cases(child.xml_path) for child in self.children}
        for nodeid, child in self.ended_in.items():
            a = self.attempts[nodeid]
            self.attempts[nodeid] = Attempt(
                a.outcome, a.seconds, case_for(nodeid, cases[id(child)]), a.detail
            )
        return self.attempts
