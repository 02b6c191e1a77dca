"""Spyre backend: extension compile time and emulated-op cost vs CPU, in one run.

    tools/bazel run //tools/bench:backend_bench [-- --size 256 --repeats 30 --no-compile]
    python3 tools/bench/backend_bench.py          (from a checkout, host torch)

1. compiles every translation unit of backend/csrc with g++ -std=c++20 against the
   running torch's headers (serially, so per-TU times add up to the single-core cost)
   and links libspyre.so, printing per-TU seconds and the total;
2. times a set of ops on CPU float32 and on spyre float32 (the emulated path: host
   copies, float16 rounding, write-back) and prints spyre/CPU time ratios.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from rich.console import Console
from rich.progress import track
from rich.table import Table

from testing.base.cliargs import Parser
from testing.base.command import command

console = Console()


def csrc_dir() -> Path:
    """backend/csrc in a checkout or in Bazel runfiles (data dependency)."""
    here = Path(os.path.abspath(__file__)).parent
    for root in (here.parent.parent, Path(os.environ.get("RUNFILES_DIR", "/nonexistent")) / "oot_ci"):
        candidate = root / "backend" / "csrc"
        if candidate.is_dir():
            return candidate
    sys.exit("backend_bench: backend/csrc not found (run from a checkout or via tools/bazel run)")


def compile_extension(src: Path, opt: str) -> tuple[list[tuple[str, float]], float]:
    """Compiles each .cc and links; returns per-TU seconds and link seconds."""
    from torch.utils import cpp_extension

    cxx = os.environ.get("CXX") or shutil.which("g++")
    if cxx is None:
        sys.exit("backend_bench: no C++ compiler (g++ or $CXX) found")
    includes = [f"-isystem{p}" for p in cpp_extension.include_paths()]
    sources = sorted(src.rglob("*.cc"))
    times = []
    with tempfile.TemporaryDirectory() as out:
        objects = []
        for source in track(sources, description="compiling backend/csrc", console=console):
            obj = Path(out) / (source.relative_to(src).as_posix().replace("/", "_") + ".o")
            cmd = [
                cxx,
                "-std=c++20",
                "-fPIC",
                opt,
                "-D_GLIBCXX_USE_CXX11_ABI=1",
                *includes,
                "-c",
                str(source),
                "-o",
                str(obj),
            ]
            times.append((source.relative_to(src).as_posix(), run_timed(cmd)))
            objects.append(str(obj))
        libdir = cpp_extension.library_paths()[0]
        link = [
            cxx,
            "-shared",
            "-o",
            str(Path(out) / "libspyre.so"),
            *objects,
            f"-L{libdir}",
            "-lc10",
            "-ltorch_cpu",
            "-ltorch",
        ]
        return times, run_timed(link)


def run_timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"backend_bench: command failed ({result.returncode}): {' '.join(cmd)}\n{result.stderr}")
    return time.perf_counter() - start


def elapsed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def paired_medians(
    cpu: Callable[[], object], spyre: Callable[[], object], repeats: int
) -> tuple[float, float]:
    """Alternates CPU and spyre calls so load from other processes hits both alike."""
    cpu(), spyre()  # warm-up (allocations, lazy init)
    samples = [(elapsed(cpu), elapsed(spyre)) for _ in range(repeats)]
    return statistics.median(c for c, _ in samples), statistics.median(s for _, s in samples)


def op_cases(torch, size: int) -> dict[str, Callable]:
    """name -> factory(device) -> zero-arg op closure."""

    def make(body):
        def factory(device):
            gen = torch.Generator().manual_seed(0)
            a = torch.randn(size, size, generator=gen).to(device)
            b = torch.randn(size, size, generator=gen).to(device)
            return lambda: body(a, b)

        return factory

    return {
        "add": make(lambda a, b: a + b),
        "mul_": make(lambda a, b: a.mul_(1.0)),
        "exp": make(lambda a, b: a.exp()),
        "sum": make(lambda a, b: a.sum()),
        "softmax": make(lambda a, b: a.softmax(-1)),
        "mm": make(lambda a, b: a @ b),
        "relu": make(lambda a, b: torch.relu(a)),
    }


def measure_ops(size: int, repeats: int) -> list[tuple[str, float, float]]:
    import torch

    import torch_spyre  # noqa: F401

    torch.set_num_threads(1)  # one core for both sides: the ratio is the path's overhead
    rows = []
    for name, factory in track(
        list(op_cases(torch, size).items()), description="timing ops", console=console
    ):
        cpu, spyre = paired_medians(factory("cpu"), factory("spyre"), repeats)
        rows.append((name, cpu, spyre))
    return rows


@command("backend_bench")
def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="backend_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="square operand size (default 256)")
    parser.add_argument("--repeats", type=int, default=30, help="timed calls per op and device (default 30)")
    parser.add_argument("--opt", default="-O1", help="optimisation flag for the compile (default -O1)")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile measurement")
    args = parser.parse_args(argv)
    if args.size <= 0 or args.repeats <= 0:
        parser.error("--size and --repeats must be positive")

    if not args.no_compile:
        per_tu, link = compile_extension(csrc_dir(), args.opt)
        table = Table(title=f"libspyre.so compile ({args.opt}, serial, one core)")
        table.add_column("translation unit")
        table.add_column("seconds", justify="right")
        for name, seconds in per_tu:
            table.add_row(name, f"{seconds:.1f}")
        table.add_row("link", f"{link:.1f}")
        total = sum(s for _, s in per_tu) + link
        table.add_row("[bold]total[/bold]", f"[bold]{total:.1f}[/bold]")
        console.print(table)

    rows = measure_ops(args.size, args.repeats)
    table = Table(
        title=f"emulated op path vs CPU ({args.size}x{args.size} float32, median of {args.repeats})"
    )
    for column in ("op", "cpu ms", "spyre ms", "spyre/cpu"):
        table.add_column(column, justify="right" if column != "op" else "left")
    for name, cpu, spyre in rows:
        table.add_row(name, f"{cpu * 1e3:.3f}", f"{spyre * 1e3:.3f}", f"{spyre / cpu:.1f}x")
    geo = statistics.geometric_mean(s / c for _, c, s in rows)
    table.add_row("[bold]geomean[/bold]", "", "", f"[bold]{geo:.1f}x[/bold]")
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
