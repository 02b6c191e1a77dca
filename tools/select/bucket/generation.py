"""What the plugin will generate on the device, decided by the plugin's own code.

Stage 3 must not write a ``mandatory_success`` entry the plugin never turns into a test: an op
whose ``aten_name`` the capability table lacks is never instantiated, nor a dtype the device's
supported dtypes leave out. Rather than a second copy of those rules, this module calls the
plugin's pure functions (``testing/plugin/selection.py``: ``op_allowed``, ``dtype_allowed``,
``decide``; ``device_support.py``: ``build_support``) on the variants the trace worker's device
probe recorded (names and dtypes a privateuse1 device generates).

Two steps: ``narrow`` before writing (mandatory verdicts keep only what the plugin generates,
or become ``skip`` saying why), and ``verify`` after writing (the config is loaded with the
plugin's loader and every mandatory unit must yield a test; entries selecting nothing are
reported by file:line).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from testing.base.errors import ConfigError, Loc
from testing.config.modes import Mode
from testing.config.paths import expand_path
from testing.plugin import device_support as plugin_caps
from testing.plugin import selection
from testing.plugin.plan import Plan, empty_plan, load_plan
from tools.errors import SelectError
from tools.select.bucket.facts import UnitFacts
from tools.select.bucket.rules import Verdict
from tools.select.common.capabilities import CapabilityTable

# Configs name files as ${REPO_ROOT}/... and ${TORCH_ROOT}/...; matching only needs both sides
# expanded alike, so fixed stand-ins serve (nothing is read from them).
ROOTS = {"REPO_ROOT": os.sep + "__repo_root__", "TORCH_ROOT": os.sep + "__torch_root__"}
YIELDS = (Mode.mandatory_success, Mode.xfail, Mode.xfail_strict)


@dataclass(frozen=True)
class DeviceView:
    device: str
    caps: plugin_caps.Caps
    known: plugin_caps.KnownNames
    base: Plan  # the configs the generated one runs with (e.g. configs/spyre/device.yaml)
    support: selection.Support

    def support_with(self, plan: Plan) -> selection.Support:
        return plugin_caps.build_support(plan, self.known, self.caps, self.device)


def device_view(caps: CapabilityTable, base_configs: Iterable[str | Path] = ()) -> DeviceView:
    """The plugin's Support for the device: its capability table ∩ the base configs' globals."""
    try:
        base = load_plan([str(p) for p in base_configs], ROOTS) if base_configs else empty_plan()
        table = plugin_caps.normalize_capabilities(caps.to_json())
        known = plugin_caps.known_names()
        return DeviceView(
            caps.device, table, known, base, plugin_caps.build_support(base, known, table, caps.device)
        )
    except ConfigError as exc:
        raise SelectError(str(exc)) from exc


def variants(unit: UnitFacts, device: str, dtypes: Iterable[str] | None = None) -> list[selection.Variant]:
    """The plugin's Variants of a unit on the device (all, or those of the given dtype names)."""
    is_module = unit.kind == "modules"
    op = unit.variant if unit.variant and not is_module else None
    module = unit.variant if is_module else None
    wanted = None if dtypes is None else set(dtypes)
    if unit.device:
        entries = unit.device
    else:  # no device probe (older memory, import error): the CPU dtypes stand in
        entries = tuple((f"{unit.test}_{{device}}_{d}", unit.members(d)) for d in unit.dtypes) or (
            (f"{unit.test}_{{device}}", ()),
        )
    out = []
    for name, members in entries:
        if wanted is not None and members and "_".join(members) not in wanted:
            continue
        out.append(
            selection.Variant(
                unit.cls,
                unit.test,
                name.replace("{device}", device),
                op=op,
                aten=unit.aten if op else None,
                dtypes=tuple(members),
                module=module,
            )
        )
    return out


