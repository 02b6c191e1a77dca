"""Which wheel a core at a SHA is built on, in the issue's order, for the run's SHA and every
bisection midpoint alike:

1. `--core-wheel PATH|URL`: when its git_version is the SHA or an ancestor of it;
2. the nearest nightly of `--core-index` (crcr/upstream/nightly.py);
3. the pinned wheel (its base: `--core-base`, the fixture's base, else its own git_version).

A source that cannot serve the SHA gives way to the next with one line saying why (the
`fallback`, carried into the leg's exactness and printed once). Only the run's own SHA
refuses a `--core-wheel` outright (a wheel for another history is a mistake to stop on);
a bisection midpoint older than that wheel just resolves further down the list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from crcr.upstream.core_index import MAP_FILE, Nightly, nightly_sources, pair, shown
from crcr.upstream.core_wheel import unpack
from crcr.upstream.exactness import PINNED
from crcr.upstream.gitcmd import UpstreamError
from crcr.upstream.nightly import NoNightly, listing, resolve
from crcr.upstream.source import UpstreamSource

CORE_WHEEL = "--core-wheel"
NIGHTLY_DEPTH = 400  # nightly-branch commits read to pair a map-less index's wheels (a year and more)


@dataclass(frozen=True)
class CoreBase:
    base: Optional[str]  # the commit the base wheel was built from (None: the wheel's own git_version)
    wheel_dir: Optional[Path]  # the unpacked wheel holding torch/ (None: the interpreter's torch)
    origin: str  # pinned wheel | nightly <version> | --core-wheel
    fallback: str = ""  # why a preferred source was not used ("" = none was skipped)


@dataclass
class CoreResolver:
    source: UpstreamSource
    cache: Path  # the core cache: wheels by content and their unpacked trees
    pinned_base: Optional[str] = None
    wheel: Optional[Path] = None  # the --core-wheel file (a URL one downloaded already)
    wheel_commit: str = ""
    index: str = ""  # --core-index ("" = none)
    _nightlies: Optional[list[Nightly]] = field(default=None, repr=False)
    _index_error: str = field(default="", repr=False)
    _wheel_tree: Optional[Path] = field(default=None, repr=False)
    warm: list[bool] = field(default_factory=list)  # per nightly resolution: found in the cache

    def nightlies(self) -> list[Nightly]:
        """The index, read once per run (an unusable one: NoNightly, every time, same line);
        wheels no map places are paired through the `nightly` branch (core_index.pair)."""
        if self._index_error:
            raise NoNightly(self._index_error)
        if self._nightlies is None:
            try:
                self._nightlies = self._paired(listing(self.index))
            except NoNightly as err:
                self._index_error = str(err)
                raise
        return self._nightlies

    def _paired(self, found: list[Nightly]) -> list[Nightly]:
        if all(n.source for n in found):
            return found
        try:
            subjects = self.source.nightly_subjects(NIGHTLY_DEPTH)
        except UpstreamError as err:
            raise NoNightly(
                f"{shown(self.index)}: no {MAP_FILE}, and no nightly branch to pair its wheels ({err})"
            ) from None
        paired = pair(found, nightly_sources(subjects))
        if not paired:
            raise NoNightly(
                f"{shown(self.index)}: no {MAP_FILE}, and the nightly branch's newest {len(subjects)} commits "
                f"name the day of none of its {len(found)} wheels"
            )
        return paired

    def at(self, sha: str) -> CoreBase:
        skipped = []
        if self.wheel is not None:
            try:
                if self.source.is_ancestor(self.wheel_commit, sha):
                    if self._wheel_tree is None:  # hashed and unpacked once per run, not per midpoint
                        self._wheel_tree = unpack(self.wheel, self.cache)
                    return CoreBase(self.wheel_commit, self._wheel_tree, CORE_WHEEL)
            except UpstreamError:
                pass
            skipped.append(f"{CORE_WHEEL} at {self.wheel_commit[:12]} is not an ancestor of {sha[:12]}")
        if self.index:
            try:
                got = resolve(self.index, self.nightlies(), self.source, sha, self.cache)
            except NoNightly as err:
                skipped.append(str(err))
            else:
                self.warm.append(got.warm)
                tree = unpack(got.wheel, self.cache, got.nightly.sha256)  # no re-hashing per midpoint
                return CoreBase(got.base, tree, got.origin, _joined(skipped, got.origin))
        return CoreBase(self.pinned_base, None, PINNED, _joined(skipped, f"the {PINNED}"))


def _joined(skipped: list[str], then: str = "") -> str:
    if not skipped:
        return ""
    return "; ".join(skipped) + (f"; falling back to {then}" if then else "")
