"""Op names as configs write them, resolved to OpInfos.

Torch Spyre's ``supported_ops`` mixes OpInfo names (``add``,
``nn.functional.gelu``), aten names (``gelu``, ``aten::gelu``, ``copy_``),
overloads (``add.Tensor``) and names of the backend's own capability table.
``resolve`` maps such a name to the OpInfo full names it means, trying in
order: the full name itself, ``OpInfo.name`` (every variant), an alias, the
``aten_name``, and a capability group (every aten kernel of the group);
each step also tries the name without ``aten::``, without an overload suffix
and without a trailing in-place ``_``. Pure: the index is built from any
objects with OpInfo's attributes, so tools/select can use it without
pytest.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional

# Overload names that are not OpInfo variant names (those are lower_snake: div.no_rounding_mode).
_OVERLOADS = frozenset({"out", "default", "int", "dim", "self", "values", "vec", "names", "float", "complex"})


def _is_overload(suffix: str, prefixed: bool) -> bool:
    return prefixed or suffix[:1].isupper() or suffix in _OVERLOADS


def candidates(name: str) -> tuple[str, ...]:
    """'aten::add.Tensor' -> ('aten::add.Tensor', 'add.Tensor', 'add'); 'copy_' -> ('copy_', 'copy').
    'div.no_rounding_mode' stays itself: a lower-case suffix is an OpInfo variant, not an overload."""
    out = [name]
    bare = name.removeprefix("aten::")
    out.append(bare)
    if "." in bare and _is_overload(bare.rsplit(".", 1)[1], bare != name):
        out.append(bare.rsplit(".", 1)[0])  # an overload: add.Tensor, aten::add.out
    for n in list(out):
        if n.endswith("_") and not n.endswith("__"):
            out.append(n[:-1])  # in-place variant: copy_, add_
    return tuple(dict.fromkeys(out))


def aten_key(name: str) -> str:
    """'aten::add.Tensor' / 'add.Tensor' / 'add' -> 'add' (the capability table's key).
    'torch._scaled_mm' -> '_scaled_mm': op_db's OpInfos named after a torch function keep the
    prefix in their aten_name."""
    return name.removeprefix("aten::").removeprefix("torch.").split(".", 1)[0]


@dataclass(frozen=True)
class OpIndex:
    full_names: frozenset[str]
    by_name: Mapping[str, frozenset[str]]  # OpInfo.name -> full names
    by_alias: Mapping[str, frozenset[str]]
    by_aten: Mapping[str, frozenset[str]]  # aten key -> full names
    groups: Mapping[str, frozenset[str]] = field(
        default_factory=dict
    )  # capability key -> aten keys of its group

    def all_names(self) -> list[str]:
        return sorted(
            set(self.full_names)
            | set(self.by_name)
            | set(self.by_alias)
            | set(self.by_aten)
            | set(self.groups)
        )


def build_index(opinfos: Iterable[object], groups: Optional[Mapping[str, Iterable[str]]] = None) -> OpIndex:
    """opinfos: objects with full_name, name, aten_name and aliases (AliasInfo with .name)."""
    by_name, by_alias, by_aten = defaultdict(set), defaultdict(set), defaultdict(set)
    full = set()
    for op in opinfos:
        fn = op.full_name
        full.add(fn)
        by_name[op.name].add(fn)
        if fn.startswith("_refs."):
            continue  # python refs answer to their own names only, as 'add' means the OpInfo add
        by_aten[aten_key(getattr(op, "aten_name", None) or op.name)].add(fn)
        if op.name.startswith("nn.functional."):
            by_aten[op.name.removeprefix("nn.functional.")].add(
                fn
            )  # softplus, conv2d: the functional's aten op
        for alias in getattr(op, "aliases", None) or ():
            by_alias[getattr(alias, "name", str(alias))].add(fn)
    freeze = lambda d: {k: frozenset(v) for k, v in d.items()}  # noqa: E731
    return OpIndex(
        frozenset(full),
        freeze(by_name),
        freeze(by_alias),
        freeze(by_aten),
        {k: frozenset(v) for k, v in (groups or {}).items()},
    )


@dataclass(frozen=True)
class Resolved:
    full_names: frozenset[str]
    via: str  # 'full_name' | 'name' | 'alias' | 'aten_name' | 'capability' | '' (unresolved)
    matched: str = ""  # the candidate that matched: the name itself, or it stripped (candidates())

    @property
    def canonical(self) -> bool:
        """Written the way configs here name ops: an OpInfo full name or name, as is."""
        return self.via in ("full_name", "name") and self.matched == self.written

    written: str = ""

    def how(self) -> str:
        """'aten_name', or "name ('exp')" when a stripped form matched."""
        return self.via if self.matched == self.written else f"{self.via} ('{self.matched}')"


def resolve(name: str, index: OpIndex) -> Resolved:
    """The OpInfos `name` means (see the module docstring); empty when none."""
    for cand in candidates(name):
        if cand in index.full_names:
            return Resolved(frozenset({cand}), "full_name", cand, name)
        for via, table in (("name", index.by_name), ("alias", index.by_alias), ("aten_name", index.by_aten)):
            if cand in table:
                return Resolved(table[cand], via, cand, name)
    for cand in candidates(name):
        keys = index.groups.get(cand)
        if keys:
            hits = frozenset(fn for k in keys for fn in index.by_aten.get(k, ()))
            if hits:
                return Resolved(hits, "capability", cand, name)
    return Resolved(frozenset(), "", "", name)


def close_matches(name: str, index: OpIndex, n: int = 3) -> list[str]:
    """Known names nearest to an unresolved one (difflib), for the warning."""
    pool = [n for n in index.all_names() if not n.startswith("_refs.") or name.startswith("_refs.")]
    hits = difflib.get_close_matches(aten_key(name), pool, n=n, cutoff=0.6)
    return hits or difflib.get_close_matches(name, pool, n=n, cutoff=0.5)
