"""Reuse what was already tested: a leg whose inputs equal a stored green leg's is not run again.

Its result comes from the warehouse (crcr/warehouse/reuse.py), says which run it came from,
and is reported as a normal `completed`; the leg's warehouse row carries no test rows of its
own (the tests did not run again) and names its source. Fails open: a warehouse that cannot be
read means the leg runs. Per dispatch: legs run, legs reused, device-minutes saved.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional

from crcr.callback_client.errors import KNOWN
from crcr.callback_client.junit import Counts
from crcr.dispatch.plan import Leg
from crcr.dispatch.reuse_key import LegInputs, core_identity
from crcr.handler.runner import LegResult, LegSettings

REUSE_ENV = "CRCR_REUSE"  # "off": every leg runs (Options.reuse)


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def leg_inputs(leg: Leg, how: LegSettings, hooks, selection, pinned: str) -> LegInputs:
    """Everything the leg's result depends on (crcr/dispatch/reuse_key.py)."""
    setup = hooks.setup
    exactness = setup.exactness_for(leg, how.runner) if setup.root else None
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
        core=core_identity(exactness, pinned, leg.candidate.bazel_config),
        suite=setup.sha if setup.root else "",
        configs=tuple((c, _digest(how.ws / c)) for c in leg.configs),
        selection=selection_text(selection),
        settings=json.dumps(settings, sort_keys=True),
    )


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


def run_or_reuse(leg: Leg, how: LegSettings, hooks, selection, run) -> LegResult:
    """`run()` the leg unless a green leg with its exact inputs is stored; the result carries
    its reuse key so a green one can serve later dispatches."""
    reuse: Optional[Reuse] = getattr(hooks, "reuse", None)
    if reuse is None:
        return run()
    inputs = leg_inputs(leg, how, hooks, selection, reuse.pinned)
    source = reuse.find(inputs)
    if source is not None:
        return reuse.reused_result(inputs.key(), source)
    reuse.ran += 1
    from dataclasses import replace

    return replace(run(), reuse_key=inputs.key() or "")
