"""Benchmark of the test-selection pipeline (tools/select), printed side by side in one run.

1. Repository memory over a generated upstream-style corpus (select_corpus.py: unary ufuncs,
   modules, views; ~3,400 units, the size of test_unary_ufuncs + test_modules + test_view_ops):
   - before: scope-blind tracing, one dtype per unit (how stage 2 traced until issue 17);
   - after: device-aware tracing (every dtype the device runs, out-of-scope tests not traced);
     target <= 300 s on this 2-core machine;
   - incremental rebuilds of "after": unchanged, and one @dtypes test edited (ratio <= 0.1).
2. Delta 2.13.0 (installed) -> 2.14.1 (torch/testing/_internal from its wheel, fetched once into
   the cache): units re-evaluated / full set (target <= 10 %), and whether decisions on the
   unchanged units equal those of a full stage-3 run on 2.14.1.

    tools/bazel run //tools/bench:select_bench -- [--capabilities FILE|backend:torch_spyre]
                                                  [--skip-before] [--skip-delta] [--db-dir DIR]
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from testing.base.cliargs import Parser, user_path
from testing.base.command import command
from tools.bench.select_corpus import write_corpus
from tools.select.bucket.engines import DeterministicEngine
from tools.select.common import capabilities
from tools.select.delta import deltarun, wheel
from tools.select.memory.memory import MemoryBuilder, SourceRoot, TracePlan
from tools.select.memory.store import Memory
from tools.select.scope import scope

SUITES = "corpus"
SCOPE = Path(__file__).resolve().parents[1] / "select" / "scope.example.yaml"


def workspace() -> Path:
    return Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd())


def build(repo: Path, db: Path, jobs: int, plan: TracePlan) -> tuple[float, str]:
    with Memory(db) as memory:
        start = time.perf_counter()
        stats = MemoryBuilder(memory, progress=sys.stderr.isatty(), jobs=jobs, plan=plan).build(
            [SourceRoot("${REPO_ROOT}", repo, f"{SUITES}/test_*.py")]
        )
        seconds = time.perf_counter() - start
        units = memory.counts()["variants"]
        return seconds, f"{units} units; {stats.line()}"


def edit_one_test(repo: Path) -> str:
    """Append a statement to the first @dtypes test found (its content hash changes)."""
    for path in sorted((repo / SUITES).glob("test_*.py")):
        text = path.read_text()
        match = re.search(r"@dtypes\([^\n]*\)\n(\s+)def (test_\w+)\(self[^\n]*\n", text)
        if match:
            indent = match.group(1) + "    "
            edited = text[: match.end()] + f"{indent}_bench_edit = 1  # select_bench\n" + text[match.end() :]
            path.write_text(edited)
            return f"{path.name}::{match.group(2)}"
    raise SystemExit("select_bench: no @dtypes test to edit in the suites")


def memory_section(
    console: Console, scratch: Path, jobs: int, caps_source: str, with_before: bool = True
) -> Path:
    repo = scratch / "repo"
    write_corpus(repo / SUITES)
    caps = capabilities.load(caps_source)
    after_plan = TracePlan.for_device(caps, scope.out_features(scope.load_scope(SCOPE), caps))
    # the scope-blind "before" build takes ~25 min; --skip-before leaves that row out
    before, before_line = build(repo, scratch / "before.db", jobs, TracePlan()) if with_before else (0.0, "")
    db = scratch / "memory.db"
    full, full_line = build(repo, db, jobs, after_plan)
    same, same_line = build(repo, db, jobs, after_plan)
    edited = edit_one_test(repo)
    one, one_line = build(repo, db, jobs, after_plan)
    table = Table(title=f"repository memory over a generated upstream-style corpus ({caps.device}, 2 cores)")
    for column in ("build", "seconds", "ratio", "target", "work done"):
        table.add_column(column)
    if with_before:
        table.add_row("before: scope-blind, one dtype per unit", f"{before:.1f}", "1.000", "", before_line)
    ratio = f"{full / before:.3f} of before" if with_before else ""
    table.add_row("after: device-aware, full", f"{full:.1f}", ratio, "<= 300 s", full_line)
    table.add_row(
        "after, incremental, unchanged", f"{same:.1f}", f"{same / full:.3f} of full", "<= 0.1", same_line
    )
    table.add_row(
        f"after, incremental, edited {edited}", f"{one:.1f}", f"{one / full:.3f} of full", "<= 0.1", one_line
    )
    console.print(table)
    shutil.copy(db, scratch / "memory-for-delta.db")
    return scratch / "memory-for-delta.db"


def delta_section(console: Console, db: Path, caps_source: str, version: str) -> bool:
    caps = capabilities.load(caps_source)
    internal = wheel.internal_for(version)
    engine = DeterministicEngine()
    with Memory(db) as memory:
        start = time.perf_counter()
        result = deltarun.run(memory, caps, engine, {}, internal, version)
        seconds = time.perf_counter() - start
    table = Table(title=f"delta {wheel_installed()} -> {version} on {caps.device}")
    for column in ("measure", "value", "target"):
        table.add_column(column)
    counts = result.plan.counts()
    table.add_row(
        "OpInfos added / removed / changed (foreign-only)",
        f"{counts['added']} / {counts['removed']} / {counts['changed']} ({counts['foreign_only']})",
        "",
    )
    table.add_row(
        "units re-evaluated / full set",
        f"{len(result.delta_units)} / {result.full_units} = {result.ratio:.1%}",
        "<= 10%",
    )
    table.add_row("bucket changes among re-evaluated units", str(len(result.flipped)), "")
    ok = not result.unchanged_mismatch
    table.add_row(
        "unchanged units deciding differently from a full run",
        f"{len(result.unchanged_mismatch)} ({'equal' if ok else 'DIFFERENT'})",
        "0",
    )
    table.add_row(
        "re-evaluated units deciding differently from a full run", str(len(result.delta_mismatch)), "0"
    )
    table.add_row("delta stage 3 + full check, seconds", f"{seconds:.1f}", "")
    console.print(table)
    return ok and result.ratio <= 0.10


def wheel_installed() -> str:
    import torch

    return torch.__version__.split("+")[0]


@command("select_bench")
def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="select_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--capabilities",
        default="backend:torch_spyre",
        help="capability table for tracing and the delta's stage 3 (default: %(default)s)",
    )
    parser.add_argument("--version", default="2.14.1", help="the newer torch (default: %(default)s)")
    parser.add_argument("--skip-delta", action="store_true", help="only the memory benchmark (no wheel)")
    parser.add_argument(
        "--skip-before", action="store_true", help="leave out the scope-blind build (~25 min)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="trace workers (default: %(default)s)")
    parser.add_argument("--db-dir", help="keep the scratch memory here instead of a temp dir")
    args = parser.parse_args(argv)
    console = Console()
    scratch = user_path(args.db_dir) if args.db_dir else Path(tempfile.mkdtemp(prefix="select-bench-"))
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        db = memory_section(console, scratch, args.jobs, args.capabilities, not args.skip_before)
        if args.skip_delta:
            return 0
        return 0 if delta_section(console, db, args.capabilities, args.version) else 1
    finally:
        if not args.db_dir:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
