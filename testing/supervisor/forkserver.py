"""The fork server: the zygote as a process other programs ask for forks.

A process whose start-up is mostly imports pays for them once here: the server imports
what every request shares, then each request is a fork (children.Forked, its own process
group, started as a fresh interpreter would be) that takes the request's context and runs
it. The caller says what that means in a ``Recipe`` and runs ``serve(recipe)`` as its
module's ``__main__``; ``Client`` starts that module and sends it requests. The handler's
warm interpreter (crcr/handler/warm.py) is the caller today.

**Layers**, one level down: requests with the same ``layer_key`` share a second server,
forked from the first, which took the first such request's context and imported what
they share (``layer_preload``); later requests with that key fork there. One layer is
kept (a request with another key closes it); its own start-up CPU is charged to the
first request it serves. A layer that cannot serve (its preload failed, or fork is unsafe
after it) refuses, and the request is forked from the server itself.

Before serving, the server and each layer ask forksafety.py, the one fork-safety rule;
the server refuses (``{"ready": false, "problem": ...}``) when fork is unsafe or a
``forbidden`` package was imported by the preload (the caller then runs fresh processes).

Protocol (JSON lines on the server's stdin/stdout): the server says ``{"ready": true,
"cpu": s}`` (or ``"ready": false`` with ``"problem"``); each request (a JSON object with
the caller's fields and ``"log"``, where the fork's output goes) is answered ``{"pid": n}``
when the fork starts (its process group) and ``{"exit": code, "cpu": s, "layer": how,
"why": problem}`` when it ends; ``how``: ``new`` or ``reused`` layer, else ``""`` with
``why`` the layer's problem (no layering: both empty).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import json
import os
import resource
import select
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Optional

from testing.supervisor import forksafety
from testing.supervisor.children import Forked, stop_process_group

READY_SECONDS = 300.0  # a server's or layer's preloads on a loaded 2-core machine
KILL_GRACE = 10.0  # a timed-out run's group gets this long after SIGTERM before SIGKILL


@dataclass(frozen=True)
class Recipe:
    """What a fork server is for: the caller's side of it."""

    preload: Callable[[], None]  # in the server, once: import what every request shares
    take: Callable[[dict], None]  # a request's context (cwd, environment, sys.path), in this process
    run: Callable[[dict], int]  # in the fork, once the context is taken: the request; its exit code
    forbidden: tuple[str, ...] = ()  # packages the preload must leave to the forks (forksafety)
    layer_key: Optional[Callable[[dict], str]] = None  # requests with one key share a layer
    layer_preload: Callable[[], str] = lambda: ""  # in a layer: its imports; the problem or ""


# -- the server (runs in its own interpreter) ------------------------------------------------
def serve(recipe: Recipe) -> int:
    """The server's main: preload, say whether it serves, then serve stdin's requests."""
    recipe.preload()
    problem = "; ".join(forksafety.current_hazards(recipe.forbidden))
    _say(sys.stdout, ready=not problem, problem=problem, cpu=_own_cpu())
    if problem:
        return 3
    layers = _Layers(recipe)
    try:
        for line in sys.stdin:
            layers.serve(json.loads(line), sys.stdout)
    finally:
        layers.close()
    return 0


def _say(out, **obj) -> None:
    out.write(json.dumps(obj) + "\n")
    out.flush()


def _own_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _fork(recipe: Recipe, req: dict, taken: bool, out, **tag) -> None:
    """Fork one request, say its pid, reap it, say its exit code and CPU seconds.
    ``taken``: this process (a layer) holds the request's context already."""
    child = Forked(lambda events: _child(recipe, req, taken, events), req["log"], as_fresh=True)
    _say(out, pid=child.pid)
    code = child.wait()
    _say(out, exit=code, cpu=child.cpu, **tag)


def _child(recipe: Recipe, req: dict, taken: bool, events: int) -> int:
    """In the fork: the request, exiting as an interpreter does on an uncaught exception."""
    os.close(events)  # no events: the exit line says it all
    try:
        if not taken:
            recipe.take(req)
        return recipe.run(req)
    except BaseException:  # noqa: BLE001 - a fresh interpreter prints it and exits 1
        traceback.print_exc()
        return 1


class _Layers:
    """The server's one layer at a time, and the choice of layer or server per request."""

    def __init__(self, recipe: Recipe):
        self.recipe = recipe
        self.layer: Optional[_Layer] = None

    def serve(self, req: dict, out) -> None:
        if self.recipe.layer_key is None:
            _fork(self.recipe, req, False, out, layer="", why="")
            return
        key, how = self.recipe.layer_key(req), "reused"
        if self.layer is not None and self.layer.key != key:
            self.close()
        if self.layer is None:
            self.layer, how = _Layer(self.recipe, req, key), "new"
        if self.layer.problem or not self.layer.relay(req, out, how):
            _fork(self.recipe, req, False, out, layer="", why=self.layer.problem)
        if self.layer.problem:
            self.close()

    def close(self) -> None:
        if self.layer is not None:
            self.layer.close()
            self.layer = None


