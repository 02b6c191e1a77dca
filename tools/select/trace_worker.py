"""Subprocess that instantiates one test file on CPU and traces its tests' aten ops.

Run as ``python -m tools.select.trace_worker`` with a JSON spec on stdin; it prints one JSON
object per line on stdout. It is a separate process so that a test that crashes or hangs
cannot take the memory build down, and so device-selection env vars stay local to it.

Protocol (stdout, one JSON per line):
  {"event": "variants", "items": [{cls, test, variant, dtypes, key, traced}]}
  {"event": "start", "key": K}
  {"event": "done", "key": K, "status": passed|failed|skipped|error|timeout,
   "ops": [...], "compare_ops": [...], "dtype": str|null, "error": str}
  {"event": "import_error", "error": str}
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import os
import re
import signal
import sys
import traceback
import unittest
from collections import defaultdict

PREFERRED_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32", "bool")
MAX_FOLLOW = 8    # nesting of composite kernels followed while tracing


def emit(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def trace_key(test_hash: str, variant: str, opinfo_hash: str, torch_version: str) -> str:
    return hashlib.sha256("\0".join([test_hash, variant, opinfo_hash, torch_version]).encode()).hexdigest()


def _dtype_name(dtype) -> str | None:
    if dtype is None:
        return None
    if isinstance(dtype, (list, tuple)):
        return "_".join(_dtype_name(d) for d in dtype)
    return str(dtype).replace("torch.", "")


def _variant_of(kwargs: dict) -> str:
    if "op" in kwargs:
        return kwargs["op"].full_name
    if "module_info" in kwargs:
        return kwargs["module_info"].name
    return ""


def enumerate_variants(module, generic_classes: set[str]):
    """(generic class, base test, variant) -> {dtype name: generated method name}."""
    groups: dict[tuple[str, str, str], dict[str | None, str]] = defaultdict(dict)
    for attr in dir(module):
        cls = getattr(module, attr)
        if not (isinstance(cls, type) and issubclass(cls, unittest.TestCase) and attr.endswith("CPU")):
            continue
        generic = attr[: -len("CPU")]
        if generic not in generic_classes:
            continue
        for name in dir(cls):
            fn = getattr(cls, name, None)
            if not (name.startswith("test") and callable(fn)):
                continue
            kwargs = fn.__defaults__[0] if fn.__defaults__ and isinstance(fn.__defaults__[0], dict) else {}
            base = getattr(fn, "__name__", name)
            groups[(generic, base, _variant_of(kwargs))][_dtype_name(kwargs.get("dtype"))] = (attr, name)
    return groups


def representative(by_dtype: dict) -> str | None:
    for preferred in PREFERRED_DTYPES:
        if preferred in by_dtype:
            return preferred
    return sorted(by_dtype, key=lambda d: (d is None, str(d)))[0]


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


class _Recorder:
    """Collects aten ops; ops inside assertEqual go to a separate comparison set.

    ``ops`` are the outermost ops a test calls. ``kernel_ops`` are the ops a device must
    implement: composite ops are followed into their CPU composite kernel (with the mode
    still recording), down to the first op that has a real kernel.
    """

    def __init__(self):
        self.ops: set[str] = set()
        self.kernel_ops: set[str] = set()
        self.compare_ops: set[str] = set()
        self.in_compare = 0
        self.stack: list[str] = []      # composite ops being followed (no re-entry: recursion)

    def record(self, func) -> bool:
        """Record one call; True when it must be followed into its composite kernel."""
        name = func.name()
        if self.in_compare:
            self.compare_ops.add(name)
            return False
        if not self.stack:
            self.ops.add(name)
        if needs_backend_kernel(name):
            self.kernel_ops.add(name)
            return False
        return name not in self.stack and len(self.stack) < MAX_FOLLOW and has_composite_cpu_kernel(name)


def _make_mode(recorder):
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    cpu = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)

    class RecordingMode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if recorder.record(func):
                recorder.stack.append(func.name())
                try:
                    with self:  # re-enter so the composite kernel's inner calls are recorded too
                        return func.redispatch(cpu, *args, **kwargs)
                finally:
                    recorder.stack.pop()
            return func(*args, **kwargs)

    return RecordingMode()


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


_EXC_LINE = re.compile(r"^[\w.]*(Error|Exception|Timeout)\b")


def _last_exception_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if _EXC_LINE.match(ln)]
    return (lines[-1] if lines else text.strip().splitlines()[-1])[:300]


def _status(result: unittest.TestResult) -> tuple[str, str]:
    if result.errors:
        text = result.errors[0][1]
        return ("timeout" if "_Timeout" in text else "error"), _last_exception_line(text)
    if result.failures:
        return "failed", _last_exception_line(result.failures[0][1])
    if result.skipped:
        return "skipped", str(result.skipped[0][1])[:300]
    if getattr(result, "expectedFailures", None):
        return "xfailed", "expected failure"
    return "passed", ""


def _has_kernel(name: str, key: str) -> bool:
    import torch
    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key(name, key)
    except RuntimeError:  # no such overload
        return False


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


def run_traced(cls, method: str, timeout: float) -> dict:
    recorder = _Recorder()
    result = unittest.TestResult()
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with _compare_scope(recorder), _make_mode(recorder):
            unittest.TestSuite([cls(method)]).run(result)
    except _Timeout:
        result.errors.append((None, "_Timeout"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    status, error = _status(result)
    return {"status": status, "error": error, "ops": sorted(recorder.ops),
            "kernel_ops": sorted(recorder.kernel_ops),
            "compare_ops": sorted(recorder.compare_ops - recorder.ops)}


def _opinfo_hash(hashes: dict, variant: str) -> str:
    """Exact OpInfo entry, else its generated family ("polygamma.*"), else unknown ('')."""
    return hashes.get(variant) or hashes.get(variant.split(".", 1)[0] + ".*", "")


def load_module(path: str, root: str):
    sys.path[:0] = [root, os.path.dirname(path)]
    name = "_traced_" + hashlib.sha1(path.encode()).hexdigest()[:10]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    spec = json.load(sys.stdin)
    os.environ["PYTORCH_TESTING_DEVICE_ONLY_FOR"] = "cpu"
    os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
    try:
        import torch
        module = load_module(spec["path"], spec.get("root", "."))
    except BaseException as exc:  # any import failure is data for the memory, not a crash
        emit({"event": "import_error", "error": f"{type(exc).__name__}: {exc}"[:500]})
        return 0
    torch_version = torch.__version__
    test_hashes: dict = spec["test_hashes"]          # "Class::test" -> content hash
    opinfo_hashes: dict = spec.get("opinfo_hashes", {})
    known = set(spec.get("known_keys", []))
    skip_keys = set(spec.get("skip_keys", []))
    groups = enumerate_variants(module, {k.split("::")[0] for k in test_hashes})
    items, todo = [], []
    for (generic, base, variant), by_dtype in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        test_hash = test_hashes.get(f"{generic}::{base}")
        if test_hash is None:
            continue
        key = trace_key(test_hash, variant, _opinfo_hash(opinfo_hashes, variant), torch_version)
        dtypes = sorted(d for d in by_dtype if d is not None)
        items.append({"cls": generic, "test": base, "variant": variant, "dtypes": dtypes, "key": key})
        if key not in known and key not in skip_keys:
            dtype = representative(by_dtype)
            todo.append((key, dtype, by_dtype[dtype]))
    shard, shards = spec.get("shard", [0, 1])
    todo = [item for i, item in enumerate(todo) if i % shards == shard]
    emit({"event": "variants", "items": items, "torch": torch_version})
    for key, dtype, (cls_name, method) in todo:
        emit({"event": "start", "key": key})
        try:
            outcome = run_traced(getattr(module, cls_name), method, spec.get("timeout", 60.0))
        except BaseException as exc:
            outcome = {"status": "error", "error": "".join(traceback.format_exception_only(exc)).strip()[:300],
                       "ops": [], "kernel_ops": [], "compare_ops": []}
        emit({"event": "done", "key": key, "dtype": dtype, **outcome})
    return 0


if __name__ == "__main__":
    sys.exit(main())
