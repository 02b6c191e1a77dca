"""Resolve what the device supports: config names checked against torch's
databases, intersected with the backend's capability table.

The capability table comes from ``<backend>.capabilities()`` (for spyre:
``torch_spyre.capabilities()``) and is keyed by aten op name; OpInfos are
matched through ``OpInfo.aten_name``. A config that names an op or dtype the
device lacks is an error unless the entry carries a ``reason``.
"""

from __future__ import annotations

import collections.abc
import functools
import importlib
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from testing.plugin.config import ConfigError, Loc, Named, Plan
from testing.plugin.models import DtypeSpec
from testing.plugin.selection import OpSupport, Support

Caps = dict[str, dict[str, Optional[tuple[float, float]]]]  # aten op -> dtype -> (atol, rtol)


@dataclass(frozen=True)
class KnownNames:
    ops: dict[str, str]  # OpInfo.full_name -> aten_name
    modules: frozenset[str]
    dtypes: frozenset[str]


def known_names() -> KnownNames:
    """Names from the pinned torch: op_db, module_db and every torch dtype.

    op_db and module_db are imported on the first lookup of an op or module name
    (seconds of start-up a test file that never names one does not pay)."""
    import torch

    dtypes = frozenset(str(v).removeprefix("torch.") for v in vars(torch).values() if isinstance(v, torch.dtype))
    return KnownNames(ops=_LazyMapping(lambda: _databases()[0]), modules=_LazySet(lambda: _databases()[1]), dtypes=dtypes)


@functools.lru_cache(maxsize=None)
def _databases() -> tuple[dict[str, str], frozenset[str]]:
    from torch.testing._internal.common_methods_invocations import op_db, python_ref_db
    from torch.testing._internal.common_modules import module_db

    ops = {op.full_name: _aten_key(op.aten_name or op.name) for op in list(op_db) + list(python_ref_db)}
    return ops, frozenset(m.name for m in module_db)


def databases_loaded() -> bool:
    return _databases.cache_info().currsize > 0


class _LazyMapping(collections.abc.Mapping):
    def __init__(self, load) -> None:
        self._load = load

    def __getitem__(self, key):
        return self._load()[key]

    def __iter__(self):
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


class _LazySet(collections.abc.Set):
    def __init__(self, load) -> None:
        self._load = load

    def __contains__(self, key) -> bool:
        return key in self._load()

    def __iter__(self):
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


def _aten_key(name: str) -> str:
    """'aten::add.Tensor' / 'add.Tensor' / 'add' -> 'add'."""
    return name.removeprefix("aten::").split(".", 1)[0]


def normalize_capabilities(table: Any) -> Caps:
    """Accept {op: {dtype: {atol, rtol}|None}}, {op: {'dtypes': ..., 'aten': [...]}},
    {op: [dtype, ...]} or {'ops': {...}} (torch_spyre's form); return
    aten op -> dtype -> (atol, rtol) | None."""
    if isinstance(table, Mapping) and isinstance(table.get("ops"), Mapping):
        table = table["ops"]
    if not isinstance(table, Mapping):
        raise TypeError(f"capabilities() must return a mapping, got {type(table).__name__}")
    caps: Caps = {}
    for op, info in table.items():
        aliases = []
        if isinstance(info, Mapping) and "dtypes" in info:
            aten = info.get("aten") or ()
            aliases = [aten] if isinstance(aten, str) else list(aten)
            info = info["dtypes"]
        dtypes: dict[str, Optional[tuple[float, float]]] = {}
        items = info.items() if isinstance(info, Mapping) else ((d, None) for d in info)
        for dtype, prec in items:
            name = str(dtype).removeprefix("torch.")
            if isinstance(prec, Mapping) and ("atol" in prec or "rtol" in prec):
                dtypes[name] = (float(prec.get("atol", 0.0)), float(prec.get("rtol", 0.0)))
            elif isinstance(prec, Mapping) and isinstance(prec.get("precision"), Mapping):
                p = prec["precision"]
                dtypes[name] = (float(p.get("atol", 0.0)), float(p.get("rtol", 0.0)))
            else:
                dtypes[name] = None
        for key in [str(op), *aliases]:  # group name and each aten kernel it covers
            caps.setdefault(_aten_key(key), dtypes)
    return caps


def backend_capabilities(module_name: str) -> Caps:
    module = importlib.import_module(module_name)
    fn = getattr(module, "capabilities", None)
    if fn is None:
        raise AttributeError(f"backend module '{module_name}' has no capabilities()")
    return normalize_capabilities(fn())


# ---------------------------------------------------------------- name checks


def _check(names: set[str] | frozenset[str] | dict, value: str, loc: Loc, key: str, kind: str) -> None:
    if any(c in value for c in "*?["):
        return  # globs are checked by matching, not by name
    if value not in names:
        raise ConfigError(loc, key, f"unknown {kind} '{value}'")


