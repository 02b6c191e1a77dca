"""Is a device healthy? A small known kernel with a known result, run in a fresh interpreter.

Run at a leg's start, after every crash, hang or device fault, and every N tests
(``pool.py``). A fresh interpreter, because the test process may be the thing that is
wrong, and bounded by its own timeout, because a sick device hangs probes too. The kernel
is ``(arange(64) * 2 + 1).sum()``: exact in float16 as in float32 (4096), so any device
that computes at all must return it exactly; anything else is silent corruption.

Who holds a device is read from /proc (every process with the device's node or lock file
open), the way ``fuser`` does, so a grandchild that escaped a killed test is found by
what it holds, not by its ancestry. A probe finds the card free before it starts (else it is
busy at once); held after the probe ended, it is busy too: the probe's kernel starts no
process, so the holder was left by the device's runtime (a leaked helper), not by a test.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import json
import os
import select  # the stdlib one: tools/select is not on a probe's path
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional

HEALTHY, HANG, FAULT, WRONG, BUSY = "healthy", "hang", "device fault", "wrong result", "device busy"
EXPECTED = 4096.0
DEFAULT_TIMEOUT = 60.0

LEFT_HELD = "the probe's own process left it held"  # a card whose every user leaves a holder

STARTUP_LIMIT = 300.0  # importing torch on a loaded host is slow, not a device hang

# The kernel leaves with os._exit: an interpreter's teardown with torch loaded takes 0.5 s of
# CPU, 3 s on a loaded host, all of it inside the kernel's bound (four probes at a leg's start
# were once called hung at 2 s while their kernels had returned in 0.03 s).
_KERNEL = """
import importlib, json, os, sys, traceback, torch
for module in sys.argv[2:]:
    importlib.import_module(module)  # the backend, where no entry point autoloads it
print("ready", flush=True)
try:
    x = torch.arange(64, dtype=torch.float32, device=sys.argv[1])
    print(json.dumps({"got": float((x * 2 + 1).sum().item())}), flush=True)
except BaseException:
    traceback.print_exc()
    sys.stderr.flush()
    os._exit(1)
os._exit(0)
"""


@dataclass(frozen=True)
class Health:
    device: str  # as the leg names it: "spyre:1"
    state: str  # HEALTHY, HANG, FAULT, WRONG or BUSY
    detail: str = ""
    holders: tuple[int, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.state == HEALTHY

    def line(self) -> str:
        held = f" (held by pid {', '.join(map(str, self.holders))})" if self.holders else ""
        return f"{self.device}: {self.state}{held}" + (f": {self.detail}" if self.detail else "")


def probe(
    device: str,
    env: Optional[Mapping[str, str]] = None,
    *,
    node: Optional[Path] = None,
    module: Optional[str] = None,
    timeout: float = DEFAULT_TIMEOUT,
    python: str = sys.executable,
) -> Health:
    """Run the known kernel on ``device`` (``node``: the file whose holders make it busy;
    ``module``: the backend's package, imported first)."""
    if not timeout > 0:
        raise ValueError(f"probe timeout must be positive, got {timeout:g}")
    held = holders(node) if node is not None else ()
    if held:
        return Health(device, BUSY, "still held before the probe", held)
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [python, "-c", _KERNEL, device, *([module] if module else [])],
            env=dict(os.environ if env is None else env),
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,  # the probe's own children die with it on a timeout
        )
        try:
            hung, out = _wait(proc, timeout)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            proc.stdout.close()
        if hung:
            return Health(device, HANG, hung)
        err.seek(0)
        said = err.read().decode(errors="replace")
    left = holders(node) if node is not None else ()
    if left:  # free before the probe, held after it: our kernel leaks nothing, the runtime did
        return Health(device, BUSY, LEFT_HELD, left)
    return _judge(device, subprocess.CompletedProcess(proc.args, proc.returncode, out, said), node)


def check(device: str, module: Optional[str] = None) -> Health:
    """The probe's kernel in this very process: run by a test process after each of its
    tests (tools/shard/cardcheck.py), so a pool knows which results came before the card
    went wrong. Cheap (no interpreter to start), but it trusts the process: a failure is
    confirmed by a fresh-interpreter ``probe``."""
    try:
        import importlib

        import torch

        if module:
            importlib.import_module(module)
        x = torch.arange(64, dtype=torch.float32, device=device)  # the same kernel as _KERNEL's
        got = float((x * 2 + 1).sum().item())
    except Exception as err:  # whatever the runtime raises is the device's fault here
        return _raised(device, (str(err).strip().splitlines() or [type(err).__name__])[-1])
    return _computed(device, got)


def _wait(proc: subprocess.Popen, timeout: float) -> tuple[str, str]:
    """Follow the probe to its end: (why it hung, or "" when it ended; its output). ``timeout`` bounds the
    kernel, not the interpreter's start: the child says "ready" once torch is imported."""
    out, fd = b"", proc.stdout.fileno()
    deadline = time.monotonic() + STARTUP_LIMIT
    while True:
        ready = out.startswith(b"ready\n")
        left = deadline - time.monotonic()
        if left <= 0:
            if ready:
                return f"the probe kernel did not return within {timeout:g}s", ""
            return f"the probe did not start within {STARTUP_LIMIT:g}s", ""
        if select.select([fd], [], [], left)[0]:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return "", out.decode(errors="replace")
            out += chunk
            if not ready and out.startswith(b"ready\n"):
                deadline = time.monotonic() + timeout


def _judge(device: str, done: subprocess.CompletedProcess, node: Optional[Path]) -> Health:
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return _raised(device, last, holders(node) if node is not None else ())
    try:
        got = json.loads(done.stdout.strip().splitlines()[-1])["got"]
    except (IndexError, ValueError, KeyError, TypeError):
        return Health(device, FAULT, f"the probe printed no result: {done.stdout.strip()[-200:]!r}")
    return _computed(device, got)


def _raised(device: str, said: str, held: tuple[int, ...] = ()) -> Health:
    """The kernel raised (``said``: the runtime's last line): busy when the runtime says so."""
    return Health(device, BUSY if "busy" in said else FAULT, said, held)


def _computed(device: str, got: float) -> Health:
    """The kernel returned ``got``: healthy only when exactly right."""
    if got != EXPECTED:
        return Health(device, WRONG, f"got {got:g}, expected {EXPECTED:g}")
    return Health(device, HEALTHY)


def holders(node: Path) -> tuple[int, ...]:
    """Pids of every process with ``node`` open (none when /proc cannot say)."""
    target = os.path.realpath(node)
    found = []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            links = [os.readlink(fd) for fd in fd_dir.iterdir()]
        except OSError:  # gone, or not ours to read
            continue
        if target in links:
            found.append(int(fd_dir.parent.name))
    return tuple(sorted(p for p in found if p != os.getpid()))


def end_holders(node: Path, log, wait: float = 5.0) -> tuple[int, ...]:
    """Kill whatever still holds ``node`` (a grandchild that escaped its test's group, before
    a probe); the pids it found. ``log``: a callable taking one line."""
    found = holders(node)
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
            log(f"ended pid {pid}, which still held {node.name} after its test")
        except (ProcessLookupError, PermissionError):
            continue
    deadline = time.monotonic() + wait
    while holders(node) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found
