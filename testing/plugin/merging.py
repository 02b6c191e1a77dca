"""Several configs' plans into one (a later file wins), then compat and duplicates.

Merging rules: configs/README.md ("Merging"); Torch Spyre's reading (compat) and a name
written twice (the last entry wins): ``finish``.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Optional

from testing.base.errors import Loc
from testing.config import gating
from testing.config.modes import Mode
from testing.plugin.planmodel import COMPAT_TORCH_SPYRE, SCALAR_GLOBALS, FilePlan, Named, Plan, Rule
from testing.plugin.problems import Problem

if TYPE_CHECKING:
    from testing.config.models import GlobalConfig


def merged_named(earlier: Named, later: Named, kind: str, problems: list[Problem]) -> Named:
    """Later wins, key by key: what the later entry writes replaces, what it leaves out is kept
    (so a feature config's bare '- name: float32' keeps device.yaml's precision)."""
    written = {k: getattr(later.spec, k) for k in later.spec.model_fields_set if k != "name"}
    merged = earlier.spec.model_copy(update=written)
    if merged != earlier.spec:
        same_file = earlier.loc.file == later.loc.file
        problems.append(
            Problem(
                later.loc,
                f"global.{kind}",
                f"'{later.spec.name}' {'listed twice' if same_file else 'also at ' + str(earlier.loc)}: "
                f"{', '.join(sorted(written)) or 'nothing'} taken from here (later wins)",
                "warning" if same_file else "hygiene",
            )
        )
    elif earlier.loc.file == later.loc.file:
        problems.append(
            Problem(later.loc, f"global.{kind}", f"'{later.spec.name}' listed twice (first at {earlier.loc})")
        )
    return Named(merged, later.loc, later.comment_reason or earlier.comment_reason)


# ---------------------------------------------------------------- merge


def _merge_named(
    a: Optional[dict[str, Named]], b: Optional[dict[str, Named]], kind: str, problems: list[Problem]
):
    if a is None or b is None:
        return a if b is None else b
    out = dict(a)
    for name, item in b.items():
        out[name] = merged_named(out[name], item, kind, problems) if name in out else item
    return out


def _merge_scalar_globals(
    a: GlobalConfig, b: GlobalConfig, where: Loc, problems: list[Problem]
) -> GlobalConfig:
    """Later file wins for every scalar it writes (a warning when it changes one)."""
    updates = {}
    for key in SCALAR_GLOBALS:
        va, vb = getattr(a, key), getattr(b, key)
        if key not in b.model_fields_set or vb == va:
            continue
        if key in a.model_fields_set:
            problems.append(
                Problem(where, f"global.{key}", f"{vb!r} overrides {va!r} of an earlier config (later wins)")
            )
        updates[key] = vb
    return a.model_copy(update=updates)  # the updated keys join model_fields_set: a third file sees them


def merge_files(
    a: tuple[FilePlan, ...], b: tuple[FilePlan, ...], problems: list[Problem]
) -> tuple[FilePlan, ...]:
    """Entries for the same path are combined; a file-level setting written twice: the later wins."""
    out = {fp.path: fp for fp in a}
    for fp in b:
        prev = out.get(fp.path)
        if prev is None:
            out[fp.path] = fp
            continue
        updates: dict[str, Any] = {}
        for attr in ("unlisted_mode", "relax_device_restrictions", "relax_only_for", "collect"):
            if getattr(prev, attr) != getattr(fp, attr) and (attr != "unlisted_mode" or fp.unlisted_explicit):
                problems.append(
                    Problem(
                        fp.loc,
                        attr,
                        f"{getattr(fp, attr)!s} overrides {getattr(prev, attr)!s} at {prev.loc} (later wins)",
                    )
                )
                updates[attr] = getattr(fp, attr)
        if "unlisted_mode" in updates:
            updates["unlisted_reason"] = fp.unlisted_reason
            updates["unlisted_explicit"] = True
        out[fp.path] = dataclasses.replace(
            prev,
            rules=prev.rules + fp.rules,
            reason=prev.reason or fp.reason,
            unlisted_reason=updates.pop("unlisted_reason", prev.unlisted_reason or fp.unlisted_reason),
            **updates,
        )
    return tuple(out.values())


def merge(a: Plan, b: Plan) -> Plan:
    where = b.files[0].loc if b.files else Loc(b.sources[0], 1)
    problems: list[Problem] = []
    return Plan(
        files=merge_files(a.files, b.files, problems),
        global_=_merge_scalar_globals(a.global_, b.global_, where, problems),
        ops=_merge_named(a.ops, b.ops, "supported_ops", problems),
        dtypes=_merge_named(a.dtypes, b.dtypes, "supported_dtypes", problems),
        modules=_merge_named(a.modules, b.modules, "supported_modules", problems),
        tags=a.tags | b.tags,
        sources=a.sources + b.sources,
        left_out=a.left_out + b.left_out,
        problems=a.problems + b.problems + tuple(problems),
        scope_loc=b.scope_loc or a.scope_loc,
        gating=gating.merge(a.gating, b.gating),
        gating_loc=_gating_loc(a, b),
    )


def _gating_loc(a: Plan, b: Plan) -> Optional[Loc]:
    """Where a missing capability line goes: the last config declaring any, else the last with a global."""
    if a.gating and not b.gating:
        return a.gating_loc
    return b.gating_loc or a.gating_loc


# ---------------------------------------------------------------- after merging: compat, duplicates


def name_key(pattern: str, class_insensitive: bool) -> str:
    """What a name means for duplicate detection: Class::method, or the method alone."""
    return pattern.split("::", 1)[1] if class_insensitive and "::" in pattern else pattern


def with_compat(fp: FilePlan, compat: Optional[str], relax_all: bool) -> FilePlan:
    """Torch Spyre's reading of a file entry (configs/README.md, 'Coming from Torch Spyre')."""
    if compat != COMPAT_TORCH_SPYRE:
        return dataclasses.replace(fp, relax_device_restrictions=True) if relax_all else fp
    updates: dict[str, Any] = dict(
        relax_device_restrictions=True,
        relax_only_for=True,
        rules=tuple(dataclasses.replace(r, class_insensitive=True) for r in fp.rules),
    )
    if not fp.unlisted_explicit and fp.unlisted_mode == Mode.skip:
        updates.update(
            unlisted_mode=Mode.xfail, unlisted_reason="unlisted (compat: torch_spyre defaults to xfail)"
        )
    return dataclasses.replace(fp, **updates)


