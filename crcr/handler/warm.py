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

The zygote refuses to serve (the caller falls back to fresh processes) when a preload
imported any `torch` module.

**Per overlay**, one level down: runs at the same overlay (the culprit's confirming re-run
right after its midpoint; consecutive commits that change no `torch/**/*.py` share an
overlay, the overlay directory being content-keyed) share a second zygote, forked from the
first for that overlay, environment and working directory: it puts the overlay first on
`sys.path` exactly as a run does and imports torch (`OVERLAY_PRELOAD`) once, then forks
each run there. It is the fresh interpreter a run would
be, having imported torch before pytest rather than from the plugin's configure hook. One
is kept (a run at another overlay closes it); its own start-up CPU is charged to the first
run it serves. When a preload raises (a commit whose torch does not import), it refuses and
that run is forked from the first zygote as before, so it fails exactly as a fresh
interpreter would.

Protocol (JSON lines): the zygote says `{"ready": true}` (or `{"ready": false,
"problem": ...}`); each request `{"args", "cwd", "env", "log", "core_path"}` is answered
`{"pid": n}` when the fork starts and `{"exit": code, "cpu": s, "overlay": how}` when it
ends (`how`: `new` or `reused` overlay zygote, else why the run was forked without one).
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import runpy
import select
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Mapping, Optional, Sequence

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
    "testing.plugin.capabilities",
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
READY_SECONDS = 300.0  # the preloads on a loaded 2-core machine
PYTEST = ("-m", "pytest")


# -- the zygote (runs in its own interpreter) -------------------------------------------------
def _preload() -> str:
    """Import PRELOAD and pytest's entry-point plugins; the problem that makes this process
    unusable as a zygote, or ""."""
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
    torch = sorted(m for m in sys.modules if m == "torch" or m.startswith("torch."))
    return f"a preload imported {torch[0]}" if torch else ""


def _write(obj: dict, out=None) -> None:
    out = out or sys.stdout
    out.write(json.dumps(obj) + "\n")
    out.flush()


def _take_run_context(req: dict) -> None:
    """The run's working directory, environment and sys.path (the overlay first, where
    PYTHONPATH's first entry lands in a fresh interpreter); done once per process."""
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    if req.get("core_path"):
        sys.path.insert(1, req["core_path"])
    importlib.invalidate_caches()


def _child(req: dict, taken: bool = False) -> None:
    """In the fork: become the fresh `python -m pytest` the request describes; never returns.
    `taken`: forked from an overlay zygote, which took the run's context already."""
    code = 1
    try:
        os.setsid()  # its own process group: a timeout kills the run and whatever it started
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as a fresh interpreter has them
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        log = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        if not taken:
            _take_run_context(req)
        sys.argv = [str(Path(importlib.import_module("pytest").__file__).with_name("__main__.py"))]
        sys.argv += req["args"]
        try:
            runpy.run_module("pytest", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # noqa: BLE001 - whatever happens, the fork must not return into the zygote
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def _fork_run(req: dict, taken: bool, out) -> None:
    """Fork one run, say its pid, wait, say its exit code and CPU seconds."""
    pid = os.fork()
    if pid == 0:
        _child(req, taken)
    _write({"pid": pid}, out)
    _, status, usage = os.wait4(pid, 0)
    _write({"exit": os.waitstatus_to_exitcode(status), "cpu": usage.ru_utime + usage.ru_stime}, out)


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


class _OverlayZygote:
    """The base zygote's handle on the zygote of one overlay (a fork of itself)."""

    def __init__(self, req: dict):
        self.key = _overlay_key(req)
        self.problem = ""
        self.cpu = 0.0  # its own start-up, charged to the first run it serves
        to_child, self.to = os.pipe()
        self.frm, from_child = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.to)
            os.close(self.frm)
            _overlay_serve(req, to_child, from_child)
        os.close(to_child)
        os.close(from_child)
        self.lines = _Lines(self.frm)
        try:
            hello = self.lines.next(READY_SECONDS) or {"problem": "did not start"}
        except (EOFError, ValueError) as err:
            hello = {"problem": str(err)}
        self.problem = "" if hello.get("ready") else hello.get("problem") or "did not start"
        self.cpu = float(hello.get("cpu") or 0.0)

    def run(self, req: dict, out) -> bool:
        """Relay one run through it; False when it is gone before the run started."""
        try:
            os.write(self.to, (json.dumps(req) + "\n").encode())
            started = self.lines.next(READY_SECONDS)
        except (OSError, EOFError, ValueError):
            started = None
        if not started:
            self.problem = "it exited"
            return False
        _write(started, out)
        try:
            done = self.lines.next(None) or {}
        except (EOFError, ValueError):
            done, self.problem = {}, "it exited during a run"
        _write({**done, "cpu": float(done.get("cpu") or 0.0) + self.cpu}, out)
        self.cpu = 0.0
        return True

    def close(self) -> None:
        for fd in (self.to, self.frm):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _overlay_serve(req: dict, inp: int, out: int) -> None:
    """In the fork: the zygote of one overlay; never returns."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # its stdout is not the protocol: a preload's output goes nowhere
            os.dup2(null, fd)
        writer = os.fdopen(out, "w")
        _take_run_context(req)
        problem = _overlay_preload()
        own = resource.getrusage(resource.RUSAGE_SELF)
        _write({"ready": not problem, "problem": problem, "cpu": own.ru_utime + own.ru_stime}, writer)
        if not problem:
            for line in os.fdopen(inp):
                _fork_run(json.loads(line), True, writer)
    finally:
        os._exit(0)


def serve() -> int:
    problem = _preload()
    own = resource.getrusage(resource.RUSAGE_SELF)
    _write({"ready": not problem, "problem": problem, "cpu": own.ru_utime + own.ru_stime})
    if problem:
        return 3
    overlay: Optional[_OverlayZygote] = None
    for line in sys.stdin:
        req = json.loads(line)
        how = "reused"
        if overlay is not None and overlay.key != _overlay_key(req):
            overlay.close()
            overlay = None
        if overlay is None:
            overlay, how = _OverlayZygote(req), "new"
        if overlay.problem or not overlay.run(req, _Tagged(how)):
            _fork_run(req, False, _Tagged(f"no overlay zygote: {overlay.problem}"))
        if overlay.problem:
            overlay.close()
            overlay = None
    if overlay is not None:
        overlay.close()
    return 0


class _Tagged:
    """stdout, with the exit line saying how the run was forked."""

    def __init__(self, how: str):
        self.how = how

    def write(self, text: str) -> None:
        obj = json.loads(text)
        if "exit" in obj:
            text = json.dumps({**obj, "overlay": self.how}) + "\n"
        sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


# -- the client (the handler's side) ----------------------------------------------------------
class _Lines:
    """JSON lines from a pipe, each waited for with a deadline."""

    def __init__(self, fd: int):
        self.fd, self.buf = fd, b""

    def next(self, timeout: Optional[float]) -> Optional[dict]:
        """The next line, or None after `timeout` seconds (None: wait as long as it takes)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and (left <= 0 or not select.select([self.fd], [], [], left)[0]):
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError("the warm interpreter exited")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)


