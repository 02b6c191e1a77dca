"""`select changemap`: build (or refresh) the change -> tests map for the configured legs.

Upstream to record against: `--fixture` (the handler's generated upstream at its base
commit, so the embedded default finds its map), `--upstream-root PATH` (a checkout at the
suite SHA the map will say it covers), or neither (in-tree features only).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Mapping, Optional

from crcr.handler.runner import NO_UPSTREAM, Upstream
from testing.base import flags
from testing.base.cliargs import user_path
from testing.changes.changemap import ChangeMapError, default_map_path, read_map, write_map
from testing.config.features import FeatureError, discover_features
from tools.errors import SelectError
from tools.select.changes.build import build, leg_of


def workspace(env: Mapping[str, str]) -> Path:
    if env.get("BUILD_WORKSPACE_DIRECTORY"):
        return Path(env["BUILD_WORKSPACE_DIRECTORY"])
    here = Path.cwd().resolve()
    return next((d for d in (here, *here.parents) if (d / "WORKSPACE").exists()), here)


def fixture_upstream(state: Path, env: Mapping[str, str]) -> tuple[Upstream, Path]:
    """The generated upstream checked out at its base commit, and its feature configs."""
    from crcr.upstream.fixture import generate
    from crcr.upstream.overlay import wheel_torch_dir, wheel_version
    from crcr.upstream.source import UpstreamSource

    torch_dir = wheel_torch_dir()
    fx = generate(state / "upstream-fixture", torch_dir, wheel_version(torch_dir), env)
    root = UpstreamSource(fx.url, state / "upstream-cache").checkout(fx.base)
    return Upstream(root, fx.base), fx.configs


def root_upstream(root: Path, sha: Optional[str]) -> Upstream:
    from crcr.upstream.gitcmd import UpstreamError, check_sha, git

    if not root.is_dir():
        raise SelectError(f"--upstream-root {root}: not a directory")
    if not sha and (root / ".git").exists():
        sha = git(["rev-parse", "HEAD"], cwd=root, check=False).stdout.strip()
    try:
        return Upstream(root.resolve(), check_sha(sha, "--suite-sha") if sha else "")
    except UpstreamError as err:
        raise SelectError(str(err)) from None


def core_versions() -> tuple[str, str]:
    from crcr.upstream.overlay import wheel_git_version, wheel_torch_dir, wheel_version

    torch_dir = wheel_torch_dir()
    return wheel_version(torch_dir), wheel_git_version(torch_dir) or ""


def cmd_changemap(args) -> int:
    env = dict(os.environ)
    ws = Path(args.repo_root).resolve() if args.repo_root else workspace(env)
    out = Path(args.out) if args.out else default_map_path(env)
    with tempfile.TemporaryDirectory(prefix="changemap-") as tmp:
        upstream, extra = NO_UPSTREAM, [Path(e).resolve() for e in args.extra_configs]
        if args.fixture:
            upstream, configs = fixture_upstream(Path(tmp), env)
            extra.append(configs)
        elif args.upstream_root:
            upstream = root_upstream(Path(args.upstream_root), args.suite_sha)
        try:
            features = discover_features(ws, extra)
        except FeatureError as err:
            raise SelectError(str(err)) from None
        if args.feature:
            unknown = sorted(set(args.feature) - {f.name for f in features})
            if unknown:
                raise SelectError(
                    f"--feature {unknown[0]}: no such feature ({', '.join(f.name for f in features)})"
                )
            features = [f for f in features if f.name in args.feature]
        try:
            previous = None if args.rebuild else read_map(out)
        except ChangeMapError:
            previous = None  # missing or unusable: built whole
        torch_version, git_version = core_versions()
        m, runs = build(
            [leg_of(f, upstream.sha) for f in features],
            ws,
            upstream,
            Path(tmp) / "runs",
            env,
            torch_version=torch_version,
            git_version=git_version,
            memory=Path(args.db) if args.db else None,
            previous=previous,
            progress=lambda msg: print(f"changemap: {msg}", file=sys.stderr),
        )
    write_map(out, m)
    tests = sum(len(f.tests) for f in m.features.values())
    print(
        f"change map: {out}: {len(m.features)} features, {tests} tests, {len(m.functions)} functions, "
        f"ops {'joined' if m.ops_recorded else 'absent (no memory at --db)'}; torch {m.torch_version}, "
        f"suite {m.suite_sha[:12] or 'in-tree'}"
    )
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("changemap", help="stage 2b: the change -> tests map (per-test coverage + aten ops)")
    p.add_argument(
        "--out", type=user_path, help="map file (default: $OOT_CHANGE_MAP, else beside the memory)"
    )
    p.add_argument("--db", type=user_path, help="repository memory whose op index gives each test's aten ops")
    p.add_argument(
        "--repo-root", type=user_path, metavar="DIR", help="repository root (default: the workspace)"
    )
    p.add_argument("--fixture", action="store_true", help="record against the handler's generated upstream")
    flags.upstream_checkout(p)
    p.add_argument("--feature", action="append", default=[], help="only these features (repeatable)")
    p.add_argument("--rebuild", action="store_true", help="ignore the previous map (no reuse)")
    p.set_defaults(func=cmd_changemap)
