"""The torch glue of the native adapter: feature detection, DecorateInfos, set_test_configs.

``set_test_configs`` replaces all three settings on each call, and torch reads
``test_exclusions`` while ``instantiate_device_type_tests`` runs, so the settings are
(re)applied right before each device-generic class is instantiated, with that class's
exclusions (compile.excluded). Counters record, per rule, what the core applied and
what our patches had to do after all (a variant name, a plain test), so the report
says what really happened.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import unittest
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from testing.plugin.native.compile import NativePlan, dtypes_excluded, excluded

API = ("set_test_configs", "bypass_device_restrictions", "_apply_op_allowlist", "_apply_op_overrides")


def missing_api(cdt) -> Optional[str]:
    """What of the native API this core lacks (None: all of it is there)."""
    base = getattr(cdt, "DeviceTypeTestBase", None)
    lacking = [name for name in API if base is None or not hasattr(base, name)]
    return ", ".join(lacking) if lacking else None


def probe_dtype_exclusions(cdt) -> bool:
    """Does this core honour pytorch main's dtype-level test_exclusions
    ({"Class": {"test": {"dtypes": [...]}}})? Asked by behaviour, not by version: a throwaway
    class with a float32 and a float64 variant, float32 excluded, instantiated for CPU into a
    scratch scope. 2.13.0 reads the dict's keys as whole tests (no variant at all): False.
    Run at configuration, before our patches are installed, and only for configs with such entries."""
    import torch

    base = cdt.CPUTestBase
    saved = {k: base.__dict__.get(k) for k in ("op_overrides", "op_allowlist", "test_exclusions")}
    probe = type("OotDtypeExclusionProbe", (__import__("unittest").TestCase,), {})
    probe.test_probe = cdt.dtypes(torch.float32, torch.float64)(lambda self, device, dtype: None)
    scope = {probe.__name__: probe}
    try:
        base.set_test_configs(test_exclusions={probe.__name__: {"test_probe": {"dtypes": [torch.float32]}}})
        cdt.instantiate_device_type_tests(probe, scope, only_for=("cpu",))
        made = {n for c in scope.values() for n in vars(c) if n.startswith("test_probe")}
    except Exception:  # any other reading of the dict: not the form we mean
        return False
    finally:
        for key, value in saved.items():
            setattr(base, key, value)
    return made == {"test_probe_cpu_float64"}


def _tuple_dtypes(generic_cls, test: str) -> bool:
    """@dtypes with tuples: main excludes a tuple if any member is listed, our entries if all are."""
    fn = generic_cls.__dict__.get(test)
    return any(isinstance(d, tuple) for ds in (getattr(fn, "dtypes", None) or {}).values() for d in ds)


def device_base(cdt, device_type: str):
    """The device test base torch instantiates for this device."""
    for base in (cdt.CPUTestBase, getattr(cdt, "CUDATestBase", None), cdt.PrivateUse1TestBase):
        if base is not None and base.device_type in (device_type, "privateuse1"):
            if base is cdt.PrivateUse1TestBase or base.device_type == device_type:
                return base
    return cdt.PrivateUse1TestBase


def op_overrides(native: NativePlan) -> dict[str, list]:
    """{full_name: [DecorateInfo, ...]}: tolerances and strict xfails."""
    import torch
    from torch.testing._internal.common_device_type import tol, toleranceOverride
    from torch.testing._internal.opinfo.core import DecorateInfo

    out: dict[str, list] = {}
    for op, per in native.tolerances.items():
        d = {
            getattr(torch, n): tol(atol=a, rtol=r)
            for n, a, r in per
            if isinstance(getattr(torch, n, None), torch.dtype)
        }
        if d:
            out.setdefault(op, []).append(DecorateInfo(toleranceOverride(d)))
    for x in native.xfails:
        dtypes = tuple(getattr(torch, n) for n in x.dtypes) if x.dtypes else None
        out.setdefault(x.op, []).append(DecorateInfo(config_expected_failure, x.cls, x.test, dtypes=dtypes))
    return out


OURS = "__oot_config_expected_failure__"


def config_expected_failure(fn):
    """unittest.expectedFailure, remembered as the config's: layer() may cancel only these.
    Upstream's own (OpInfo/ModuleInfo decorators, applied before ours, or the method's own
    decorator, copied onto the generated method) are set already and stay upstream's."""
    if not fn.__dict__.get("__unittest_expecting_failure__", False):
        setattr(fn, OURS, True)
    return unittest.expectedFailure(fn)