def validate_names(plan: Plan, known: KnownNames) -> None:
    """Unknown op/dtype/module names anywhere in the config are errors."""
    for kind, table, names in (
        ("op", plan.ops, known.ops),
        ("dtype", plan.dtypes, known.dtypes),
        ("module", plan.modules, known.modules),
    ):
        for name, item in (table or {}).items():
            _check(names, name, item.loc, f"global.supported_{kind}s", kind)
            for d in _spec_dtypes(item.spec):
                _check(known.dtypes, d, item.loc, f"global.supported_{kind}s.dtypes", "dtype")
    for fp in plan.files:
        for rule in fp.rules:
            e = rule.entry
            for key, values, names, kind in (
                ("ops", e.ops, known.ops, "op"),
                ("dtypes", e.dtypes, known.dtypes, "dtype"),
                ("modules", e.modules, known.modules, "module"),
            ):
                for v in values or ():
                    _check(names, v, rule.loc, key, kind)
            if e.edits:
                for key, group, names, kind in (
                    ("edits.ops", e.edits.ops, known.ops, "op"),
                    ("edits.modules", e.edits.modules, known.modules, "module"),
                    ("edits.dtypes", e.edits.dtypes, known.dtypes, "dtype"),
                ):
                    for item in (list(group.include) + list(group.exclude)) if group else ():
                        _check(names, item if isinstance(item, str) else item.name, rule.loc, key, kind)


def _spec_dtypes(spec: Any) -> list[str]:
    dtypes = list(getattr(spec, "dtypes", None) or ())
    names = [d if isinstance(d, str) else d.name for d in dtypes]
    return names + list(getattr(spec, "exclude_dtypes", None) or ())


# ---------------------------------------------------------------- support


def _precision_of(spec_dtypes) -> tuple[tuple[str, float, float], ...]:
    return tuple(
        (d.name, d.precision.atol, d.precision.rtol)
        for d in spec_dtypes or ()
        if isinstance(d, DtypeSpec) and d.precision is not None
    )


def _within(dtypes: frozenset[str], wanted: Optional[frozenset[str]]) -> frozenset[str]:
    """Capability dtypes, narrowed to the config's supported_dtypes when it lists them."""
    return dtypes if wanted is None else dtypes & wanted


def _op_support(named: Named, cap_dtypes: Optional[dict], device: str, aten: str,
                wanted: Optional[frozenset[str]] = None) -> OpSupport:
    spec = named.spec
    dtypes = None if spec.dtypes is None else frozenset(d if isinstance(d, str) else d.name for d in spec.dtypes)
    precision = list(_precision_of(spec.dtypes))
    if cap_dtypes is not None:
        lacking = sorted((dtypes or frozenset()) - set(cap_dtypes))
        if lacking and not spec.reason:
            raise ConfigError(named.loc, "global.supported_ops", f"'{spec.name}': {device} has no aten::{aten} for {', '.join(lacking)} (capabilities); add a 'reason' to keep it")
        if dtypes is None:
            dtypes = _within(frozenset(cap_dtypes), wanted)
        have = {p[0] for p in precision}
        precision += [(d, *p) for d, p in sorted(cap_dtypes.items()) if p is not None and d not in have and d in dtypes]
    return OpSupport(
        dtypes=dtypes,
        exclude_dtypes=frozenset(getattr(spec, "exclude_dtypes", ()) or ()),
        precision=tuple(precision),
        shapes=getattr(spec, "shapes", None),
        xfail_reason=spec.reason if spec.force_xfail else None,
    )


def build_support(plan: Plan, known: KnownNames, caps: Optional[Caps], device: str) -> Support:
    """Config ∩ capabilities. caps=None: the config alone decides."""
    ops: Optional[dict[str, OpSupport]] = None
    wanted = None if plan.dtypes is None else frozenset(plan.dtypes)
    if plan.ops is not None:
        ops = {}
        for name, named in plan.ops.items():
            aten = known.ops.get(name, name)
            cap = None
            if caps is not None:
                cap = caps.get(aten)
                if cap is None and not named.spec.reason:
                    raise ConfigError(named.loc, "global.supported_ops", f"'{name}': {device} has no aten::{aten} (capabilities); add a 'reason' to keep it")
            ops[name] = _op_support(named, cap, device, aten, wanted)
    elif caps is not None:
        ops = {name: OpSupport(dtypes=_within(frozenset(caps[aten]), wanted),
                               precision=tuple((d, *p) for d, p in sorted(caps[aten].items()) if p))
               for name, aten in known.ops.items() if aten in caps}

    cap_dtypes = None if caps is None else frozenset(d for table in caps.values() for d in table)
    dtypes: Optional[frozenset[str]] = cap_dtypes
    precision: dict[str, tuple[float, float]] = {}
    xfail: dict[str, str] = {}
    if plan.dtypes is not None:
        for name, named in plan.dtypes.items():
            spec = named.spec
            if cap_dtypes is not None and name not in cap_dtypes and not spec.reason:
                raise ConfigError(named.loc, "global.supported_dtypes", f"'{name}': no op of {device} supports it (capabilities); add a 'reason' to keep it")
            if spec.precision:
                precision[name] = (spec.precision.atol, spec.precision.rtol)
            if spec.force_xfail:
                xfail[name] = spec.reason
        dtypes = frozenset(plan.dtypes)

    modules = None
    if plan.modules is not None:
        modules = {
            name: OpSupport(
                dtypes=None if n.spec.dtypes is None else frozenset(d if isinstance(d, str) else d.name for d in n.spec.dtypes),
                precision=_precision_of(n.spec.dtypes),
                xfail_reason=n.spec.reason if n.spec.force_xfail else None,
            )
            for name, n in plan.modules.items()
        }
    return Support(ops=ops, dtypes=dtypes, dtype_precision=precision, dtype_xfail=xfail, modules=modules)
