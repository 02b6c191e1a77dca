"""The torch glue: adapt device-generic test generation without editing test files.

Installed once (pytest_configure), before any test module is imported:

* ``DeviceTypeTestBase.instantiate_test`` — per generic test: skip it whole
  when no entry can run it; narrow the ``@ops`` op_list / ``@modules``
  module list before generation (so e.g. ``-m op__add`` never instantiates
  other ops); filter each (op|module, dtype) yield; then decorate every
  generated method with its marks and bucket (selection.decide).
* ``DeviceTypeTestBase._get_dtypes`` — ``@dtypes``/``dtypesIf*`` lists are
  filtered (and widened by ``edits.dtypes.include``) in the lookup itself.
* ``instantiate_device_type_tests`` — only_for/except_for dropped for files
  whose config says ``relax_only_for``; the device classes upstream would
  instantiate here but this run does not (LAZY, META, other devices) are
  recorded, so the run can say what it left out.
* ``@ops`` dtypes are widened the way Torch Spyre does: dtypes a config lists
  for an op (``supported_ops[].dtypes``) or a test (``edits.dtypes.include``)
  that the OpInfo lacks are added to a per-test copy of the OpInfo.

Where the native adapter runs, torch's own test-reuse API says part of the config first:
``Adapter.way`` (adapters.py, the one seam between the two adapters) tells these patches what
it already did.

The device name comes from the backend (privateuse1 name) or the config.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
import sys
import types
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

from testing.base.errors import Loc
from testing.config.modes import Mode
from testing.plugin import harness
from testing.plugin.adapters import PATCHES, Generation
from testing.plugin.plan import FilePlan, Plan
from testing.plugin.selection import (
    Decision,
    MarkFilter,
    Support,
    Variant,
    decide,
    marks_for,
    module_allowed,
    op_allowed,
    should_instantiate,
)
from testing.plugin.wrapping import DECISION_ATTR, VARIANT_ATTR, wrap_generated  # noqa: F401 (read from here)


@dataclass
class Adapter:
    plan: Plan
    support: Support
    device_type: str
    mark_filter: MarkFilter
    only: Optional[Any] = None  # testing.changes.only.Only: the change-aware selection (--oot-only)
    seen: dict[str, set[tuple[str, str]]] = field(default_factory=lambda: defaultdict(set))
    # file -> device classes upstream instantiates here that this run does not (e.g. TestViewOpsLAZY)
    left_out_classes: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    _restore: list[Callable[[], None]] = field(default_factory=list)
    _current: Optional[tuple[FilePlan, str, str]] = None
    _file: str = ""  # the file whose tests are being generated (for --oot-only)
    # How much torch's own test-reuse API says (adapters.py, the seam between the two
    # adapters): Patches (nothing) or the native adapter's NativeRuntime.
    way: Generation = PATCHES
    # global.scope against the checkout (testing/config/hwclass.ScopeReport); None: no scope asked
    hw: Optional[Any] = None
    # the harness install() adapted (harness.py); None until torch's device-type module loads
    harness: Optional[Any] = None

    # ------------------------------------------------------------ install

    def install(self) -> None:
        import torch
        import torch.testing._internal.common_device_type as cdt

        previous = os.environ.get("PYTORCH_TESTING_DEVICE_ONLY_FOR")
        os.environ["PYTORCH_TESTING_DEVICE_ONLY_FOR"] = self.device_type
        self._restore.append(lambda: _restore_env("PYTORCH_TESTING_DEVICE_ONLY_FOR", previous))
        self.harness = harness.report_of(cdt, torch.__version__, getattr(torch.version, "git_version", None))
        if self.device_type not in ("cpu", "cuda", "meta", "mps", "xpu", "hpu") and hasattr(
            cdt, "PrivateUse1TestBase"
        ):
            # Pin the privateuse1 class suffix now, so node ids do not flip
            # from <Cls>PRIVATEUSE1 to <Cls><DEVICE> between files (or harnesses).
            cdt.PrivateUse1TestBase.setUpClass()
        if self.harness.missing:
            # a harness of another shape: no half-patched generation; torch's own settings only
            self.harness.native = self.way.install(cdt, self._restore) and self.way.uses_torch_api
            return
        base = cdt.DeviceTypeTestBase
        orig_inst = base.__dict__["instantiate_test"]
        orig_dtypes = base.__dict__["_get_dtypes"]
        orig_idtt = cdt.instantiate_device_type_tests
        adapter = self

        def instantiate_test(cls, name, test, *, generic_cls=None):
            return adapter._instantiate(orig_inst.__func__, cls, name, test, generic_cls)

        def _get_dtypes(cls, test):
            return adapter._filter_dtypes(orig_dtypes.__func__(cls, test), test)

        @functools.wraps(orig_idtt)
        def instantiate_device_type_tests(generic_test_class, scope, except_for=None, only_for=None, **kw):
            fp = adapter._file_plan_of(generic_test_class)
            upstream = (except_for, only_for)
            if fp is not None and fp.relax_only_for:
                except_for = only_for = None
            adapter._record_left_out(cdt, generic_test_class, upstream, (except_for, only_for), kw)
            file = adapter.file_of(generic_test_class)
            if adapter.out_of_scope(file, generic_test_class.__name__):
                adapter.seen[file].update(_tests_of(generic_test_class))  # they exist, out of scope
                if not adapter.way.leave_out_class(scope, generic_test_class):
                    return None
                return orig_idtt(generic_test_class, scope, except_for=except_for, only_for=only_for, **kw)
            if adapter.way.before_class(adapter.plan_for_file(file), generic_test_class):
                # tests torch's test_exclusions keeps out never reach instantiate_test: seen here
                adapter.seen[file].update(_tests_of(generic_test_class))
            return orig_idtt(generic_test_class, scope, except_for=except_for, only_for=only_for, **kw)

        base.instantiate_test = classmethod(instantiate_test)
        base._get_dtypes = classmethod(_get_dtypes)
        cdt.instantiate_device_type_tests = instantiate_device_type_tests
        self._restore += [
            lambda: setattr(base, "instantiate_test", orig_inst),
            lambda: setattr(base, "_get_dtypes", orig_dtypes),
            lambda: setattr(cdt, "instantiate_device_type_tests", orig_idtt),
        ]
        if not self.way.install(cdt, self._restore):
            self.way = PATCHES  # the core lacks the API: the patches do everything (said in the report)

    def uninstall(self) -> None:
        while self._restore:
            self._restore.pop()()

    def _record_left_out(self, cdt, generic_cls, upstream: tuple, ours: tuple, kw: dict) -> None:
        """Device classes a plain run of this file would instantiate here, minus this run's."""
        try:
            mine = {b.device_type for b in cdt.get_desired_device_type_test_bases(*ours, **kw)}
            previous = os.environ.pop("PYTORCH_TESTING_DEVICE_ONLY_FOR", None)
            try:
                theirs = {b.device_type for b in cdt.get_desired_device_type_test_bases(*upstream, **kw)}
            finally:
                if previous is not None:
                    os.environ["PYTORCH_TESTING_DEVICE_ONLY_FOR"] = previous
        except Exception:  # a torch without these internals: nothing to report, never a failed collection
            return
        names = [f"{generic_cls.__name__}{d.upper()}" for d in sorted(theirs - mine)]
        if names:
            self.left_out_classes[self.file_of(generic_cls)].extend(names)

    # ------------------------------------------------------------ plans

    def out_of_scope(self, file: str, cls: str) -> bool:
        """global.scope leaves this class out (recorded for the report)."""
        found = self.hw.scope.out_of_scope(file, cls) if self.hw is not None else None
        if found:
            self.hw.record(file, cls, found)
        return bool(found)

    def file_of(self, generic_cls) -> str:
        """The real path of the module a (generic or device) test class was defined in: the file
        whose plan decides its tests (torch gives each device class its generic class's module)."""
        mod = sys.modules.get(getattr(generic_cls, "__module__", ""), None)
        return os.path.realpath(getattr(mod, "__file__", "") or "<unknown>")

    def _file_plan_of(self, generic_cls) -> Optional[FilePlan]:
        return self.plan.file_plan(self.file_of(generic_cls))

    def plan_for_file(self, path: str) -> FilePlan:
        """Files no config lists run everything the support allows."""
        fp = self.plan.file_plan(path)
        if fp is None:
            fp = FilePlan(path, Mode.mandatory_success, None, False, False, (), Loc(path, 0))
        return fp

    # ------------------------------------------------------------ generation

    def _instantiate(self, orig, cls, name, test, generic_cls):
        file = self.file_of(generic_cls)
        fp = self.plan_for_file(file)
        gcls = generic_cls.__name__
        self.seen[file].add((gcls, name))
        if not self.way.uses_torch_api and not should_instantiate(fp, gcls, name):
            return None  # native: test_exclusions kept it from being instantiated at all
        if self.only is not None and not self.only.may_have(file, gcls, name):
            return None  # not in the change-aware selection: never instantiated
        self._file = file
        test = _clone(test)
        inner = getattr(test, "parametrize_fn", None)
        if inner is not None:
            test.parametrize_fn = self._filtering(inner, fp, gcls, name)
        before = set(cls.__dict__)
        self._current = (fp, gcls, name)
        try:
            cases = self._model_cases(fp, gcls, name)
            if cases:
                self.way.admit(cases)  # torch's op_allowlist would drop the cases' own OpInfos
            with _narrowed(
                inner,
                self._op_prefilter(fp),
                self._module_prefilter(fp),
                self._widener(fp, gcls, name),
                self.way.allowed,
                cases,
            ) as empty:
                if empty:
                    return None
                orig(cls, name, test, generic_cls=generic_cls)
        finally:
            self._current = None
        for attr in sorted(set(cls.__dict__) - before):
            self._adapt_generated(cls, attr, fp, gcls, name)
        return None

    def _model_cases(self, fp: FilePlan, gcls: str, name: str) -> list:
        """Model-op cases (modelops.py) the entries naming this test write: added to its @ops list."""
        from testing.plugin.plan import model_cases
        from testing.plugin.selection import pattern_may_name

        rules = [
            r
            for r in fp.rules
            if model_cases(r.entry)
            and any(pattern_may_name(p, gcls, name, r.class_insensitive) for p in r.patterns)
        ]
        if not rules:
            return []
        from testing.plugin import modelops

        return modelops.op_infos(rules, self.support, self.device_type, modelops.plan_seed(self.plan))

    def _op_prefilter(self, fp: FilePlan) -> Callable[[Any], bool]:
        widened = any(r.entry.edits and r.entry.edits.ops and r.entry.edits.ops.include for r in fp.rules)

        native = self.way.uses_torch_api  # op_allowlist filters instead

        def keep(op) -> bool:
            case = _case_fields(op)
            if (
                not widened
                and not native
                and not case
                and not op_allowed(self.support, None, op.full_name, _op_keys(op))
            ):
                return False
            return self.mark_filter.may_select(
                marks_for(Variant("", "", "", op=op.full_name, **case), None),
                open_prefixes=("dtype__", "bucket__", "module__"),
            )

        return keep

    def _module_prefilter(self, fp: FilePlan) -> Callable[[Any], bool]:
        widened = any(
            r.entry.edits and r.entry.edits.modules and r.entry.edits.modules.include for r in fp.rules
        )

        def keep(mi) -> bool:
            if not widened and not module_allowed(self.support, None, mi.name):
                return False
            return self.mark_filter.may_select(
                marks_for(Variant("", "", "", module=mi.name), None),
                open_prefixes=("dtype__", "bucket__", "op__"),
            )

        return keep

    def _widener(self, fp: FilePlan, gcls: str, name: str) -> Callable[[Any, set], Any]:
        """op -> a copy whose dtypes for this device include what the config lists (or op itself)."""
        import torch

        from testing.plugin.selection import match_rule

        def widen(op, allowed: Optional[set]):
            spec = self.support.ops.get(op.full_name) if self.support.ops is not None else None
            wanted = set(spec.widen) if spec else set()
            rule = match_rule(
                fp, Variant(gcls, name, name, op=op.full_name, aten=op.aten_name, op_names=_op_names(op))
            )
            if rule and rule.entry.edits and rule.entry.edits.dtypes:
                wanted |= {i if isinstance(i, str) else i.name for i in rule.entry.edits.dtypes.include}
            have = set(op.supported_dtypes(self.device_type))
            extra = {
                dt for dt in (getattr(torch, n, None) for n in sorted(wanted)) if isinstance(dt, torch.dtype)
            } - have
            if not extra:
                return op
            if allowed is not None:
                allowed |= extra
            wide = copy.copy(op)
            wide.dtypesIf = dict(op.dtypesIf, **{torch.device(self.device_type).type: have | extra})
            return wide

        return widen

    def _filtering(self, inner, fp: FilePlan, gcls: str, name: str):
        adapter = self

        def parametrize_fn(test, generic_cls, device_cls):
            for item in inner(test, generic_cls, device_cls):
                _, suffix, kwargs, _ = item
                v = adapter._variant(gcls, name, suffix, kwargs)
                if adapter._keep(fp, v) is None:
                    continue
                yield item

        return parametrize_fn

    def _keep(self, fp: FilePlan, v: Variant) -> Optional[Decision]:
        if self.only is not None and not self.only.keeps(self._file, v.cls, v.name):
            return None
        d = decide(fp, self.support, v)
        if d is None or not self.mark_filter.may_select(marks_for(v, d)):
            return None
        return d

    def _filter_dtypes(self, dtypes, test):
        """@dtypes lookup: keep the dtypes an entry allows (tuples need every member)."""
        if dtypes is None or self._current is None or getattr(test, "parametrize_fn", None) is not None:
            return dtypes  # combined with @ops/@modules: filtered per yield instead
        fp, gcls, name = self._current
        kept = []
        for dt in list(dtypes) + self._included_dtypes(fp, gcls, name, dtypes):
            v = self._variant(gcls, name, "", {"dtype": dt})
            if self._keep(fp, v) is not None:
                kept.append(dt)
        return kept

    def _included_dtypes(self, fp, gcls, name, dtypes) -> list:
        import torch

        from testing.plugin.selection import match_rule

        rule = match_rule(fp, Variant(gcls, name, name))
        if not (rule and rule.entry.edits and rule.entry.edits.dtypes):
            return []
        have = {str(d) for d in dtypes}
        extra = []
        for inc in rule.entry.edits.dtypes.include:
            dt = getattr(torch, inc if isinstance(inc, str) else inc.name, None)
            if isinstance(dt, torch.dtype) and str(dt) not in have:
                extra.append(dt)
        return extra

    def _variant(self, gcls: str, name: str, suffix: str, kwargs: dict) -> Variant:
        import torch.testing._internal.common_device_type as cdt

        dt = kwargs.get("dtypes", kwargs.get("dtype"))
        dts = tuple(dt) if isinstance(dt, (list, tuple)) else ((dt,) if dt is not None else ())
        op = kwargs.get("op")
        mi = kwargs.get("module_info")
        full = f"{name}{'_' + suffix if suffix else ''}_{self.device_type}{cdt._dtype_test_suffix(dt)}"
        return Variant(
            cls=gcls,
            test=name,
            name=full,
            op=getattr(op, "full_name", None),
            aten=getattr(op, "aten_name", None),
            dtypes=tuple(str(d).removeprefix("torch.") for d in dts),
            module=getattr(mi, "name", None),
            op_names=_op_names(op) if op is not None else (),
            **_case_fields(op),
        )

    # ------------------------------------------------------------ generated methods

    def _adapt_generated(self, cls, attr: str, fp: FilePlan, gcls: str, name: str) -> None:
        fn = cls.__dict__[attr]
        kwargs = (getattr(fn, "__defaults__", None) or ({},))[0]
        kwargs = kwargs if isinstance(kwargs, dict) else {}
        v = self._variant(gcls, name, "", kwargs)
        v = dataclasses.replace(v, name=attr)
        d = self._keep(fp, v)
        if d is None:
            delattr(cls, attr)
            return
        d, native_xfail = self.way.layer(fn, d, v)
        setattr(cls, attr, wrap_generated(fn, kwargs, d, self.device_type, v, not native_xfail))