@dataclass
class NativeRuntime:
    """The native way of testing/plugin/adapters.py's Generation (the seam the patches ask)."""

    uses_torch_api = True  # not a field: the Generation protocol's flag

    native: NativePlan
    device_type: str
    base: Any = None
    overrides: dict = field(default_factory=dict)
    exclusions: dict = field(default_factory=dict)  # generic class -> what was excluded
    # rule (file:line) -> Counter(native=..., patched=...): variants each way at run time
    applied: dict[str, Counter] = field(default_factory=dict)
    report: Any = None  # setup.AdapterReport: its choice is corrected if the core lacks the API
    _allow: Optional[frozenset] = None

    def install(self, cdt, restore: list[Callable[[], None]]) -> bool:
        """False: this core lacks the API after all (the report says so); the patches do everything."""
        missing = missing_api(cdt)
        if missing:
            if self.report is not None:
                import torch

                from testing.plugin.native.choice import choose

                self.report.choice = choose(self.report.choice.requested, missing, torch.__version__)
            return False
        allow = self.native.op_allowlist
        self._allow = frozenset(allow) if allow is not None else None
        self.base = device_base(cdt, self.device_type)
        self.overrides = op_overrides(self.native)
        saved = {k: self.base.__dict__.get(k) for k in ("op_overrides", "op_allowlist", "test_exclusions")}
        bypass = self.base.__dict__.get("bypass_device_restrictions")
        self.configure({})
        if self.native.bypass:
            self.base.bypass_device_restrictions = True
        restore.append(lambda: self._restore(saved, bypass))
        return True

    def _restore(self, saved: dict, bypass) -> None:
        for key, value in saved.items():
            setattr(self.base, key, value)
        if bypass is None:
            self.base.__dict__.get("bypass_device_restrictions") is not None and delattr(
                self.base, "bypass_device_restrictions"
            )
        else:
            self.base.bypass_device_restrictions = bypass

    def configure(self, test_exclusions: dict) -> None:
        allow = sorted(self._allow) if self._allow is not None else None
        self.base.set_test_configs(
            op_allowlist=allow, op_overrides=self.overrides, test_exclusions=test_exclusions
        )

    def before_class(self, fp, generic_cls) -> bool:
        """Right before torch instantiates this class: its exclusions, the rest unchanged."""
        cls = generic_cls.__name__
        tests = [n for n in generic_cls.__dict__ if n.startswith("test")]
        out = excluded(fp, cls, tests) if fp is not None else []
        by_dtype = self._by_dtype(fp, generic_cls, tests, out)
        value = by_dtype if by_dtype and not out else out
        self.exclusions[cls] = value
        self.configure({cls: value} if value else {})
        return True  # the excluded tests never reach instantiate_test

    def _by_dtype(self, fp, generic_cls, tests: list, whole) -> dict:
        """{test: {"dtypes": [...]}} where the core's dtype-level form says our decision; each
        rule counted native or patched (a tuple-dtype test, a class with whole-test exclusions)."""
        import torch

        if fp is None or whole == "*":
            return {}
        out = {}
        for test in sorted(set(tests) - set(whole)):
            dtypes, rules = dtypes_excluded(fp, generic_cls.__name__, test)
            if not dtypes:
                continue
            native = self.native.dtype_form and not whole and not _tuple_dtypes(generic_cls, test)
            for rule in rules:
                self.count(rule, "native" if native else "patched")
            if native:
                out[test] = {"dtypes": [getattr(torch, d) for d in dtypes if hasattr(torch, d)]}
        return out

    def leave_out_class(self, scope: dict, generic_cls) -> bool:
        """A whole class out of the run's scope (global.scope): test_exclusions {name: "*"};
        torch still instantiates the class, with none of its tests."""
        name = generic_cls.__name__
        self.exclusions[name] = "*"
        self.configure({name: "*"})
        return True

    def allowed(self, op) -> bool:
        return self._allow is None or op.full_name in self._allow

    def admit(self, ops) -> None:
        """Model-op cases are OpInfos of our own, named by no config's supported ops: allow them."""
        names = {op.full_name for op in ops}
        if self._allow is not None and not names <= self._allow:
            self._allow |= names
            self.configure({})

    def count(self, rule: Optional[str], way: str) -> None:
        if rule:
            self.applied.setdefault(rule, Counter())[way] += 1

    def layer(self, fn, d, v):
        """Our patches on top of what torch applied to one generated method:
        -> (decision without what torch already does, whether torch made it an expected failure).

        expectedFailure where the config wants xfail_strict: native (no pytest mark); where a
        more specific entry wants another bucket, it is cancelled (patched). An expected failure
        upstream declared itself is never touched: it holds as under the patch adapter. Precision torch's
        toleranceOverride already sets for a dtype is left to it."""
        import dataclasses

        from testing.config.modes import Mode

        rule = str(d.rule_loc) if d.rule_loc else None
        expecting = bool(fn.__dict__.get("__unittest_expecting_failure__", False))
        ours = expecting and bool(fn.__dict__.get(OURS, False))
        native_xfail = False
        if d.mode == Mode.xfail_strict:
            native_xfail = ours
            self.count(rule, "native" if ours else "patched")
        elif ours:
            fn.__unittest_expecting_failure__ = False  # a more specific entry decides
            self.count(rule, "patched")
        tols = fn.__dict__.get("tolerance_overrides") or {}
        covered = {str(k).removeprefix("torch.") for k in tols}
        if covered and d.precision:
            d = dataclasses.replace(d, precision=tuple(p for p in d.precision if p[0] not in covered))
        return d, native_xfail
