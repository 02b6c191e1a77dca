"""End to end on the device: generate a config, run it through the plugin, refine once, run
again, and check that no mandatory_success test fails.

    tools/bazel run //tools/select:e2e -- [--db MEMORY] [--workdir DIR] [--capabilities SRC]
                                          [--upstream-root CHECKOUT --files 'test/test_view_ops.py' ...]

Heavy (two full runs of the in-tree suites on spyre plus a memory build): manual only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from testing.base import flags
from testing.base.cliargs import Parser, user_path
from testing.base.command import command
from testing.config import runs
from testing.config.modes import Mode
from tools.select.bucket import bucket, generation
from tools.select.bucket.engines import DeterministicEngine
from tools.select.common import capabilities
from tools.select.memory.memory import MemoryBuilder, SourceRoot, TracePlan
from tools.select.memory.store import Memory
from tools.select.refine import refine, results
from tools.select.scope import scope


def workspace() -> Path:
    return Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd())


def run_plugin(
    configs: list[Path], out: Path, timeout: float, targets: list[str], upstream: Path | None
) -> dict:
    """The plugin over the target files; returns its JSON summary."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = runs.PytestCommand(
        paths=targets,
        plugins=[runs.PLUGIN],
        configs=[str(c) for c in configs],
        quiet=True,
        cache=False,
        upstream_root=None if upstream is None else str(upstream),
        rootdir=str(workspace()),
        junitxml=str(out / "junit.xml"),
        summary=str(out / "summary.json"),
        timeout=timeout,
    ).argv()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    with open(out / "log.txt", "w") as log:
        subprocess.run(cmd, cwd=workspace(), env=env, stdout=log, stderr=subprocess.STDOUT)
    return json.loads((out / "summary.json").read_text())


def mandatory_failures(summary: dict) -> int:
    counts = summary["by_bucket"].get(Mode.mandatory_success, {})
    return sum(n for outcome, n in counts.items() if outcome in ("failed", "error", "crashed"))


def units_without_test(units, verdicts, cases, device: str) -> list[str]:
    """Mandatory units none of whose device variants appears among the run's results."""
    ran = {(c.cls, c.variant) for c in cases}
    return [
        u.unit_id
        for u in units
        if verdicts[u.unit_id].mode == Mode.mandatory_success
        and not any((v.cls, v.name) in ran for v in generation.variants(u, device))
    ]


@command("e2e")
def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="e2e", description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="memory to reuse (default: build one in the workdir)")
    parser.add_argument("--workdir", help="where configs and results go (default: a temp dir)")
    parser.add_argument("--capabilities", default="backend:torch_spyre")
    parser.add_argument("--timeout", type=float, default=120.0, help="per-test timeout in the runs")
    flags.upstream_root(parser, help="a PyTorch checkout: run its --files instead of testing/suites")
    parser.add_argument(
        "--files", action="append", default=[], help="test files under --upstream-root (repeatable)"
    )
    args = parser.parse_args(argv)
    work = user_path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="select-e2e-"))
    caps = capabilities.load(args.capabilities)
    out = scope.out_features(scope.load_scope(Path(__file__).with_name("scope.example.yaml")), caps)
    upstream = user_path(args.upstream_root).resolve() if args.upstream_root else None
    if upstream is not None:
        roots = [SourceRoot("${TORCH_ROOT}", upstream, f) for f in args.files]
        targets = [str(upstream / f) for f in args.files]
    else:
        roots, targets = (
            [SourceRoot("${REPO_ROOT}", workspace(), "testing/suites/test_*.py")],
            ["testing/suites"],
        )
    device = workspace() / "configs" / "spyre" / "device.yaml"
    view = generation.device_view(caps, [device])
    with Memory(user_path(args.db) if args.db else work / "memory.db") as memory:
        stats = MemoryBuilder(
            memory, progress=sys.stderr.isatty(), plan=TracePlan.for_device(caps, out)
        ).build(roots)
        print(f"memory: {stats.line()}")
        units, verdicts = bucket.run(memory, caps, DeterministicEngine(), out, view=view)
    config = work / "spyre.generated.yaml"
    verdicts, check = bucket.write_checked(
        config, units, verdicts, caps, "torch_spyre", "deterministic", view
    )
    mandatory = sum(v.mode == Mode.mandatory_success for v in verdicts.values())
    first = run_plugin([device, config], work / "run1", args.timeout, targets, upstream)
    cases = results.read_junit(work / "run1" / "junit.xml")
    silent = units_without_test(units, verdicts, cases, caps.device)
    refinement = refine.refine([config], cases, source="run1/junit.xml")
    refinement.write()
    second = run_plugin([device, config], work / "run2", args.timeout, targets, upstream)
    print(
        f"generated: {len(units)} units, {mandatory} mandatory_success "
        f"({len(check.silent_units)} demoted by the plugin check); {len(silent)} mandatory units yield no test in run 1"
    )
    print(f"run 1: {first['counts']} ({mandatory_failures(first)} mandatory_success failures)")
    print(
        f"refined once: {len(refinement.proposals)} proposals; run 2: {second['counts']} "
        f"({mandatory_failures(second)} mandatory_success failures); files in {work}"
    )
    (work / "silent_units.txt").write_text("".join(f"{u}\n" for u in silent))
    return 1 if mandatory_failures(second) or silent else 0


if __name__ == "__main__":
    sys.exit(main())
