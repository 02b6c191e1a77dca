"""Glue for pytest_configure: pick the adapter, compile the config, hand the runtime to
the patches (instantiate.Adapter) and keep what the report says about it.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from testing.plugin.native import choice as choices
from testing.plugin.native.compile import (
    NATIVE,
    PATCHED,
    NativePlan,
    compile_plan,
    has_dtype_rules,
    native_errors,
)

if TYPE_CHECKING:  # capabilities loads only when op names are resolved
    from testing.plugin.device_support import LazyMapping

CDT = "torch.testing._internal.common_device_type"


def _core_source() -> str:
    """common_device_type's source, read without importing it (importing costs seconds;
    the runtime checks the API again when torch loads it)."""
    spec = importlib.util.find_spec(CDT)
    try:
        return open(spec.origin, encoding="utf-8").read() if spec and spec.origin else ""
    except OSError:
        return ""


def probe_api(text: Optional[str] = None) -> Optional[str]:
    """What of the native API the installed core lacks (None: all of it)."""
    text = _core_source() if text is None else text
    lacking = [n for n in ("def set_test_configs", "bypass_device_restrictions") if n not in text]
    return ", ".join(n.removeprefix("def ") for n in lacking) if lacking else None


def dtype_form(plan, missing: Optional[str]) -> bool:
    """Does the core take pytorch main's {"T": {"test_x": {"dtypes": [...]}}} test_exclusions
    (2.13.0: lists and '*' only)? Asked of the core itself (runtime.probe_dtype_exclusions), and
    only when a config has a skip entry that form could say: the probe imports torch's helpers."""
    if missing or not has_dtype_rules(plan):
        return False
    import torch.testing._internal.common_device_type as cdt

    from testing.plugin.native.runtime import probe_dtype_exclusions

    return probe_dtype_exclusions(cdt)


def op_keys(index_fn) -> LazyMapping:
    """full_name -> names a config may use for it, built from the op index on first use
    (op_db loads only when a rule needs op names resolved)."""

    @functools.cache
    def load() -> dict[str, tuple[str, ...]]:
        index = index_fn()
        keys: dict[str, set[str]] = {f: {f} for f in index.full_names}
        for table in (index.by_name, index.by_alias, index.by_aten):
            for name, fulls in table.items():
                for f in fulls:
                    keys.setdefault(f, {f}).add(name)
        return {f: tuple(sorted(v)) for f, v in keys.items()}

    from testing.plugin.device_support import LazyMapping

    return LazyMapping(load)


@dataclass
class AdapterReport:
    """What the summary and the JSON report say about the adapter."""

    choice: choices.Choice
    native: NativePlan

    def rows(self, runtime: Any = None) -> list[dict]:
        """Every rule: the static decision, corrected by what happened at generation time
        (a native rule some of whose variants our patches had to take)."""
        applied = getattr(runtime, "applied", {}) if self.choice.native else {}
        out = []
        for r in self.native.rows:
            row = r.as_json()
            if not self.choice.native and r.way == NATIVE:
                row.update(
                    way=PATCHED, setting="patch", why=f"adapter: {self.choice.used} ({r.setting} not used)"
                )
            seen = applied.get(r.rule)
            if row["way"] == NATIVE and seen and seen.get("patched"):
                row.update(
                    way=PATCHED,
                    why=f"{r.why}; {seen['patched']} variants patched at generation (variant names, "
                    f"plain tests or a more specific entry), {seen.get('native', 0)} native",
                )
            out.append(row)
        return out

    def as_json(self, runtime: Any = None) -> dict:
        rows = self.rows(runtime)
        return {
            "requested": self.choice.requested,
            "used": self.choice.used,
            "line": self.choice.line,
            "counts": {w: sum(1 for r in rows if r["way"] == w) for w in (NATIVE, PATCHED)},
            "op_allowlist": len(self.native.op_allowlist) if self.native.op_allowlist is not None else None,
            "rules": rows,
        }


def configure(plan, support, known, groups, option: Optional[str], compat: Optional[str], device: str):
    """-> (AdapterReport, NativeRuntime or None). ValueError: a bad adapter name or, under
    adapter: native, the rules it cannot express (one line each)."""
    asked = choices.requested(option, plan.setting("adapter"))
    keys = op_keys(lambda: known.op_index(groups))
    text = _core_source()
    missing = probe_api(text)
    native = compile_plan(plan, support, keys, compat, asked != "patch" and dtype_form(plan, missing))
    import torch

    choice = choices.choose(asked, missing, torch.__version__)
    if asked == "native" and choice.native:
        errors = native_errors(native)
        if errors:
            raise ValueError("\n".join(errors))
    report = AdapterReport(choice, native)
    if not choice.native:
        return report, None
    from testing.plugin.native.runtime import NativeRuntime

    return report, NativeRuntime(native, device, report=report)
