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

import hashlib
import importlib.util
import json
import os
import sys
import traceback

from tools.select.memory.op_recorder import ANSI, run_traced
from tools.select.memory.variants import DeviceProbe, enumerate_variants, plan


def emit(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


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
    probe = DeviceProbe()
    try:
        import torch

        probe.install()
        module = load_module(spec["path"], spec.get("root", "."))
    except BaseException as exc:  # any import failure is data for the memory, not a crash
        emit({"event": "import_error", "error": ANSI.sub("", f"{type(exc).__name__}: {exc}")[:500]})
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
