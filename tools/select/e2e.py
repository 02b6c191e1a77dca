"""End to end on the device: generate a config, run it through the plugin, refine once, run
again, and check that no mandatory_success test fails.

    tools/bazel run //tools/select:e2e -- [--db MEMORY] [--workdir DIR] [--capabilities SRC]

Heavy (two full runs of the in-tree suites on spyre plus a memory build): manual only.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.select import bucket, capabilities, refine, results, scope
from tools.select.engines import DeterministicEngine
from tools.select.memory import MemoryBuilder, SourceRoot
from tools.select.store import Memory


def workspace() -> Path:
    return Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd())


def run_plugin(configs: list[Path], out: Path, timeout: float) -> dict:
    """The plugin over testing/suites; returns its JSON summary."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pytest", "-p", "testing.plugin", "-p", "no:cacheprovider", "-q",
           "--rootdir", str(workspace()), "--oot-timeout", str(timeout),
           "--junitxml", str(out / "junit.xml"), "--oot-summary", str(out / "summary.json")]
    for config in configs:
        cmd += ["--config", str(config)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    with open(out / "log.txt", "w") as log:
        subprocess.run(cmd + ["testing/suites"], cwd=workspace(), env=env, stdout=log, stderr=subprocess.STDOUT)
    return json.loads((out / "summary.json").read_text())


def mandatory_failures(summary: dict) -> int:
    counts = summary["by_bucket"].get("mandatory_success", {})
    return sum(n for outcome, n in counts.items() if outcome in ("failed", "error", "crashed"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="memory to reuse (default: build one in the workdir)")
    parser.add_argument("--workdir", help="where configs and results go (default: a temp dir)")
    parser.add_argument("--capabilities", default="backend:torch_spyre")
    parser.add_argument("--timeout", type=float, default=120.0, help="per-test timeout in the runs")
    args = parser.parse_args(argv)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="select-e2e-"))
    caps = capabilities.load(args.capabilities)
    out = scope.out_features(scope.load_scope(Path(__file__).with_name("scope.example.yaml")), caps)
    with Memory(args.db or work / "memory.db") as memory:
        MemoryBuilder(memory, progress=sys.stderr.isatty()).build(
            [SourceRoot("${REPO_ROOT}", workspace(), "testing/suites/test_*.py")])
        units, verdicts = bucket.run(memory, caps, DeterministicEngine(), out)
    config = work / "spyre.generated.yaml"
    bucket.write_config(config, units, verdicts, caps, "torch_spyre", "deterministic")
    device = workspace() / "configs" / "spyre" / "device.yaml"
    first = run_plugin([device, config], work / "run1", args.timeout)
    cases = results.read_junit(work / "run1" / "junit.xml")
    refinement = refine.refine([config], cases, source="run1/junit.xml")
    refinement.write()
    second = run_plugin([device, config], work / "run2", args.timeout)
    print(f"generated: {len(units)} units; run 1: {first['counts']} "
          f"({mandatory_failures(first)} mandatory_success failures)")
    print(f"refined once: {len(refinement.proposals)} proposals; run 2: {second['counts']} "
          f"({mandatory_failures(second)} mandatory_success failures); files in {work}")
    return 1 if mandatory_failures(second) else 0


if __name__ == "__main__":
    sys.exit(main())
