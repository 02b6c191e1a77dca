"""Core exactness over an upstream history, measured in one run: for each first-parent commit
of a range, the base wheel it resolves to and whether a leg there would be exact, through the
pinned wheel alone and through the nearest nightly of an index (else the pinned wheel); then
what resolving costs: the nightly downloaded, hash-checked and unpacked into an empty cache
(cold) against the same resolution from the cache (warm).

"Exact" here is decided by the core diff alone (no native file in base..commit), as the
handler's first step decides it; the overlaid core's import check is not run per commit.

    tools/bazel run //tools/bench:core_exactness          # the generated upstream and its index
    tools/bazel run //tools/bench:core_exactness -- --upstream-root ~/pytorch \\
        --range <old>..<new> --index <simple index URL or find-links dir> --pinned-base <sha>
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Optional

from rich.console import Console
from rich.table import Table

from crcr.upstream.core_index import Nightly, nearest, nightly_sources, pair
from crcr.upstream.core_wheel import unpack
from crcr.upstream.gitcmd import check_sha, git
from crcr.upstream.nightly import listing
from crcr.upstream.overlay import is_native
from crcr.upstream.wheel_cache import fetch
from testing.base.cliargs import Parser, user_path
from testing.base.command import command
from testing.base.errors import ConfigError

SHOWN = 40  # commits listed one per row; the shares count them all


def _git(root: Path, *args: str) -> str:
    return git(list(args), cwd=root).stdout


def first_parents(root: Path, new: str, old: str, extra: int) -> tuple[list[str], list[str]]:
    """(the range old..new on the first-parent line, oldest first; new's chain, newest first,
    reaching `extra` commits below old so an older nightly can still be found)."""
    rng = _git(root, "rev-list", "--first-parent", f"{old}..{new}").split()
    chain = _git(root, "rev-list", "--first-parent", f"--max-count={len(rng) + extra}", new).split()
    return rng[::-1], chain


def native_between(root: Path, base: str, sha: str) -> int:
    names = _git(root, "diff", "--name-only", "--no-renames", base, sha).split("\n")
    return sum(1 for n in names if n and is_native(n))


def measure(root: Path, commits: list[str], chain: list[str], nightlies: list[Nightly], pinned: str):
    """Per commit: (sha, native on the pinned wheel, nightly or None, native on the resolved base)."""
    rows = []
    for sha in commits:
        on_pinned = native_between(root, pinned, sha)
        n = nearest(nightlies, chain[chain.index(sha) :])
        rows.append((sha, on_pinned, n, native_between(root, n.source, sha) if n else on_pinned))
    return rows


def cost(n: Nightly, tmp: Path) -> tuple[float, float, int]:
    """(cold, warm) seconds to have the nightly's torch/ unpacked: download + sha256 + unpack
    into an empty cache, then the same call again; and the wheel's size in bytes."""
    cache = tmp / "core-cache"
    times = []
    for _ in range(2):
        t = time.monotonic()
        wheel, _ = fetch(n.location, n.sha256, cache, n.file)
        unpack(wheel, cache, n.sha256)
        times.append(time.monotonic() - t)
    return times[0], times[1], wheel.stat().st_size


def report(console: Console, rows, costs: Optional[tuple[Nightly, float, float]], listed: int) -> None:
    table = Table(
        title=f"core exactness per first-parent commit (first {min(SHOWN, len(rows))} of {len(rows)})"
    )
    for col in ("commit", "pinned wheel", "nearest nightly", "resolved"):
        table.add_column(col)
    for sha, on_pinned, n, on_resolved in rows[:SHOWN]:
        table.add_row(
            sha[:12],
            "exact" if not on_pinned else f"inexact ({on_pinned} native)",
            f"{n.version} @ {n.source[:12]}" if n else "none at or before",
            "exact" if not on_resolved else f"inexact ({on_resolved} native)",
        )
    console.print(table)
    total = len(rows)
    pinned = sum(1 for r in rows if not r[1])
    resolved = sum(1 for r in rows if not r[3])
    through = sum(1 for r in rows if r[2] is not None)
    used = Counter(r[2].file for r in rows if r[2] is not None)
    console.print(
        f"commits: {total}; nightlies listed (installable here): {listed}; {len(used)} of them used"
    )
    console.print(f"exact through the pinned wheel alone: {pinned}/{total} = {pinned / total:.1%}")
    console.print(
        f"exact through the nearest nightly (else the pinned wheel): {resolved}/{total} = {resolved / total:.1%}"
        f" ({through} commits had a nightly at or before them)"
    )
    if costs:
        n, cold, warm, size = costs
        console.print(
            f"resolution cost of {n.file} ({size / 1e6:.0f} MB): cold (download + sha256 + unpack) "
            f"{cold:.2f} s, warm (cache) {warm * 1000:.2f} ms, cold/warm = {cold / max(warm, 1e-6):.0f}x"
        )


