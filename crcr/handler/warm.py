"""A warm interpreter for re-runs of failing tests (triage and bisection).

Each bisection step is a new pytest process at another upstream commit, and its tests
take a fraction of a second: the step's cost is start-up. Most of that start-up is
`import torch` (plus op_db, which the plugin loads), and that must happen after the
step's core overlay is first on `sys.path`: the overlay replaces torch's Python files,
so a process that imported torch before it cannot be reused for it. What does not
depend on the overlay is imported once, here: numpy, scipy, sympy, hypothesis, pytest
and its plugins, our plugin's own modules, torchgen (outside `torch/`, never overlaid).
Every run is a fork of that process which puts the overlay first on `sys.path`, takes
the run's environment, working directory and argv, and runs `python -m pytest` exactly
as a fresh interpreter would; torch and everything under it are imported by the fork.

The fork server itself (the request loop, the protocol, forking and reaping runs, their
process groups, a timed-out run's stop) is testing/supervisor/forkserver.py; this module
is the handler's glue: what to preload, how a run takes its context and starts pytest,
and `WarmPytest`, the handler's side. The server refuses to serve (the caller falls back
to fresh processes) when fork is unsafe by testing/supervisor/forksafety.py, the one
fork-safety rule, which here also forbids a preload importing any `torch` module.

**Per overlay**, one level down (the server's layer): runs at the same overlay (the
culprit's confirming re-run right after its midpoint; consecutive commits that change no
`torch/**/*.py` share an overlay, the overlay directory being content-keyed) share a
second zygote, forked from the first for that overlay, environment and working directory:
it puts the overlay first on `sys.path` exactly as a run does and imports torch
(`OVERLAY_PRELOAD`) once, then forks each run there. It is the fresh interpreter a run
would be, having imported torch before pytest rather than from the plugin's configure
hook. One is kept (a run at another overlay closes it); its own start-up CPU is charged to
the first run it serves. When a preload raises (a commit whose torch does not import), it
refuses and that run is forked from the first zygote as before, so it fails exactly as a
fresh interpreter would.

A request is `{"args", "cwd", "env", "log", "core_path"}`: pytest's arguments, the run's
working directory, environment and log, and its core overlay ("" for the wheel's torch).
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import sys
from pathlib import Path
from typing import Mapping, Optional, Sequence

from testing.supervisor import forkserver

# Imported once by the zygote: every one is outside torch/ (the overlay never changes
# them) and imports no torch module (checked after preloading).
PRELOAD = (
    "numpy",
    "scipy.signal",
    "scipy.ndimage",
    "scipy.stats",
    "scipy.special",
    "scipy.linalg",
    "scipy.sparse",
    "sympy",
    "mpmath",
    "hypothesis",
    "hypothesis.strategies",
    "expecttest",
    "pytest",
    "_pytest.junitxml",
    "pydantic",
    "ruamel.yaml",
    "yaml",
    "packaging.markers",
    "packaging.version",
    "torchgen.model",
    "testing.config.load",
    "testing.plugin.plugin",
    "testing.plugin.device_support",
    "testing.plugin.instantiate",
    "testing.plugin.native.setup",
    "testing.plugin.reporting",
    "testing.plugin.selection",
    "testing.plugin.plan",
)
# Imported once per overlay by its zygote, after the overlay is first on sys.path. Only torch:
# not the backend (the run's plugin loads it, and a backend may start device threads), and
# not torch's device-test harness, which decides at import which device bases exist, so it
# must come after the plugin has registered the backend (imported first, a run collects no
# spyre test at all: crcr/tests/test_bisect.py runs the real leg both ways).
OVERLAY_PRELOAD = ("torch",)
READY_SECONDS = forkserver.READY_SECONDS
PYTEST = ("-m", "pytest")


# -- the server's side (runs in its own interpreter, `python -m crcr.handler.warm`) ------------
def _preload() -> None:
    """Import PRELOAD and pytest's entry-point plugins (the fork-safety rule then checks
    that none of them imported torch)."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            continue  # not installed here: the run imports it itself, as a fresh process would
    from importlib.metadata import entry_points

    for ep in entry_points(group="pytest11"):
        try:
            ep.load()
        except Exception:  # noqa: BLE001 - pytest reports a broken plugin itself, in the run
            continue


def _take_run_context(req: dict) -> None:
    """The run's working directory, environment and sys.path (the overlay first, where
    PYTHONPATH's first entry lands in a fresh interpreter); done once per process."""
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    if req.get("core_path"):
        sys.path.insert(1, req["core_path"])
    importlib.invalidate_caches()


def _run_pytest(req: dict) -> int:
    """In the fork: `python -m pytest` with the request's arguments; its exit code."""
    sys.argv = [str(Path(importlib.import_module("pytest").__file__).with_name("__main__.py"))]
    sys.argv += req["args"]
    try:
        runpy.run_module("pytest", run_name="__main__", alter_sys=True)
        return 0
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)


def _overlay_key(req: dict) -> str:
    return json.dumps([req.get("core_path") or "", req["cwd"], sorted(req["env"].items())])


def _overlay_preload() -> str:
    """Import OVERLAY_PRELOAD; the problem that makes this overlay zygote unusable, or ""."""
    for name in OVERLAY_PRELOAD:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name is not None and name.startswith(err.name):
                continue  # not there at all: the run does without it too
            return f"importing {name}: {one_line(err)}"
        except BaseException as err:  # noqa: BLE001 - a commit whose torch does not import
            return f"importing {name}: {one_line(err)}"
    return ""


def one_line(err: BaseException) -> str:
    return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:300]


RECIPE = forkserver.Recipe(
    preload=_preload,
    take=_take_run_context,
    run=_run_pytest,
    forbidden=("torch",),
    layer_key=_overlay_key,
    layer_preload=_overlay_preload,
)


def serve() -> int:
    return forkserver.serve(RECIPE)


# -- the handler's side -----------------------------------------------------------------------
class WarmPytest(forkserver.Client):
    """Runs `python -m pytest` argument lists as forks of one warm zygote; `run` answers
    None when it cannot (the caller then starts a fresh process), with `off` saying why."""

    def __init__(self, ws: Path, env: Mapping[str, str]):
        super().__init__("crcr.handler.warm", ws, env, name="the warm interpreter")
        self.ws = ws
        self.cpu = 0.0  # CPU seconds of the last run (the fork's own)
        self.forked: dict[str, int] = {}  # how runs were forked ("new"/"reused" overlay zygote, else why not)

    def usable(self, argv: Sequence[str]) -> bool:
        return len(argv) > 3 and argv[0] == sys.executable and tuple(argv[1:3]) == PYTEST

    def run(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float, log: Path, core_path
    ) -> Optional[tuple[int, bool]]:
        """(exit code, timed out) of the run, or None: not run here (fall back)."""
        if not self.usable(argv):
            return None
        req = {"args": list(argv[3:]), "cwd": str(cwd), "env": dict(env), "log": str(log)}
        req["core_path"] = str(core_path) if core_path else ""
        done = self.request(req, timeout)
        if done is None:
            return None
        self.cpu = done.cpu
        how = done.layer or f"no overlay zygote: {done.why}"
        self.forked[how] = self.forked.get(how, 0) + 1
        return done.exit, done.timed_out


if __name__ == "__main__":
    sys.exit(serve())
