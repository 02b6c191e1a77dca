"""Pure: how exact the core a leg ran on is, as one typed value computed once per leg.

- `exact`: the base wheel's commit is the SHA, or a Python-only overlay whose core imports;
- `inexact`: native files changed in base..SHA were not applied (count and list), or the
  overlaid core fails to import (the failing import named);
- `unresolved`: no core diff could be made (no base commit, no upstream history): we do not
  know what the leg ran against.

Every surface (the leg's results JSON, the summary table, the callback's conclusion and
verdict, the HUD cell, the warehouse's core column) reads this one value, so they cannot
disagree. `untested` is the part that decides a conclusion: the native files of the
dispatched change itself (the PR's diff, the pushed range) that the core did not apply.
A leg with any is `neutral`, never `success`: its change never ran.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Sequence

from crcr.upstream.overlay import CoreDelta, is_native

EXACT, INEXACT, UNRESOLVED = "exact", "inexact", "unresolved"
PINNED = "pinned wheel"  # the base wheel when neither --core-wheel nor a nightly serves the SHA
SHOWN = 3  # files named in one line; the results JSON carries them all


def _files(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:SHOWN])
    return shown + (f", +{len(paths) - SHOWN} more" if len(paths) > SHOWN else "")


@dataclass(frozen=True)
class Exactness:
    state: str  # exact | inexact | unresolved
    base: str = ""  # the commit of the wheel the core was built from ("" = unknown)
    sha: str = ""  # the dispatched commit
    native: tuple[str, ...] = ()  # native files in base..sha not applied
    failed_import: str = ""  # the overlaid core's import error, when the overlay caused one
    untested: tuple[str, ...] = ()  # native files of the dispatched change not applied
    reason: str = ""  # why unresolved (or what the base is)
    origin: str = PINNED  # the base wheel: pinned wheel | nightly <version> | --core-wheel
    fallback: str = ""  # why a preferred base (--core-wheel, the nearest nightly) was not used
    no_overlay: bool = False  # the runner ran the pinned wheel as is (the bazel runner's runfiles)
    # every native file of the dispatched change, applied or not (None: the change is unknown):
    # what a runner that applies nothing (the bazel runner) leaves untested
    dispatched_native: Optional[tuple[str, ...]] = None

    @property
    def exact(self) -> bool:
        return self.state == EXACT

    def cell(self) -> str:
        """Short, for a table column or a HUD cell."""
        if self.state == INEXACT:
            gap = ["no overlay"] if self.no_overlay else []
            gap += [f"{len(self.native)} native not applied"] if self.native else []
            gap += ["import fails"] if self.failed_import else []
            return f"inexact ({', '.join(self._via() + gap)})"
        return f"{self.state} ({self._via()[0]})" if self._via() else self.state

    def _via(self) -> list[str]:
        """The base wheel for a cell, when it is not the pinned one."""
        return [] if self.origin == PINNED else [self.origin.split(" ", 1)[0]]

    def untested_line(self) -> str:
        """The reason a leg is neutral ("" when its change ran)."""
        if not self.untested:
            return ""
        return f"core: native change not tested ({len(self.untested)} files: {_files(self.untested)})"

    def gap_line(self) -> str:
        """What the core lacks, for a verdict's summary ("" on an exact core)."""
        if self.state == EXACT:
            return ""
        if self.state == UNRESOLVED:
            return f"core unresolved ({self.reason})"
        parts = []
        if self.no_overlay:
            parts.append("the bazel runner ran the pinned wheel in its runfiles, no overlay applied")
        if self.native:
            parts.append(f"{len(self.native)} native files not applied: {_files(self.native)}")
        if self.failed_import:
            parts.append(f"the overlaid core fails to import: {self.failed_import}")
        return "core inexact: " + "; ".join(parts)

    def line(self) -> str:
        """The leg's `core:` note."""
        at = f"{self.base[:12]}..{self.sha[:12]}" if self.base and self.sha else ""
        if self.state == EXACT:
            return f"core: exact ({self.reason})" if self.reason else f"core: exact at {self.sha[:12]}"
        if self.state == UNRESOLVED:
            return f"core: unresolved ({self.reason})"
        if self.no_overlay:
            return f"core: inexact at {self.sha[:12]}: {self.gap_line()[len('core inexact: ') :]}"
        via = "" if self.origin == PINNED else f" ({self.origin})"
        return f"core: inexact{via} at {at}: " + self.gap_line()[len("core inexact: ") :]

    def conclusion(self, conclusion: str) -> str:
        """A success whose dispatched native change never ran is not a success."""
        return "neutral" if conclusion == "success" and self.untested else conclusion

    def with_import_failure(self, error: str) -> "Exactness":
        return replace(self, state=INEXACT, failed_import=error)

    def without_overlay(self) -> "Exactness":
        """The same core as a runner that applies no overlay and no other base sees it: the
        pinned wheel as is. Exact only when that wheel is at the SHA with nothing to lay over it.
        The dispatched change's native files are then untested even where the run's base wheel
        (a --core-wheel built at the SHA, a nightly past them) holds them: that wheel never ran."""
        if self.state == EXACT and self.origin == PINNED and self.base == self.sha:
            return self
        if self.state == UNRESOLVED:
            return self
        untested = self.untested if self.dispatched_native is None else self.dispatched_native
        return replace(self, state=INEXACT, origin=PINNED, no_overlay=True, untested=untested)

    def based_on(self, origin: str, fallback: str) -> "Exactness":
        """The same, naming the base wheel it was resolved to (and why a preferred one was not)."""
        reason = self.reason
        if self.state == EXACT and origin != PINNED and reason.startswith("wheel at "):
            reason = origin + reason[len("wheel") :]
        return replace(self, origin=origin, fallback=fallback, reason=reason)

    def as_json(self) -> dict:
        return {
            "state": self.state,
            "base": self.base,
            "sha": self.sha,
            "native_not_applied": list(self.native),
            "native_not_applied_count": len(self.native),
            "failed_import": self.failed_import,
            "dispatched_native_not_tested": list(self.untested),
            "reason": self.reason,
            "base_wheel": self.origin,
            "fallback": self.fallback,
            "no_overlay": self.no_overlay,
            "line": self.line(),
        }


def derive(delta: Optional[CoreDelta], dispatched: Optional[Sequence[str]], note: str = "") -> Exactness:
    """From the core delta (None: none could be made, `note` says why) and the dispatched
    change's paths (None: unknown, so every unapplied native file counts as the change's)."""
    native = None if dispatched is None else tuple(sorted(p for p in dispatched if is_native(p)))
    if delta is None:
        reason = note.removeprefix("core: ") or "no core diff"
        return Exactness(UNRESOLVED, untested=native or (), reason=reason, dispatched_native=native)
    missing = set(delta.native)
    mine = missing if dispatched is None else {p for p in dispatched if p in missing}
    state = INEXACT if delta.native else EXACT
    reason = "" if delta.native else _exact_reason(delta)
    return Exactness(
        state, delta.base, delta.sha, delta.native, "", tuple(sorted(mine)), reason, dispatched_native=native
    )


def _exact_reason(delta: CoreDelta) -> str:
    if delta.base == delta.sha or not delta.python:
        return f"wheel at {delta.base[:12]}, no core change to {delta.sha[:12]}"
    return f"wheel at {delta.base[:12]} + {len(delta.python)} python files at {delta.sha[:12]}"
