"""Delta between two PyTorch versions: which test units must be re-evaluated.

Compares the OpInfo definitions of the installed ``torch/testing/_internal`` with another
version's (from its wheel), field by field, and keeps only changes a privateuse1 device can
see: CPU/base dtypes, sample-input code, generic (device_type None or privateuse1)
DecorateInfo skips/xfails/tolerances for the unit's class and test, and other flags.
Changes confined to CUDA/ROCm/XPU/MPS fields are ignored. Test sources are compared by
content hash when two memories (old and new upstream checkouts) are given.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

from tools.select.bucket.facts import UnitFacts
from tools.select.memory import opinfo_index as oi

PU1_DEVICE_TYPES = ("privateuse1",)
AUTOGRAD_FIELD_PREFIXES = (
    "supports_forward_ad",
    "supports_fwgrad_bwgrad",
    "supports_inplace_autograd",
    "supports_gradgrad",
    "check_batched_",
    "gradcheck_",
    "backward_dtypes",
    "check_inplace_batched_forward_grad",
    "supports_autograd",
)
IGNORED_FIELDS = oi.FOREIGN_DEVICE_FIELDS | {"dtypes", *oi.DECORATOR_FIELDS}


@dataclass(frozen=True)
class OpChange:
    name: str
    status: str  # added | removed | changed
    fields: frozenset[str] = frozenset()  # changed kwargs visible to the device
    autograd_fields: frozenset[str] = frozenset()
    samples: bool = False
    dtypes_added: frozenset[str] = frozenset()
    dtypes_removed: frozenset[str] = frozenset()
    dtypes_unknown: bool = False
    decorations_added: tuple[oi.Decoration, ...] = ()
    decorations_removed: tuple[oi.Decoration, ...] = ()

    @property
    def foreign_only(self) -> bool:
        return self.status == "changed" and not (
            self.fields
            or self.autograd_fields
            or self.samples
            or self.dtypes_added
            or self.dtypes_removed
            or self.dtypes_unknown
            or self.decorations_added
            or self.decorations_removed
        )


def eval_dtypes(source: str | None) -> frozenset[str] | None:
    """Evaluate a dtypes expression (e.g. ``floating_types_and(torch.half)``) with torch's
    dtype helpers; None when it uses something the installed torch lacks."""
    if source is None:
        return frozenset()
    import torch
    from torch.testing._internal import common_dtype

    namespace = {"torch": torch, **{k: v for k, v in vars(common_dtype).items() if not k.startswith("__")}}
    try:
        value = eval(compile(source, "<dtypes>", "eval"), {"__builtins__": {}}, namespace)  # noqa: S307
        return frozenset(str(d).removeprefix("torch.") for d in value)
    except Exception:  # an unknown helper or attribute of the newer torch
        return None


def _dtype_diff(old: oi.OpDef, new: oi.OpDef) -> tuple[frozenset[str], frozenset[str], bool]:
    before, after = eval_dtypes(old.dtype_sources.get("dtypes")), eval_dtypes(new.dtype_sources.get("dtypes"))
    if old.dtype_sources.get("dtypes") == new.dtype_sources.get("dtypes"):
        return frozenset(), frozenset(), False
    if before is None or after is None:
        return frozenset(), frozenset(), True
    return after - before, before - after, False


def _relevant(decorations: tuple[oi.Decoration, ...]) -> tuple[oi.Decoration, ...]:
    """Decorations a privateuse1 device can ever see."""
    return tuple(
        d
        for d in decorations
        if d.device_type is None
        or any(t in PU1_DEVICE_TYPES for t in d.device_type)
        or "<dynamic>" in d.device_type
    )


def diff_op(old: oi.OpDef | None, new: oi.OpDef | None) -> OpChange | None:
    if old is None and new is None:
        return None
    if old is None:
        return OpChange(new.full_name, "added")
    if new is None:
        return OpChange(old.full_name, "removed")
    if old.definition_hash == new.definition_hash:
        return None
    changed = {k for k in set(old.fields) | set(new.fields) if old.fields.get(k) != new.fields.get(k)}
    changed -= oi.FOREIGN_DEVICE_FIELDS
    autograd = {k for k in changed if k.startswith(AUTOGRAD_FIELD_PREFIXES)}
    visible = changed - IGNORED_FIELDS - autograd - set(oi.SAMPLE_FIELDS)
    samples = old.samples != new.samples or bool(changed & set(oi.SAMPLE_FIELDS))
    added, removed, unknown = _dtype_diff(old, new)
    old_dec, new_dec = set(_relevant(old.decorations)), set(_relevant(new.decorations))
    return OpChange(
        old.full_name,
        "changed",
        frozenset(visible),
        frozenset(autograd),
        samples,
        added,
        removed,
        unknown,
        tuple(sorted(new_dec - old_dec, key=repr)),
        tuple(sorted(old_dec - new_dec, key=repr)),
    )


def diff_indexes(old: Mapping[str, oi.OpDef], new: Mapping[str, oi.OpDef]) -> dict[str, OpChange]:
    changes = {}
    for name in sorted(set(old) | set(new)):
        change = diff_op(old.get(name), new.get(name))
        if change is not None:
            changes[name] = change
    return changes


def _lookup(changes: Mapping[str, OpChange], variant: str) -> OpChange | None:
    return changes.get(variant) or changes.get(variant.split(".", 1)[0] + ".*")


def _applies(decorations: tuple[oi.Decoration, ...], unit: UnitFacts, device: str) -> list[oi.Decoration]:
    return [
        d for d in decorations if d.applies_to(unit.cls, unit.test, (*PU1_DEVICE_TYPES, device, "<dynamic>"))
    ]


def why_affected(
    unit: UnitFacts, changes: Mapping[str, OpChange], device: str, changed_tests: set[str] = frozenset()
) -> str | None:
    """Why this unit must be re-evaluated under the new version, or None if it need not be."""
    if unit.test_id in changed_tests:
        return "test source changed"
    if unit.kind != "ops" or not unit.variant:
        return None
    change = _lookup(changes, unit.variant)
    if change is None or change.foreign_only:
        return None
    if change.status != "changed":
        return f"OpInfo {change.status}"
    reasons = []
    if change.samples:
        reasons.append("sample-input code changed")
    if change.fields:
        reasons.append("fields changed: " + ", ".join(sorted(change.fields)))
    if change.autograd_fields and "autograd" in unit.features:
        reasons.append("autograd fields changed: " + ", ".join(sorted(change.autograd_fields)))
    if change.dtypes_unknown or change.dtypes_added or change.dtypes_removed:
        reasons.append(
            "dtypes changed"
            + (f" (+{','.join(sorted(change.dtypes_added))})" if change.dtypes_added else "")
            + (f" (-{','.join(sorted(change.dtypes_removed))})" if change.dtypes_removed else "")
        )
    added = _applies(change.decorations_added, unit, device)
    removed = _applies(change.decorations_removed, unit, device)
    if added or removed:
        reasons.append(f"decorators for this test: +{len(added)} -{len(removed)}")
    return "; ".join(reasons) or None


def overlay(unit: UnitFacts, changes: Mapping[str, OpChange], device: str, version: str) -> UnitFacts:
    """The unit's facts as the new version would present them (best static knowledge).

    New generic skips/xfails turn the CPU status into skipped/xfailed; removed ones that
    explained a CPU skip leave the status unknown (a tie for the engine); dtype sets follow
    the new OpInfo; the trace is reused (a changed sample function is noted by the caller).
    """
    change = _lookup(changes, unit.variant) if unit.kind == "ops" else None
    if change is None:
        return unit
    if change.status == "removed":
        return replace(unit, status="skipped", error=f"OpInfo removed in {version}")
    if change.status == "added":
        return replace(unit, status=None, error=f"OpInfo added in {version}; no trace yet")
    status, error = unit.status, unit.error
    for dec in _applies(change.decorations_added, unit, device):
        if dec.kind in ("xfail", "skip") and dec.dtypes is None:
            status, error = ("xfailed" if dec.kind == "xfail" else "skipped"), f"{version} adds {dec.action}"
    removed = [d for d in _applies(change.decorations_removed, unit, device) if d.kind in ("xfail", "skip")]
    if removed and status in ("xfailed", "skipped"):
        status, error = None, f"{version} removes {removed[0].action}"
    dtypes = (
        tuple(sorted((set(unit.dtypes) | change.dtypes_added) - change.dtypes_removed))
        if unit.dtypes
        else unit.dtypes
    )
    return replace(unit, status=status, error=error, dtypes=dtypes, device=_device_dtypes(unit, dtypes))


def _device_dtypes(unit: UnitFacts, dtypes: tuple[str, ...]) -> tuple:
    """The device's generated variants follow the new version's dtypes (names patterned on a kept one)."""
    if not unit.device or not dtypes:
        return unit.device
    kept = tuple(e for e in unit.device if "_".join(e[1]) in dtypes)
    have = {"_".join(e[1]) for e in kept}
    name, members = unit.device[0]
    stem = name[: -len("_".join(members))] if members and name.endswith("_".join(members)) else name + "_"
    return kept + tuple((f"{stem}{d}", (d,)) for d in dtypes if d not in have)


@dataclass
class DeltaPlan:
    version: str
    changes: dict[str, OpChange]
    affected: dict[str, str] = field(default_factory=dict)  # unit_id -> why
    added: list[UnitFacts] = field(default_factory=list)  # units the new version generates
    removed: set[str] = field(default_factory=set)  # units it no longer generates

    def counts(self) -> dict[str, int]:
        by_status = {
            s: sum(c.status == s for c in self.changes.values()) for s in ("added", "removed", "changed")
        }
        by_status["foreign_only"] = sum(c.foreign_only for c in self.changes.values())
        return by_status


def plan(
    units: list[UnitFacts],
    old_internal: Path,
    new_internal: Path,
    version: str,
    device: str,
    changed_tests: set[str] = frozenset(),
) -> DeltaPlan:
    changes = diff_indexes(oi.build_index(old_internal), oi.build_index(new_internal))
    result = DeltaPlan(version, changes)
    for unit in units:
        change = _lookup(changes, unit.variant) if unit.kind == "ops" and unit.variant else None
        if change is not None and change.status == "removed":
            result.removed.add(unit.unit_id)
            continue
        why = why_affected(unit, changes, device, changed_tests)
        if why:
            result.affected[unit.unit_id] = why
    result.added = added_units(units, changes, version)
    result.affected.update({u.unit_id: f"OpInfo added in {version}" for u in result.added})
    return result


def added_units(units: list[UnitFacts], changes: Mapping[str, OpChange], version: str) -> list[UnitFacts]:
    """New ops join every test parametrised over the whole op_db (statically: ``@ops(op_db...)``)."""
    templates = {}
    for unit in units:
        if unit.kind == "ops" and unit.op_list.replace(" ", "") == "op_db":
            templates.setdefault(unit.test_id, unit)
    new = []
    for name, change in sorted(changes.items()):
        if change.status != "added":
            continue
        for template in templates.values():
            new.append(
                replace(
                    template,
                    unit_id=f"{template.test_id}[{name}]",
                    variant=name,
                    status=None,
                    ops=(),
                    kernel_ops=(),
                    compare_ops=(),
                    dtypes=(),
                    error=f"OpInfo added in {version}; no trace yet",
                    aten=None,
                    device=(),
                    traces=(),
                )
            )
    return new