def _why_not(support: selection.Support, v: selection.Variant, device: str) -> str | None:
    if not selection.op_allowed(support, None, v.op):
        return f"op {v.op} (aten::{v.aten or v.op}) is not in the {device} table"
    if not selection.module_allowed(support, None, v.module):
        return f"module {v.module} is not in the supported modules"
    bad = [d for d in v.dtypes if not selection.dtype_allowed(support, None, v.op, d, v.module)]
    return f"{', '.join(bad)} not among its supported dtypes" if bad else None


def narrow(
    units: list[UnitFacts], verdicts: Mapping[str, Verdict], view: DeviceView | None
) -> dict[str, Verdict]:
    """Mandatory verdicts keep the dtypes the plugin generates; none left -> skip, saying why.
    Without a view (no device to ask) the verdicts stand as decided."""
    out = dict(verdicts)
    if view is None:
        return out
    for unit in units:
        verdict = verdicts[unit.unit_id]
        if verdict.mode != Mode.mandatory_success:
            continue
        candidates = variants(unit, view.device, verdict.dtypes or None)
        kept, why = [], {}
        for v in candidates:
            reason = _why_not(view.support, v, view.device)
            if reason is None:
                kept.append("_".join(v.dtypes))
            else:
                why[reason] = why.get(reason, 0) + 1
        if candidates and kept:
            if verdict.dtypes and set(kept) != set(verdict.dtypes):
                dropped = sorted(set(verdict.dtypes) - set(kept))
                out[unit.unit_id] = dataclasses.replace(
                    verdict,
                    dtypes=tuple(d for d in verdict.dtypes if d in kept),
                    skipped_dtypes=tuple(sorted(set(verdict.skipped_dtypes) | set(dropped))),
                    rationale=verdict.rationale + f"; the plugin does not generate {', '.join(dropped)} "
                    f"on {view.device}",
                )
            continue
        because = "; ".join(sorted(why)) or "the device generates no variant of it"
        out[unit.unit_id] = Verdict(
            Mode.skip,
            f"the plugin generates no test of it on {view.device}: {because}",
            source=verdict.source,
            evidence=verdict.evidence,
        )
    return out


@dataclass(frozen=True)
class Check:
    """The written config as the plugin sees it."""

    silent_units: tuple[str, ...]  # mandatory units yielding no test
    silent_entries: tuple[str, ...]  # "file:line" of entries selecting nothing


def verify(
    config: str | Path, units: list[UnitFacts], verdicts: Mapping[str, Verdict], view: DeviceView
) -> Check:
    """Load the written config with the plugin (base configs first, as a run would), then ask the
    plugin's ``decide`` about every variant of every mandatory unit."""
    try:
        plan = load_plan([str(s) for s in view.base.sources] + [str(config)], ROOTS)
        # The plugin only warns about names that resolve to nothing; in a config select wrote itself
        # such a name is a bug, so it stays an error here.
        unknown = [p for p in plugin_caps.validate_names(plan, view.known) if p.severity == "warning"]
        support = view.support_with(plan)
    except ConfigError as exc:
        raise SelectError(f"the written config does not load in the plugin: {exc}") from exc
    if unknown:
        raise SelectError(f"the written config does not load in the plugin: {unknown[0]}")
    used: set[Loc] = set()
    silent = []
    plans: dict[str, object] = {}
    for unit in units:
        if verdicts[unit.unit_id].mode != Mode.mandatory_success:
            continue
        if unit.file not in plans:
            path = expand_path(unit.file, ROOTS, os.getcwd(), Loc(str(config), 0))
            plans[unit.file] = plan.file_plan(path)
        fp = plans[unit.file]
        yielded = False
        for v in variants(unit, view.device) if fp is not None else ():
            decision = selection.decide(fp, support, v)
            if decision is not None and decision.mode in YIELDS:
                yielded = True
                used.add(decision.rule_loc)
        if not yielded:
            silent.append(unit.unit_id)
    entries = [
        str(rule.loc)
        for fp in plan.files
        if fp.loc.file == str(config)
        for rule in fp.rules
        if rule.entry.mode == Mode.mandatory_success and rule.loc not in used
    ]
    return Check(tuple(silent), tuple(entries))