def fixture_inputs(tmp: Path) -> tuple[Path, str, str, str]:
    """(the generated upstream's git dir, range, index, pinned base)."""
    from crcr.upstream.fixture import generate
    from crcr.upstream.overlay import wheel_torch_dir, wheel_version

    torch_dir = wheel_torch_dir()
    fx = generate(
        tmp / "upstream-fixture", torch_dir, wheel_version(torch_dir), dict(os.environ), nightlies=True
    )
    bare = Path(fx.url.removeprefix("file://"))
    return bare, f"{fx.base}..{fx.head}", str(fx.index), fx.base


def _range(text: str, root: Path) -> tuple[str, str]:
    old, sep, new = text.partition("..")
    if not sep:
        raise ConfigError(f"--range {text}: expected <old>..<new>")
    return tuple(_git(root, "rev-parse", "--verify", f"{r}^{{commit}}").strip() for r in (old, new))


@command("core_exactness", prefix="core_exactness: ")
def paired(root: Path, nightlies: list[Nightly]) -> list[Nightly]:
    """An index without a map (PyTorch's own): each wheel placed on main through the checkout's
    `nightly` branch (its local branch, else origin's), as the handler pairs them."""
    if all(n.source for n in nightlies):
        return nightlies
    for ref in ("nightly", "origin/nightly"):
        r = git(["log", "--format=%s", "-n", "4096", ref, "--"], cwd=root, check=False)
        if r.returncode == 0:
            found = pair(nightlies, nightly_sources(r.stdout.splitlines()))
            if found:
                return found
    raise ConfigError(
        f"{root}: the index has no nightly-map.json and no nightly branch here names its wheels' days "
        "(fetch pytorch's `nightly` branch into the checkout)"
    )


def main(argv: Optional[list[str]] = None) -> int:
    p = Parser(prog="core_exactness", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--upstream-root", type=user_path, help="a pytorch git checkout (default: the generated upstream)"
    )
    p.add_argument("--range", help="<old>..<new> first-parent commits (default: the fixture's base..head)")
    p.add_argument("--index", help="--core-index: a PEP 503 simple index URL or a find-links directory")
    p.add_argument("--pinned-base", help="the commit the pinned wheel was built from (its git_version)")
    p.add_argument("--no-cost", action="store_true", help="skip the cold/warm download measurement")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="core_exactness.") as t:
        tmp = Path(t)
        if a.upstream_root is None:
            root, rng, index, pinned = fixture_inputs(tmp)
        else:
            if not (a.range and a.index and a.pinned_base):
                raise ConfigError("--upstream-root needs --range, --index and --pinned-base")
            root, rng, index, pinned = (
                a.upstream_root,
                a.range,
                a.index,
                check_sha(a.pinned_base, "--pinned-base"),
            )
        old, new = _range(a.range or rng, root)
        nightlies = paired(root, listing(a.index or index))
        commits, chain = first_parents(root, new, old, 4096)
        if not commits:
            raise ConfigError(f"--range {old[:12]}..{new[:12]}: no first-parent commits")
        rows = measure(root, commits, chain, nightlies, a.pinned_base or pinned)
        used = Counter(r[2] for r in rows if r[2] is not None).most_common(1)
        costs = None
        if used and not a.no_cost:
            n = used[0][0]
            costs = (n, *cost(n, tmp))
        report(Console(width=120), rows, costs, len(nightlies))
    return 0


if __name__ == "__main__":
    sys.exit(main())
