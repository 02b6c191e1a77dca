"""The nearest nightly for a SHA: from a `--core-index`, the installable torch nightly built
from the nearest first-parent ancestor of the SHA (the SHA itself first), downloaded once into
the content cache and checked twice: its sha256 against the index, its git_version against
the commit the index pairs it with (the commit itself, or a `nightly` branch commit whose
subject names it in parentheses, downstream-practice.md §1).

Every refusal is one line (NoNightly); the caller falls back to the next source and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crcr.upstream.core_index import IndexUnusable, Nightly, installable, nearest, read_index, shown
from crcr.upstream.core_wheel import wheel_commit
from crcr.upstream.gitcmd import UpstreamError
from crcr.upstream.source import HISTORY_DEPTHS, UpstreamSource
from crcr.upstream.wheel_cache import WheelRejected, fetch
from testing.base.errors import ConfigError, OotError


class NoNightly(OotError):
    """No nightly core for this SHA (one line, naming the index)."""


@dataclass(frozen=True)
class Resolved:
    nightly: Nightly
    wheel: Path  # the cached, hash-checked wheel
    warm: bool  # it was in the cache already (no download)

    @property
    def base(self) -> str:
        return self.nightly.source

    @property
    def origin(self) -> str:
        return f"nightly {self.nightly.version}"


def listing(spec: str) -> list[Nightly]:
    """The index's nightlies this interpreter can install (read once per run)."""
    try:
        found = installable(read_index(spec))
    except IndexUnusable as err:
        raise NoNightly(str(err)) from None
    if not found:
        raise NoNightly(f"{shown(spec)}: lists no torch nightly installable by this interpreter")
    return found


def choose(nightlies: list[Nightly], source: UpstreamSource, sha: str, spec: str) -> Nightly:
    """The nightly of the nearest first-parent ancestor of `sha`, deepening the history in steps."""
    for depth in HISTORY_DEPTHS:
        try:
            chain = source.first_parents(sha, depth)
        except UpstreamError as err:
            raise NoNightly(f"{shown(spec)}: {sha[:12]} is not in {source.url} ({err})") from None
        pick = nearest(nightlies, chain)
        if pick is not None:
            return pick
        if len(chain) < depth:  # the whole mainline seen
            break
    raise NoNightly(
        f"{shown(spec)}: no nightly at or before {sha[:12]} on its first-parent line "
        f"({len(nightlies)} listed, {len(chain)} commits searched)"
    )


def resolve(spec: str, nightlies: list[Nightly], source: UpstreamSource, sha: str, cache: Path) -> Resolved:
    """The nearest nightly for `sha`, downloaded (or found) in the content cache and checked."""
    pick = choose(nightlies, source, sha, spec)
    try:
        wheel, warm = fetch(pick.location, pick.sha256, cache, pick.file)
        commit = wheel_commit(wheel, f"{shown(spec)}: {pick.file}")
    except (WheelRejected, ConfigError) as err:
        raise NoNightly(f"{shown(spec)}: {err}" if "--core-index" not in str(err) else str(err)) from None
    if commit != pick.source and f"({pick.source})" not in (source.subject(commit) or ""):
        raise NoNightly(
            f"{shown(spec)}: {pick.file}: git_version {commit[:12]} is neither {pick.source[:12]} "
            "(the index's source commit) nor a nightly commit naming it"
        )
    return Resolved(pick, wheel, warm)
