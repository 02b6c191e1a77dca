"""Subprocess that instantiates one test file on CPU and traces its tests' aten ops.

Run as ``python -m tools.select.memory.trace_worker`` with a JSON spec on stdin; it prints one JSON
object per line on stdout. It is a separate process so that a test that crashes or hangs
cannot take the memory build down, and so device-selection env vars stay local to it.

Besides the CPU classes, every device-generic class is also instantiated for a *probe*
privateuse1 device type (nothing runs on it): that gives the variants and dtypes the device
will generate, which may differ from CPU's (``dtypesIfCPU``, ``only_for``).

Spec (stdin): path, root, test_hashes {"Class::test": hash}, opinfo_hashes, known_keys,
skip_keys, timeout, shard [i, n], untraced {"Class::test": why} (out of scope: listed, not
run), trace_dtypes [dtype] | null (trace each unit at every device dtype in this set; null:
one representative dtype), device_ops {aten name: [dtype]} | null (op variants are traced at
the dtypes listed for their aten name; units of ops not listed: one representative dtype).

Protocol (stdout, one JSON per line):
  {"event": "variants", "items": [{cls, test, variant, aten, dtypes, device, restrictions, key}],
   "todo": N, "torch": V}
  {"event": "start", "key": K}      K = "<unit key>|<dtype>"
  {"event": "done", "key": K, "status": passed|failed|skipped|xfailed|error|timeout|trace_error,
   "dtype": str|null, "ops": [...], "kernel_ops": [...], "kernel_dtypes": {op: [dtype]},
   "compare_ops": [...], "error": str, "note": str}
  {"event": "import_error", "error": str}
"""

from __future__ import annotations

import contextlib
import copy
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

from tools.select.memory.lowerings import DEVICE_LOWERINGS, cpu_only

PREFERRED_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32", "bool")
MAX_FOLLOW = 8  # nesting of composite kernels followed while tracing
PROBE_DEVICE = "privateuse1"