class WarmPytest:
    """Runs `python -m pytest` argument lists as forks of one warm zygote; `run` answers
    None when it cannot (the caller then starts a fresh process), with `off` saying why."""

    def __init__(self, ws: Path, env: Mapping[str, str]):
        self.ws, self.env = ws, dict(env)
        self.proc: Optional[subprocess.Popen] = None
        self.lines: Optional[_Lines] = None
        self.off = ""
        self.start_seconds = 0.0  # the zygote's own start-up (its preloads)
        self.start_cpu = 0.0  # CPU seconds of that start-up
        self.cpu = 0.0  # CPU seconds of the last run (the fork's own)
        self.forked: dict[str, int] = {}  # how runs were forked ("new"/"reused" overlay zygote, else why not)

    def _start(self) -> bool:
        if self.proc is not None or self.off:
            return self.proc is not None
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "crcr.handler.warm"],
            cwd=self.ws,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.lines = _Lines(self.proc.stdout.fileno())
        try:
            hello = self.lines.next(READY_SECONDS)
        except (EOFError, ValueError) as err:
            hello = {"ready": False, "problem": str(err)}
        if not hello or not hello.get("ready"):
            self.off = (hello or {}).get("problem") or "the warm interpreter did not start"
            self.close()
            return False
        self.start_seconds = time.monotonic() - t0
        self.start_cpu = float(hello.get("cpu") or 0.0)
        return True

    def usable(self, argv: Sequence[str]) -> bool:
        return len(argv) > 3 and argv[0] == sys.executable and tuple(argv[1:3]) == PYTEST

    def run(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float, log: Path, core_path
    ) -> Optional[tuple[int, bool]]:
        """(exit code, timed out) of the run, or None: not run here (fall back)."""
        if not self.usable(argv) or not self._start():
            return None
        req = {"args": list(argv[3:]), "cwd": str(cwd), "env": dict(env), "log": str(log)}
        req["core_path"] = str(core_path) if core_path else ""
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
            started = self.lines.next(READY_SECONDS)
            if started is None:
                raise EOFError("no fork started")
            done = self.lines.next(timeout)
            timed_out = done is None
            if timed_out:
                _kill(started["pid"])
                done = self.lines.next(30.0) or {}
            self.cpu = float(done.get("cpu") or 0.0)
            how = str(done.get("overlay") or "")
            self.forked[how] = self.forked.get(how, 0) + 1
            return done.get("exit", -9), timed_out
        except (OSError, EOFError, ValueError, KeyError) as err:
            self.off = f"the warm interpreter failed: {err}"
            self.close()
            return None

    def close(self) -> None:
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        try:
            proc.stdin.close()
            proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _kill(pid: int) -> None:
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait
        while time.monotonic() < end:
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


if __name__ == "__main__":
    sys.exit(serve())