def _tests_of(generic_cls) -> set[tuple[str, str]]:
    return {(generic_cls.__name__, n) for n in vars(generic_cls) if n.startswith("test")}


def _case_fields(op) -> dict:
    """A model-op case's own Variant fields (modelops.variant_fields); {} for every other op."""
    if getattr(op, "oot_case", None) is None:
        return {}
    from testing.plugin.modelops import variant_fields

    return variant_fields(op)


def _op_names(op) -> tuple[str, ...]:
    """OpInfo.name and its aliases: names a config may use for the op (opnames.py)."""
    return tuple(
        n for n in (getattr(op, "name", None), *(a.name for a in getattr(op, "aliases", None) or ())) if n
    )


def _op_keys(op) -> tuple[str, ...]:
    return tuple(n for n in (op.full_name, getattr(op, "aten_name", None), *_op_names(op)) if n)


def _restore_env(name: str, value: Optional[str]) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def _clone(fn):
    """A private copy of a test function, so patched attributes never leak into the original."""
    new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__dict__.update(fn.__dict__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    return new


@contextmanager
def _narrowed(
    parametrize_fn, keep_op, keep_module, widen_op=None, runnable=None, extra_ops=()
) -> Iterator[bool]:
    """Temporarily narrow the op/module list of an @ops/@modules decorator instance,
    and widen each kept op's dtypes (and the decorator's allowed_dtypes) where configured.
    runnable (native adapter): the ops torch's op_allowlist keeps; none left means empty,
    since torch raises ValueError on an op_list its allowlist emptied.
    extra_ops (model-op cases) join the op list first."""
    owner = getattr(parametrize_fn, "__self__", None)
    attr = None
    if owner is not None and hasattr(owner, "op_list"):
        attr, keep = "op_list", keep_op
    elif owner is not None and hasattr(owner, "module_info_list"):
        attr, keep = "module_info_list", keep_module
    if attr is None:
        yield False
        return
    original = getattr(owner, attr)
    narrowed = [x for x in list(original) + (list(extra_ops) if attr == "op_list" else []) if keep(x)]
    allowed = getattr(owner, "allowed_dtypes", None)
    if attr == "op_list" and widen_op is not None:
        wider = set(allowed) if allowed is not None else None
        narrowed = [widen_op(op, wider) for op in narrowed]
        if wider is not None:
            owner.allowed_dtypes = wider
    setattr(owner, attr, narrowed)
    try:
        yield not narrowed or (
            attr == "op_list" and runnable is not None and not any(map(runnable, narrowed))
        )
    finally:
        setattr(owner, attr, original)
        if attr == "op_list" and allowed is not None:
            owner.allowed_dtypes = allowed
