"""Glue: a leg's capability bucket, from the plugin's summaries into the leg's notes.

The plugin counts tests skipped because the device answered a capability of upstream's
capability gating unsupported (testing/plugin/gating.py) under ``capability_skipped`` in its
summary, apart from config skips. The leg carries the same count, and one note line per
capability (``skipped: capability dtype.fp8 unsupported: 1 test(s)``), so the handler's output,
the results JSON and the HUD say why those tests did not run without reading the JUnit.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from crcr.handler.runner import LegResult, read_summary


def capability_skipped(result: LegResult) -> dict[str, int]:
    """capability -> tests skipped for it, over the leg's summaries (one per JUnit)."""
    found: Counter = Counter()
    for junit in result.junit:
        found.update(read_summary(junit).get("capability_skipped", {}))
    return dict(sorted(found.items()))


def note_capability_skips(result: LegResult) -> LegResult:
    """The bucket's lines into the notes (the conclusion is the tests' own: a skip is no failure)."""
    from testing.plugin.reporting import capability_lines  # the plugin's wording; pytest loads only here

    lines = capability_lines({"capability_skipped": capability_skipped(result)})
    return replace(result, notes=result.notes + tuple(lines)) if lines else result