def dedupe(fp: FilePlan) -> tuple[FilePlan, list[Problem]]:
    """A name written twice with the same selectors: the last entry takes it (as in Torch Spyre),
    with a warning naming both places."""
    owner: dict[tuple, int] = {}
    names = [list(r.patterns) for r in fp.rules]
    problems = []
    for i, rule in enumerate(fp.rules):
        for pattern in rule.patterns:
            key = (name_key(pattern, rule.class_insensitive), rule.selector_key)
            if key in owner:
                j = owner[key]
                earlier = fp.rules[j]
                names[j] = [p for p in names[j] if name_key(p, earlier.class_insensitive) != key[0]]
                problems.append(
                    Problem(
                        rule.loc_of(pattern),
                        "names",
                        f"duplicate entry '{pattern}' (also at "
                        f"{_also_at(earlier, pattern, key[0])}): this later entry wins ({rule.entry.mode.value})",
                    )
                )
            owner[key] = i
    rules = tuple(dataclasses.replace(r, names=tuple(n)) for r, n in zip(fp.rules, names) if n)
    return dataclasses.replace(fp, rules=rules), problems


def _also_at(rule: Rule, pattern: str, key: str) -> Loc:
    same = next((p for p in rule.patterns if name_key(p, rule.class_insensitive) == key), pattern)
    return rule.loc_of(same)


def finish(plan: Plan, compat: Optional[str] = None) -> Plan:
    """Apply compat (option, else global.compat) and the device-restriction switch; merge duplicates."""
    compat = compat or plan.global_.compat
    problems = list(plan.problems)
    files = []
    for fp in plan.files:
        fp, found = dedupe(with_compat(fp, compat, plan.global_.relax_device_restrictions))
        problems += found
        files.append(fp)
    return dataclasses.replace(plan, files=tuple(files), problems=tuple(problems))
