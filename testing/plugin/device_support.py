"""Resolve what the device supports: config names checked against torch's
databases, intersected with the backend's capability table.

The capability table comes from ``<backend>.capabilities()`` (for spyre:
``torch_spyre.capabilities()``) and is keyed by aten op name; OpInfos are
matched through ``OpInfo.aten_name``. Config op names are resolved by
opnames.py (OpInfo names, aten names, aliases, overloads, capability groups).
What does not resolve, and what the device lacks, is a warning (problems.py)
and left out, unless the entry carries a ``reason`` (then it is kept); under
``--oot-strict`` each is an error.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import collections.abc
import difflib
import functools
import importlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional

from testing.config import capabilities as config_capabilities
from testing.plugin import opnames
from testing.plugin.plan import Named, Plan
from testing.plugin.problems import Loc, Problem
from testing.plugin.selection import OpSupport, Support

Caps = config_capabilities.Caps  # aten op -> dtype -> (atol, rtol)


@dataclass(frozen=True)
class KnownNames:
    ops: dict[str, str]  # OpInfo.full_name -> aten_name
    modules: frozenset[str]
    dtypes: frozenset[str]
    index: Optional[opnames.OpIndex] = field(default=None, compare=False)  # name resolution (opnames.py)

    def op_index(self, groups: Optional[Mapping[str, Iterable[str]]] = None) -> opnames.OpIndex:
        """The index, with the capability table's groups when there is one."""
        if self.index is not None:
            base = self.index
        elif isinstance(self.ops, LazyMapping):  # known_names(): the index loads with op_db
            base = _databases()[2]
        else:
            base = opnames.OpIndex(frozenset(self.ops), {}, {}, {})
        return opnames.OpIndex(
            base.full_names,
            base.by_name,
            base.by_alias,
            base.by_aten,
            {k: frozenset(v) for k, v in (groups or {}).items()},
        )


def known_names() -> KnownNames:
    """Names from the pinned torch: op_db, module_db and every torch dtype.

    op_db and module_db are imported on the first lookup of an op or module name
    (seconds of start-up a test file that never names one does not pay)."""
    import torch

    dtypes = frozenset(
        str(v).removeprefix("torch.") for v in vars(torch).values() if isinstance(v, torch.dtype)
    )
    return KnownNames(
        ops=LazyMapping(lambda: _databases()[0]), modules=_LazySet(lambda: _databases()[1]), dtypes=dtypes
    )


@functools.lru_cache(maxsize=None)
def _databases() -> tuple[dict[str, str], frozenset[str], opnames.OpIndex]:
    from torch.testing._internal.common_methods_invocations import op_db, python_ref_db
    from torch.testing._internal.common_modules import module_db

    ops = list(op_db) + list(python_ref_db)
    names = {op.full_name: _aten_key(op.aten_name or op.name) for op in ops}
    return names, frozenset(m.name for m in module_db), opnames.build_index(ops)


def databases_loaded() -> bool:
    return _databases.cache_info().currsize > 0


class LazyMapping(collections.abc.Mapping):
    """A mapping whose contents `load()` gives on first use (load caches what it builds)."""

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


_aten_key = opnames.aten_key


def _table(table: Any):
    return config_capabilities.read_table(table, "capabilities()", allow_empty=True)


def capability_groups(table: Any) -> dict[str, frozenset[str]]:
    """Every key of the backend's table (group name or aten kernel) -> the aten keys of its group,
    so 'clamp_min' or 'copy' resolve to the OpInfos of their whole group."""
    return _table(table).groups()


def normalize_capabilities(table: Any) -> Caps:
    """The backend's table in any shape the adapter accepts (testing/config/capabilities.py)
    -> aten op -> dtype -> (atol, rtol) | None."""
    return _table(table).by_aten()


def backend_table(module_name: str) -> Any:
    """<backend>.capabilities() as it returns it."""
    module = importlib.import_module(module_name)
    fn = getattr(module, "capabilities", None)
    if fn is None:
        raise AttributeError(f"backend module '{module_name}' has no capabilities()")
    return fn()


def backend_capabilities(module_name: str) -> Caps:
    return normalize_capabilities(backend_table(module_name))


# ---------------------------------------------------------------- name checks


def _glob(value: str) -> bool:
    return any(c in value for c in "*?[")  # globs are checked by matching, not by name


