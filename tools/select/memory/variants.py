"""What a test file's device-generic tests become, and which of them to trace at which dtype.

The trace worker (trace_worker.py) enumerates the CPU classes' generated tests as units
(generic class, base test, OpInfo/ModuleInfo variant) with their dtypes; a probe
privateuse1 device type (nothing runs on it) gives the variants and dtypes the device will
generate, which may differ from CPU's (``dtypesIfCPU``, ``only_for``). ``plan`` decides the
units' cache keys and the (unit, dtype) pairs still to trace.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import re
import unittest
from collections import defaultdict

PREFERRED_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32", "bool")
PROBE_DEVICE = "privateuse1"


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


def _opinfo_hash(hashes: dict, variant: str) -> str:
    """Exact OpInfo entry, else its generated family ("polygamma.*"), else unknown ('')."""
    return hashes.get(variant) or hashes.get(variant.split(".", 1)[0] + ".*", "")


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
