"""The one fork-safety rule: when a pre-imported process may be forked, and how it stays so.

Every process here that forks pre-imported children asks this module first: the
pytest zygote (zygote.py, ``--isolate``) and the fork server (forkserver.py, the
handler's warm interpreter). A forked child has only the forking thread. Fork is
unsafe (the child would hang or misbehave) when, in the forking process:
  * the platform's libraries do not survive fork (macOS: Objective-C runtime,
    Accelerate) or there is no fork (Windows);
  * Python threads other than the main one are running (their locks are held
    forever in the child);
  * an accelerator runtime is initialised (CUDA, XPU: the child is "in bad
    fork"), or a privateuse1 backend says so through ``_is_in_bad_fork()``;
  * torch's intra-op pool (OpenMP) has run a parallel region: the child's next
    parallel op waits forever for threads that did not survive fork (measured
    with the pinned torch 2.13.0+cpu);
  * a package its caller must import after the fork is imported already (the
    warm interpreter's ``torch``: each run puts its own core overlay of torch's
    Python files first on ``sys.path``, so torch imported before the fork would
    be the wrong one). Which packages is the caller's to say (``forbidden``).
The zygote prevents the last one by pinning torch to one intra-op thread until
it forks (``pin_torch_threads``; each child restores the setting), and checks
it in every child (``canary``) in case torch ran parallel work before the pin.
OpenBLAS's pool (numpy) survives fork and is not a hazard.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from dataclasses import dataclass
from typing import Optional, Sequence

CANARY_FAILED = 75  # a child found itself unable to run torch work: fork is unsafe here
CANARY_SECONDS = 10  # a parallel op that has not returned by then never will


@dataclass(frozen=True)
class Probe:
    platform: str
    has_fork: bool
    python_threads: tuple[str, ...]  # names of live threads other than the main one
    accelerators: tuple[str, ...]  # initialised runtimes that do not survive fork
    imported: tuple[str, ...] = ()  # modules of packages that must be imported after the fork


def hazards(p: Probe) -> list[str]:
    """Why forking this process is unsafe; empty when it is safe (pure)."""
    found = []
    if not p.has_fork:
        found.append(f"no fork() on {p.platform}")
    elif p.platform == "darwin":
        found.append("macOS system libraries are not fork-safe")
    if p.python_threads:
        found.append(f"Python threads running: {', '.join(p.python_threads)}")
    if p.accelerators:
        found.append(f"accelerator runtime initialised: {', '.join(p.accelerators)}")
    if p.imported:
        found.append(f"a preload imported {p.imported[0]}")
    return found


def probe(forbidden: Sequence[str] = ()) -> Probe:
    """This process, now; ``forbidden``: packages that must not be imported yet."""
    main = threading.main_thread()
    others = tuple(t.name for t in threading.enumerate() if t is not main and t.is_alive())
    return Probe(sys.platform, hasattr(os, "fork"), others, _initialised_accelerators(), _imported(forbidden))


def _imported(packages: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(m for m in sys.modules for p in packages if m == p or m.startswith(p + ".")))


def _initialised_accelerators() -> tuple[str, ...]:
    torch = sys.modules.get("torch")
    if torch is None:
        return ()
    found = []
    for name in ("cuda", "xpu"):
        module = getattr(torch, name, None)
        try:
            if module is not None and module.is_available() and module.is_initialized():
                found.append(name)
        except Exception:  # a half-built runtime: not initialised
            continue
    return tuple(found)


def current_hazards(forbidden: Sequence[str] = ()) -> list[str]:
    return hazards(probe(forbidden))


_PINNED: list[Optional[int]] = []  # the setting before the first pin (pinning twice keeps it)


def pin_torch_threads() -> Optional[int]:
    """Pin torch to one intra-op thread (its OpenMP pool never starts in the zygote).
    Returns the setting to restore in each child; None when torch is absent."""
    if _PINNED:
        return _PINNED[0]
    try:
        import torch
    except ImportError:
        return None
    _PINNED.append(torch.get_num_threads())
    torch.set_num_threads(1)
    return _PINNED[0]


def unpin_torch_threads() -> None:
    """Back to the setting before the pin (in a child, or when the zygote is done)."""
    if _PINNED and _PINNED[0] is not None:
        sys.modules["torch"].set_num_threads(_PINNED.pop())


def canary() -> Optional[str]:
    """In a fresh child: why it cannot run torch work, or None. A hung parallel op
    ends the child by SIGALRM (a Python handler could not run while C code waits)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    backend = torch._C._get_privateuse1_backend_name()
    module = getattr(torch, backend, None) if backend != "privateuse1" else None
    for name, mod in (("cuda", getattr(torch, "cuda", None)), (backend, module)):
        bad = getattr(mod, "_is_in_bad_fork", None)
        if callable(bad) and bad():
            return f"{name} is in bad fork"
    previous = signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(CANARY_SECONDS)
    try:
        torch.ones(1 << 17).add_(1).sum()  # large enough to run in parallel
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return None


def canary_failed(status: int) -> bool:
    """A child's exit status that says fork is unsafe in this zygote."""
    return status in (CANARY_FAILED, -signal.SIGALRM)