def _unknown(
    value: str, pool: Iterable[str], loc: Loc, key: str, kind: str, close: Optional[list[str]] = None
) -> Problem:
    near = close if close is not None else difflib.get_close_matches(value, sorted(pool), n=3, cutoff=0.6)
    hint = f"; closest: {', '.join(near)}" if near else ""
    return Problem(loc, key, f"unknown {kind} '{value}' (ignored){hint}", closest=tuple(near))


def check_op(value: str, index: opnames.OpIndex, loc: Loc, key: str) -> list[Problem]:
    """An op name that resolves to nothing is a warning with close matches; one that resolves
    other than by OpInfo name is a hygiene note naming what it resolved to."""
    if _glob(value):
        return []
    found = opnames.resolve(value, index)
    if not found.full_names:
        return [_unknown(value, (), loc, key, "op", opnames.close_matches(value, index))]
    if not found.canonical:
        names = sorted(found.full_names)
        shown = ", ".join(names[:4]) + (f" (+{len(names) - 4})" if len(names) > 4 else "")
        return [
            Problem(
                loc, key, f"'{value}' is not an OpInfo name: resolved by {found.how()} to {shown}", "hygiene"
            )
        ]
    return []


def validate_names(
    plan: Plan, known: KnownNames, groups: Optional[Mapping[str, Iterable[str]]] = None
) -> list[Problem]:
    """Op/dtype/module names anywhere in the config that name nothing (warnings) or name an
    op other than by its OpInfo name (hygiene)."""
    # The index needs op_db (seconds to import): built on the first op name, so a plan
    # that names none (no config at all, say) never loads it.
    index = functools.cache(lambda: known.op_index(groups))
    problems: list[Problem] = []

    def check(kind: str, value: str, loc: Loc, key: str) -> None:
        if kind == "op":
            problems.extend(check_op(value, index(), loc, key))
        elif not _glob(value) and value not in (known.dtypes if kind == "dtype" else known.modules):
            problems.append(
                _unknown(value, known.dtypes if kind == "dtype" else known.modules, loc, key, kind)
            )

    for kind, table in (("op", plan.ops), ("dtype", plan.dtypes), ("module", plan.modules)):
        for name, item in (table or {}).items():
            check(kind, name, item.loc, f"global.supported_{kind}s")
            for d in _spec_dtypes(item.spec):
                check("dtype", d, item.loc, f"global.supported_{kind}s.dtypes")
    for fp in plan.files:
        for rule in fp.rules:
            e = rule.entry
            for key, values, kind in (
                ("ops", e.ops, "op"),
                ("dtypes", e.dtypes, "dtype"),
                ("modules", e.modules, "module"),
            ):
                for v in values or ():
                    check(kind, v, rule.loc, key)
            if e.edits:
                for key, group, kind in (
                    ("edits.ops", e.edits.ops, "op"),
                    ("edits.modules", e.edits.modules, "module"),
                    ("edits.dtypes", e.edits.dtypes, "dtype"),
                ):
                    for item in (list(group.include) + list(group.exclude)) if group else ():
                        if getattr(item, "sample_inputs_func", None) is not None:
                            continue  # a model-op case names a callable, checked by modelops.py
                        check(kind, item if isinstance(item, str) else item.name, rule.loc, key)
    return problems


def _spec_dtypes(spec: Any) -> list[str]:
    dtypes = list(getattr(spec, "dtypes", None) or ())
    names = [d if isinstance(d, str) else d.name for d in dtypes]
    return names + list(getattr(spec, "exclude_dtypes", None) or ())


# ---------------------------------------------------------------- support


def _precision_of(spec_dtypes) -> tuple[tuple[str, float, float], ...]:
    return tuple(
        (d.name, d.precision.atol, d.precision.rtol)
        for d in spec_dtypes or ()
        if not isinstance(d, str) and d.precision is not None  # a bare name has no precision
    )


def _within(dtypes: frozenset[str], wanted: Optional[frozenset[str]]) -> frozenset[str]:
    """Capability dtypes, narrowed to the config's supported_dtypes when it lists them."""
    return dtypes if wanted is None else dtypes & wanted