class _Layer:
    """The server's handle on one layer (a fork of itself serving the requests of one key)."""

    def __init__(self, recipe: Recipe, req: dict, key: str):
        self.key, self.problem = key, ""
        self.cpu = 0.0  # its own start-up, charged to the first request it serves
        to_layer, self.to = os.pipe()
        # its answers come back on the fork's events pipe
        self.child = Forked(
            lambda answers: _layer_main(recipe, req, to_layer, answers, self.to), os.devnull, as_fresh=True
        )
        os.close(to_layer)
        self.lines = Lines(self.child.fd, "the layer")
        try:
            hello = self.lines.next(READY_SECONDS) or {"problem": "did not start"}
        except (EOFError, ValueError) as err:
            hello = {"problem": str(err)}
        self.problem = "" if hello.get("ready") else hello.get("problem") or "did not start"
        self.cpu = float(hello.get("cpu") or 0.0)

    def relay(self, req: dict, out, how: str) -> bool:
        """Relay one request through it; False when it is gone before the fork started."""
        try:
            os.write(self.to, (json.dumps(req) + "\n").encode())
            started = self.lines.next(READY_SECONDS)
        except (OSError, EOFError, ValueError):
            started = None
        if not started:
            self.problem = "it exited"
            return False
        _say(out, **started)
        try:
            done = self.lines.next(None) or {}
        except (EOFError, ValueError):
            done, self.problem = {}, "it exited during a run"
        _say(out, **{**done, "cpu": float(done.get("cpu") or 0.0) + self.cpu, "layer": how})
        self.cpu = 0.0
        return True

    def close(self) -> None:
        os.close(self.to)  # its end of input: it leaves
        try:
            self.child.wait()
        except ChildProcessError:
            pass


def _layer_main(recipe: Recipe, req: dict, inp: int, out: int, servers_end: int) -> int:
    """In the layer's fork: take the context, preload, serve the key's requests."""
    os.close(servers_end)
    writer = os.fdopen(out, "w")
    recipe.take(req)
    problem = recipe.layer_preload() or "; ".join(forksafety.current_hazards())
    _say(writer, ready=not problem, problem=problem, cpu=_own_cpu())
    if not problem:
        for line in os.fdopen(inp):
            _fork(recipe, json.loads(line), True, writer, why="")
    return 0


# -- the client (the caller's side) ----------------------------------------------------------
class Lines:
    """JSON lines from a pipe, each waited for with a deadline."""

    def __init__(self, fd: int, who: str):
        self.fd, self.who, self.buf = fd, who, b""

    def next(self, timeout: Optional[float]) -> Optional[dict]:
        """The next line, or None after `timeout` seconds (None: wait as long as it takes)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and (left <= 0 or not select.select([self.fd], [], [], left)[0]):
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError(f"{self.who} exited")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)


@dataclass(frozen=True)
class Done:
    """How one request ended."""

    exit: int
    timed_out: bool
    cpu: float  # the fork's CPU seconds (plus a new layer's start-up)
    layer: str  # "new" or "reused" layer, else ""
    why: str  # with no layer: why the layer refused


class Client:
    """Starts `python -m <module>` (whose main is ``serve``) and sends it requests; when it
    cannot serve, ``request`` answers None and ``off`` says why (the caller then starts a
    fresh process; it stays off)."""

    def __init__(self, module: str, cwd: Path, env: Mapping[str, str], name: str = "the fork server"):
        self.module, self.cwd, self.env, self.name = module, cwd, dict(env), name
        self.proc: Optional[subprocess.Popen] = None
        self.lines: Optional[Lines] = None
        self.off = ""
        self.start_seconds = 0.0  # the server's own start-up (its preloads)
        self.start_cpu = 0.0  # CPU seconds of that start-up

    def start(self) -> bool:
        """Started (once; True), or off."""
        if self.proc is not None or self.off:
            return self.proc is not None
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", self.module],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.lines = Lines(self.proc.stdout.fileno(), self.name)
        try:
            hello = self.lines.next(READY_SECONDS)
        except (EOFError, ValueError) as err:
            hello = {"ready": False, "problem": str(err)}
        if not hello or not hello.get("ready"):
            self.off = (hello or {}).get("problem") or f"{self.name} did not start"
            self.close()
            return False
        self.start_seconds = time.monotonic() - t0
        self.start_cpu = float(hello.get("cpu") or 0.0)
        return True

    def request(self, req: dict, timeout: float) -> Optional[Done]:
        """Fork `req` (its fields and "log") and wait for it; past `timeout` seconds its
        process group is stopped. None: not served (``off`` says why)."""
        if not self.start():
            return None
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
            started = self.lines.next(READY_SECONDS)
            if started is None:
                raise EOFError("no fork started")
            done = self.lines.next(timeout)
            timed_out = done is None
            if timed_out:
                stop_process_group(started["pid"], KILL_GRACE)
                done = self.lines.next(30.0) or {}
        except (OSError, EOFError, ValueError, KeyError) as err:
            self.off = f"{self.name} failed: {err}"
            self.close()
            return None
        cpu = float(done.get("cpu") or 0.0)
        return Done(
            done.get("exit", -9), timed_out, cpu, str(done.get("layer") or ""), str(done.get("why") or "")
        )

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
