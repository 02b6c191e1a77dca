"""Reuse what was already tested: a leg whose inputs equal a stored green leg's is not run again.

Its result comes from the warehouse (crcr/warehouse/reuse.py), says which run it came from,
and is reported as a normal `completed`; the leg's warehouse row carries no test rows of its
own (the tests did not run again) and names its source. Fails open: a warehouse that cannot be
read means the leg runs. Per dispatch: legs run, legs reused, device-minutes saved.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping, Optional

from crcr.callback_client.errors import KNOWN
from crcr.callback_client.junit import Counts
from crcr.dispatch.plan import Leg
from crcr.dispatch.reuse_key import LegInputs, core_identity
from crcr.handler.runner import LegResult, LegSettings, leg_suites
from crcr.upstream.overlay import overlay_content

REUSE_ENV = "CRCR_REUSE"  # "off": every leg runs (Options.reuse)


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def suite_content(root: Optional[Path], files, missing) -> str:
    """The leg's upstream suite by content: its test files, the modules beside them (what they
    may import from their own directory) and every conftest.py above them up to the checkout
    (pytest loads those), relative to the checkout; "" = none."""
    if root is None or not (files or missing):
        return ""
    h = hashlib.sha256(json.dumps(sorted(missing)).encode())
    dirs = {Path(f).parent for f in files}
    above = {p / "conftest.py" for d in dirs for p in (d, *d.parents) if p.is_relative_to(root)}
    seen = sorted(
        {*map(Path, files), *(p for d in dirs for p in d.glob("*.py")), *(c for c in above if c.is_file())}
    )
    for path in seen:
        h.update(f"\0{path.relative_to(root)}\0{_digest(path)}".encode())
    return h.hexdigest()


def leg_inputs(leg: Leg, how: LegSettings, hooks, selection, pinned: str, core) -> LegInputs:
    """Everything the leg's result depends on (crcr/dispatch/reuse_key.py); `core`: the leg's own
    exactness (hooks.core_for: its test files' import check included), not the run's."""
    setup = hooks.setup
    exactness = core if setup.root else None
    overlay = overlay_content(setup.root, setup.delta) if setup.root and exactness else ""
    suites = leg_suites(leg, how.ws, setup.for_leg(leg)) if setup.root else None
    settings = {
        "runner": how.runner,
        "smoke": how.smoke,
        "select": how.select,
        "template": how.template,
        "target": how.target_template if how.runner == "bazel" else "",
        "feature": leg.feature,
        "shard": [leg.shard_index, leg.shard_total],
    }
    return LegInputs(
        backend=hooks.backend,
        core=_core(exactness, pinned, leg, overlay),
        suite=suite_content(setup.root, suites.upstream, suites.missing) if suites else "",
        configs=tuple((c, _digest(how.ws / c)) for c in leg.configs),
        selection=selection_text(selection),
        settings=json.dumps(settings, sort_keys=True),
    )


def _core(exactness, pinned: str, leg: Leg, overlay: str) -> str:
    """core_identity; "" (no key: the leg runs) when an overlay's files could not be read."""
    if exactness is not None and not overlay:
        return ""
    return core_identity(exactness, pinned, leg.candidate.bazel_config, overlay)


def selection_text(selection) -> str:
    """What the change-aware selection runs, exactly: whole or its tests and files ("" = no selection)."""
    if selection is None:
        return ""
    return json.dumps(
        {"full": selection.full, "tests": sorted(selection.tests), "files": sorted(selection.files)}
    )


@dataclass
class Reuse:
    """One run's reuse: the warehouse it looks in, and its tally."""

    spec: Optional[str]
    env: Mapping[str, str]
    repo: str
    pinned: str  # the pinned wheel's version (the core when there is no upstream)
    ran: int = 0
    reused: int = 0
    saved_s: float = 0.0
    notes: list[str] = field(default_factory=list)  # fail-open lines

    def find(self, inputs: LegInputs):
        """The green source leg for `inputs`, or None (no key, none stored, or a warehouse error)."""
        key = inputs.key()
        if key is None or self.spec is None:
            return None
        from crcr.warehouse.backends import open_warehouse
        from crcr.warehouse.reuse import find_green

        try:
            wh = open_warehouse(self.spec, self.env)
            try:
                return find_green(wh, self.repo, key)
            finally:
                wh.close()
        except KNOWN as err:  # fail open: the leg runs
            self.notes.append(f"reuse: warehouse not read ({str(err)[:160]}): the leg runs")
            return None

    def reused_result(self, key: str, source) -> LegResult:
        self.reused += 1
        self.saved_s += source.seconds
        counts = Counts(source.passed, source.failed, source.skipped)
        return LegResult(
            "success", 0, counts, 0.0, (), (source.line(),), reuse_key=key, reused_from=source.leg_key
        )

    def line(self) -> str:
        """Per dispatch: legs run, legs reused, device-minutes saved."""
        return (
            f"reuse: {self.ran} legs run, {self.reused} reused, {self.saved_s / 60:.1f} device-minutes saved"
        )


def run_or_reuse(leg: Leg, how: LegSettings, hooks, selection, core, run) -> LegResult:
    """`run()` the leg unless a green leg with its exact inputs is stored (`core`: the leg's own
    exactness); the result carries its reuse key so a green one can serve later dispatches."""
    reuse: Optional[Reuse] = getattr(hooks, "reuse", None)
    if reuse is None:
        return run()
    inputs = leg_inputs(leg, how, hooks, selection, reuse.pinned, core)
    source = reuse.find(inputs)
    if source is not None:
        result = replace(reuse.reused_result(inputs.key(), source), core=core)
        return hooks.reused(leg, result)
    reuse.ran += 1
    return replace(run(), reuse_key=inputs.key() or "")
