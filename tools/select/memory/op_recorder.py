"""Running one test under the tracer: the aten ops it calls, the kernels a device must have.

A TorchDispatchMode records every aten op (ops inside ``assertEqual`` apart), following
composite ops into their CPU composite kernel down to the first op with a real kernel; a
TorchFunctionMode adds the ops a device lowers some Python-level calls to (lowerings.py). A
test that fails traced is re-run untraced before CPU is blamed (``run_traced``).
"""

from __future__ import annotations

import contextlib
import functools
import re
import signal
import unittest
from collections import defaultdict

from tools.select.memory.lowerings import DEVICE_LOWERINGS, cpu_only

MAX_FOLLOW = 8  # nesting of composite kernels followed while tracing


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _tensor_dtypes(values, into: set[str]) -> None:
    import torch

    for value in values:
        if isinstance(value, torch.Tensor):
            into.add(str(value.dtype).replace("torch.", ""))
        elif isinstance(value, (list, tuple)):
            _tensor_dtypes(value, into)


class _Recorder:
    """Collects aten ops; ops inside assertEqual go to a separate comparison set.

    ``ops`` are the outermost ops a test calls. ``kernel_ops`` are the ops a device must
    implement: composite ops are followed into their CPU composite kernel (with the mode
    still recording), down to the first op that has a real kernel; ``kernel_dtypes`` says
    which dtypes each of them saw (arguments and results), so a float64 reference tensor a
    float32 test creates is not missed.
    """

    def __init__(self, follow: bool = True):
        self.follow = follow
        self.ops: set[str] = set()
        self.kernel_ops: set[str] = set()
        self.kernel_dtypes: dict[str, set[str]] = defaultdict(set)
        self.compare_ops: set[str] = set()
        self.in_compare = 0
        self.stack: list[str] = []  # composite ops being followed (no re-entry: recursion)

    def record(self, func) -> tuple[bool, bool]:
        """Record one call: (follow it into its composite kernel, note its dtypes)."""
        name = func.name()
        if self.in_compare:
            self.compare_ops.add(name)
            return False, False
        if not self.stack:
            self.ops.add(name)
        if needs_backend_kernel(name):
            self.kernel_ops.add(name)
            return False, True
        if not self.follow:
            # untraceable composite: the device must take it as it is
            self.kernel_ops.add(name)
            return False, True
        return name not in self.stack and len(self.stack) < MAX_FOLLOW and has_composite_cpu_kernel(
            name
        ), False

    def lowering(self, name: str, args, kwargs) -> None:
        if self.in_compare or name not in DEVICE_LOWERINGS:
            return
        seen: set[str] = set()
        _tensor_dtypes(list(args) + list((kwargs or {}).values()), seen)
        for op in DEVICE_LOWERINGS[name]:
            self.kernel_ops.add(op)
            self.kernel_dtypes[op] |= seen

    def result(self) -> dict:
        kernels = self.kernel_ops - cpu_only(self.kernel_ops)
        return {
            "ops": sorted(self.ops),
            "kernel_ops": sorted(kernels),
            "kernel_dtypes": {op: sorted(d) for op, d in sorted(self.kernel_dtypes.items()) if op in kernels},
            "compare_ops": sorted(self.compare_ops - self.ops),
        }


def _make_modes(recorder):
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    cpu = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)

    class RecordingMode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            follow, note = recorder.record(func)
            if follow:
                recorder.stack.append(func.name())
                try:
                    with self:  # re-enter so the composite kernel's inner calls are recorded too
                        return func.redispatch(cpu, *args, **kwargs)
                finally:
                    recorder.stack.pop()
            out = func(*args, **kwargs)
            if note:
                _tensor_dtypes(
                    list(args) + list(kwargs.values()) + [out], recorder.kernel_dtypes[func.name()]
                )
            return out

    class LoweringMode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            recorder.lowering(getattr(func, "__name__", ""), args, kwargs)
            return func(*args, **(kwargs or {}))

    return LoweringMode(), RecordingMode()


@contextlib.contextmanager
def _compare_scope(recorder):
    from torch.testing._internal.common_utils import TestCase

    original = TestCase.assertEqual

    def assert_equal(self, *args, **kwargs):
        recorder.in_compare += 1
        try:
            return original(self, *args, **kwargs)
        finally:
            recorder.in_compare -= 1

    TestCase.assertEqual = assert_equal
    try:
        yield
    finally:
        TestCase.assertEqual = original


EXC_LINE = re.compile(r"^[\w.]*(Error|Exception|Timeout)\b")
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def _last_exception_line(text: str) -> str:
    text = ANSI.sub("", text)
    lines = [ln for ln in text.strip().splitlines() if EXC_LINE.match(ln)]
    return (lines[-1] if lines else (text.strip().splitlines() or [""])[-1])[:300]


def _status(result: unittest.TestResult) -> tuple[str, str]:
    if result.errors:
        text = result.errors[0][1]
        return ("timeout" if "_Timeout" in text else "error"), _last_exception_line(text)
    if result.failures:
        return "failed", _last_exception_line(result.failures[0][1])
    if result.skipped:
        return "skipped", ANSI.sub("", str(result.skipped[0][1]))[:300]
    if getattr(result, "expectedFailures", None):
        return "xfailed", "expected failure"
    return "passed", ""


def _has_kernel(name: str, key: str) -> bool:
    import torch

    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key(name, key)
    except RuntimeError:  # no such overload
        return False


@functools.lru_cache(maxsize=None)
def has_composite_cpu_kernel(name: str) -> bool:
    """A composite kernel serves CPU (so redispatching to CPU runs the decomposition)."""
    import torch

    try:
        return torch._C._dispatch_has_computed_kernel_for_dispatch_key(name, "CPU")
    except RuntimeError:
        return False


@functools.lru_cache(maxsize=None)
def needs_backend_kernel(name: str) -> bool:
    """True when a device must implement the op itself: it (or its .out form) has a CPU
    kernel. Composite ops decompose into other ops and are judged by those."""
    return _has_kernel(name, "CPU") or _has_kernel(name.split(".", 1)[0] + ".out", "CPU")


def _run(cls, method: str, timeout: float, recorder: _Recorder | None) -> tuple[str, str]:
    result = unittest.TestResult()
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        if recorder is None:
            unittest.TestSuite([cls(method)]).run(result)
        else:
            function_mode, dispatch_mode = _make_modes(recorder)
            with _compare_scope(recorder), function_mode, dispatch_mode:
                unittest.TestSuite([cls(method)]).run(result)
    except _Timeout:
        result.errors.append((None, "_Timeout"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return _status(result)


def run_traced(cls, method: str, timeout: float) -> dict:
    """Trace one test. A traced failure is checked untraced before CPU is blamed: if the test
    passes without the tracer, the tracer caused it; it is then traced again without following
    composite kernels, and only if that fails too is the unit a ``trace_error``."""
    recorder = _Recorder()
    status, error = _run(cls, method, timeout, recorder)
    note = ""
    if status in ("failed", "error"):
        plain, plain_error = _run(cls, method, timeout, None)
        if plain in ("failed", "error", "timeout"):
            note = "fails untraced too"
        else:
            shallow = _Recorder(follow=False)
            status2, error2 = _run(cls, method, timeout, shallow)
            note = f"the tracer broke it ({error}); {plain} untraced"
            if status2 == plain:
                recorder, status, error = shallow, plain, plain_error
                note += "; traced again without following composite kernels"
            else:
                status = "trace_error"
    return {"status": status, "error": error, "note": note[:400], **recorder.result()}