def _op_support(
    named: Named,
    cap_dtypes: Optional[dict],
    device: str,
    aten: str,
    wanted: Optional[frozenset[str]],
    problems: list[Problem],
) -> OpSupport:
    spec = named.spec
    dtypes = (
        None if spec.dtypes is None else frozenset(d if isinstance(d, str) else d.name for d in spec.dtypes)
    )
    precision = list(_precision_of(spec.dtypes))
    if cap_dtypes is not None:
        lacking = sorted((dtypes or frozenset()) - set(cap_dtypes))
        if lacking and not spec.reason:
            problems.append(
                Problem(
                    named.loc,
                    "global.supported_ops",
                    f"'{spec.name}': {device} has no aten::{aten} for {', '.join(lacking)} "
                    f"(capabilities): left out; add a 'reason' to keep it",
                )
            )
            dtypes = dtypes - set(lacking)
        if dtypes is None:
            dtypes = _within(frozenset(cap_dtypes), wanted)
        have = {p[0] for p in precision}
        precision += [
            (d, *p) for d, p in sorted(cap_dtypes.items()) if p is not None and d not in have and d in dtypes
        ]
    return OpSupport(
        dtypes=dtypes,
        exclude_dtypes=frozenset(getattr(spec, "exclude_dtypes", ()) or ()),
        precision=tuple(precision),
        shapes=getattr(spec, "shapes", None),
        xfail_reason=_xfail_reason(named),
        widen=dtypes if spec.dtypes is not None else frozenset(),
    )


def _xfail_reason(named: Named) -> Optional[str]:
    if not named.spec.force_xfail:
        return None
    return named.reason or f"force_xfail ({named.loc})"


def build_support(
    plan: Plan,
    known: KnownNames,
    caps: Optional[Caps],
    device: str,
    problems: Optional[list[Problem]] = None,
    groups: Optional[Mapping[str, Iterable[str]]] = None,
) -> Support:
    """Config ∩ capabilities. caps=None: the config alone decides. What the device lacks is
    appended to `problems` (and left out, unless the entry has a reason)."""
    problems = problems if problems is not None else []
    ops: Optional[dict[str, OpSupport]] = None
    wanted = None if plan.dtypes is None else frozenset(plan.dtypes)
    if plan.ops is not None:
        index = known.op_index(groups)  # needs op_db: only when the config lists ops
        ops = {}
        for name, named in plan.ops.items():
            for full in sorted(opnames.resolve(name, index).full_names):
                aten = known.ops.get(full, full)
                cap = None
                if caps is not None:
                    cap = caps.get(aten)
                    if cap is None and not named.spec.reason:
                        problems.append(
                            Problem(
                                named.loc,
                                "global.supported_ops",
                                f"'{name}': {device} has no aten::{aten} (capabilities): "
                                f"{full} left out; add a 'reason' to keep it",
                            )
                        )
                        continue
                ops[full] = _op_support(named, cap, device, aten, wanted, problems)
    elif caps is not None:
        ops = {
            name: OpSupport(
                dtypes=_within(frozenset(caps[aten]), wanted),
                precision=tuple((d, *p) for d, p in sorted(caps[aten].items()) if p),
            )
            for name, aten in known.ops.items()
            if aten in caps
        }

    cap_dtypes = None if caps is None else frozenset(d for table in caps.values() for d in table)
    dtypes: Optional[frozenset[str]] = cap_dtypes
    precision: dict[str, tuple[float, float]] = {}
    xfail: dict[str, str] = {}
    if plan.dtypes is not None:
        kept = set()
        for name, named in plan.dtypes.items():
            spec = named.spec
            if not _glob(name) and name not in known.dtypes:
                continue  # validate_names said "unknown dtype (closest: ...)": nothing else to say
            if cap_dtypes is not None and name not in cap_dtypes and not spec.reason:
                problems.append(
                    Problem(
                        named.loc,
                        "global.supported_dtypes",
                        f"'{name}': no op of {device} supports it (capabilities): left out; "
                        f"add a 'reason' to keep it",
                    )
                )
                continue
            kept.add(name)
            if spec.precision:
                precision[name] = (spec.precision.atol, spec.precision.rtol)
            if spec.force_xfail:
                xfail[name] = _xfail_reason(named)
        dtypes = frozenset(kept)

    modules = None
    if plan.modules is not None:
        modules = {
            name: OpSupport(
                dtypes=None
                if n.spec.dtypes is None
                else frozenset(d if isinstance(d, str) else d.name for d in n.spec.dtypes),
                precision=_precision_of(n.spec.dtypes),
                xfail_reason=_xfail_reason(n),
            )
            for name, n in plan.modules.items()
        }
    return Support(ops=ops, dtypes=dtypes, dtype_precision=precision, dtype_xfail=xfail, modules=modules)