def emit(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def trace_key(test_hash: str, variant: str, opinfo_hash: str, torch_version: str) -> str:
    return hashlib.sha256("\0".join([test_hash, variant, opinfo_hash, torch_version]).encode()).hexdigest()


def dtype_trace_key(unit_key: str, dtype: str | None) -> str:
    return f"{unit_key}|{dtype or ''}"


def _dtype_members(dtype) -> list[str]:
    if dtype is None:
        return []
    if isinstance(dtype, (list, tuple)):
        return [m for d in dtype for m in _dtype_members(d)]
    return [str(dtype).replace("torch.", "")]


def _dtype_name(dtype) -> str | None:
    return "_".join(_dtype_members(dtype)) if dtype is not None else None


def _variant_of(kwargs: dict) -> tuple[str, str | None]:
    """(OpInfo full_name / ModuleInfo name / '', OpInfo aten_name)."""
    if "op" in kwargs:
        return kwargs["op"].full_name, kwargs["op"].aten_name
    if "module_info" in kwargs:
        return kwargs["module_info"].name, None
    return "", None


def _kwargs_of(fn) -> dict:
    return (
        fn.__defaults__[0]
        if getattr(fn, "__defaults__", None) and isinstance(fn.__defaults__[0], dict)
        else {}
    )


def enumerate_variants(module, generic_classes: set[str]):
    """(generic class, base test, variant) -> {dtype name: (CPU class, generated method name)}."""
    groups: dict[tuple[str, str, str], dict[str | None, tuple[str, str]]] = defaultdict(dict)
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
            kwargs = _kwargs_of(fn)
            base = getattr(fn, "__name__", name)
            groups[(generic, base, _variant_of(kwargs)[0])][_dtype_name(kwargs.get("dtype"))] = (attr, name)
    return groups


# ------------------------------------------------------------------ the device probe


class DeviceProbe:
    """Records, per generic class, what a privateuse1 device would generate (names, dtypes)
    and the class-level only_for/except_for; installed before the test module is imported."""

    def __init__(self) -> None:
        # (generic, base, variant) -> {"aten": ..., "device": [[method, [dtypes]]], }
        self.units: dict[tuple[str, str, str], dict] = {}
        self.restrictions: dict[str, dict] = {}

    def install(self) -> None:
        import torch.testing._internal.common_device_type as cdt

        original = cdt.instantiate_device_type_tests
        probe = self

        @functools.wraps(original)
        def instantiate_device_type_tests(generic_test_class, scope, except_for=None, only_for=None, **kw):
            probe.observe(generic_test_class, except_for, only_for)
            return original(generic_test_class, scope, except_for=except_for, only_for=only_for, **kw)

        cdt.instantiate_device_type_tests = instantiate_device_type_tests

    def observe(self, generic, except_for, only_for) -> None:
        as_list = lambda v: [v] if isinstance(v, str) else list(v or [])  # noqa: E731
        self.restrictions[generic.__name__] = {
            "only_for": as_list(only_for),
            "except_for": as_list(except_for),
        }
        try:
            self._instantiate(generic)
        except Exception:  # a probe failure only costs the device view of this class
            pass

    def _instantiate(self, generic) -> None:
        import torch.testing._internal.common_device_type as cdt

        class _Probe(cdt.DeviceTypeTestBase):
            device_type = PROBE_DEVICE

        cls = type(generic.__name__ + PROBE_DEVICE.upper(), (_Probe, generic), {})
        for name in [x for x in list(generic.__dict__) if x.startswith("test")]:
            before = set(cls.__dict__)
            try:
                cls.instantiate_test(name, copy.deepcopy(getattr(generic, name)), generic_cls=generic)
            except Exception:
                continue
            for attr in sorted(set(cls.__dict__) - before):
                kwargs = _kwargs_of(cls.__dict__[attr])
                variant, aten = _variant_of(kwargs)
                unit = self.units.setdefault((generic.__name__, name, variant), {"aten": aten, "device": []})
                unit["device"].append([_name_template(attr), _dtype_members(kwargs.get("dtype"))])


def _name_template(method: str) -> str:
    """test_x_add_privateuseone_float32 -> test_x_add_{device}_float32 (the bucket fills in the name)."""
    return re.sub(r"_privateuse(one|1)(?=_|$)", "_{device}", method, count=1)


def representative(by_dtype, allowed: set[str] | None = None) -> str | None:
    names = [
        d for d in by_dtype if allowed is None or (d is not None and set(d.split("_")) <= allowed)
    ] or list(by_dtype)
    for preferred in PREFERRED_DTYPES:
        if preferred in names:
            return preferred
    return sorted(names, key=lambda d: (d is None, str(d)))[0]


def dtypes_to_trace(
    cpu_dtypes, device_dtypes: list[list[str]], trace_dtypes: set[str] | None, device_runs_op: bool
) -> list[str | None]:
    """Every dtype the unit will run at on the device (the device's own list, limited to what the
    device supports), or one representative when that is unknown or empty."""
    if trace_dtypes is not None and device_runs_op:
        wanted = {"_".join(m) for _, m in device_dtypes if m and set(m) <= trace_dtypes}
        chosen = [d for d in cpu_dtypes if d in wanted]
        if chosen:
            return sorted(
                chosen, key=lambda d: (PREFERRED_DTYPES.index(d) if d in PREFERRED_DTYPES else 99, d)
            )
    return [representative(cpu_dtypes, trace_dtypes)]


# ------------------------------------------------------------------ recording


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


_EXC_LINE = re.compile(r"^[\w.]*(Error|Exception|Timeout)\b")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def _last_exception_line(text: str) -> str:
    text = _ANSI.sub("", text)
    lines = [ln for ln in text.strip().splitlines() if _EXC_LINE.match(ln)]
    return (lines[-1] if lines else (text.strip().splitlines() or [""])[-1])[:300]


def _status(result: unittest.TestResult) -> tuple[str, str]:
    if result.errors:
        text = result.errors[0][1]
        return ("timeout" if "_Timeout" in text else "error"), _last_exception_line(text)
    if result.failures:
        return "failed", _last_exception_line(result.failures[0][1])
    if result.skipped:
        return "skipped", _ANSI.sub("", str(result.skipped[0][1]))[:300]
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


def _aten_key(aten: str | None, variant: str) -> str:
    return (aten or variant).removeprefix("aten::").split(".", 1)[0]


def plan(spec: dict, groups: dict, probe: DeviceProbe, torch_version: str) -> tuple[list[dict], list[tuple]]:
    """The file's units (items) and what to trace: [(trace key, dtype, (class, method))]."""
    test_hashes: dict = spec["test_hashes"]  # "Class::test" -> content hash
    opinfo_hashes: dict = spec.get("opinfo_hashes", {})
    untraced: dict = spec.get("untraced") or {}
    known = set(spec.get("known_keys", [])) | set(spec.get("skip_keys", []))
    trace_dtypes = set(spec["trace_dtypes"]) if spec.get("trace_dtypes") is not None else None
    device_ops = spec.get("device_ops")  # aten name -> dtypes the device table lists for it
    items, todo = [], []
    for (generic, base, variant), by_dtype in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        test_hash = test_hashes.get(f"{generic}::{base}")
        if test_hash is None:
            continue
        key = trace_key(test_hash, variant, _opinfo_hash(opinfo_hashes, variant), torch_version)
        device = probe.units.get((generic, base, variant), {"aten": None, "device": []})
        items.append(
            {
                "cls": generic,
                "test": base,
                "variant": variant,
                "aten": device["aten"],
                "dtypes": sorted(d for d in by_dtype if d is not None),
                "device": device["device"],
                "restrictions": probe.restrictions.get(generic, {}),
                "key": key,
            }
        )
        if f"{generic}::{base}" in untraced:
            continue
        # module variants and units the probe missed (aten None) are traced at every device dtype;
        # an op variant at the dtypes the table lists for its aten name (what the plugin generates)
        wanted = trace_dtypes
        if device_ops is not None and device["aten"] is not None:
            wanted = set(device_ops.get(_aten_key(device["aten"], variant), ())) & (trace_dtypes or set())
        runs_op = device_ops is None or device["aten"] is None or bool(wanted)
        for dtype in dtypes_to_trace(list(by_dtype), device["device"], wanted, runs_op):
            tkey = dtype_trace_key(key, dtype)
            if tkey not in known:
                todo.append((tkey, dtype, by_dtype[dtype]))
    return items, todo


def main() -> int:
    spec = json.load(sys.stdin)
    os.environ["PYTORCH_TESTING_DEVICE_ONLY_FOR"] = "cpu"
    os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
    probe = DeviceProbe()
    try:
        import torch

        probe.install()
        module = load_module(spec["path"], spec.get("root", "."))
    except BaseException as exc:  # any import failure is data for the memory, not a crash
        emit({"event": "import_error", "error": _ANSI.sub("", f"{type(exc).__name__}: {exc}")[:500]})
        return 0
    groups = enumerate_variants(module, {k.split("::")[0] for k in spec["test_hashes"]})
    items, todo = plan(spec, groups, probe, torch.__version__)
    shard, shards = spec.get("shard", [0, 1])
    emit({"event": "variants", "items": items, "todo": len(todo), "torch": torch.__version__})
    for key, dtype, (cls_name, method) in [item for i, item in enumerate(todo) if i % shards == shard]:
        emit({"event": "start", "key": key})
        try:
            outcome = run_traced(getattr(module, cls_name), method, spec.get("timeout", 60.0))
        except BaseException as exc:
            outcome = {
                "status": "error",
                "error": "".join(traceback.format_exception_only(exc)).strip()[:300],
                "ops": [],
                "kernel_ops": [],
                "kernel_dtypes": {},
                "compare_ops": [],
                "note": "",
            }
        emit({"event": "done", "key": key, "dtype": dtype, **outcome})
    return 0


if __name__ == "__main__":
    sys.exit(main())
