"""Benchmark of the native adapter: collecting the same config through torch's own test-reuse
API (native, via adapter: auto) and through our patches only, side by side in one run.

    python3 tools/bench/native_bench.py [--device spyre|cpu] [--rounds 3]

Prints, per target (the in-tree suites, one upstream-style file of the generated fixture):
median wall seconds of `pytest --collect-only` each way (rounds interleaved, a fresh
interpreter each), their ratio native/patch, and the instantiated test counts, which must
be equal (exit 1 when they differ).
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from testing.base.cliargs import Parser
from testing.base.command import command
from testing.config import runs
from testing.config.features import suite_configs
from tools.errors import ToolsError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITES = os.path.join(REPO, "testing", "suites")
FIXTURE = os.path.join(REPO, "crcr", "upstream", "fixture")
CONFIGS = {d: suite_configs(Path(REPO) / "configs" / d) for d in ("spyre", "cpu")}
COLLECTED = re.compile(r"(\d+) tests? collected|collected (\d+) items?")


def collect(adapter: str, configs: list[str], files: list[str], extra: list[str]) -> tuple[float, int]:
    argv = runs.adapter_run(adapter, configs, [], extra, collect_only=True, quiet=True, rootdir=REPO).argv()
    start = time.perf_counter()
    proc = subprocess.run(argv + files, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - start
    ids = [line for line in proc.stdout.splitlines() if "::" in line]
    if proc.returncode not in (0, 5):
        raise SystemExit(
            f"native_bench: {adapter} collection failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    return wall, len(ids)


def targets(device: str) -> list[tuple[str, list[str], list[str], list[str]]]:
    upstream = [os.path.join(FIXTURE, "upstream", "spyre", "elementwise.yaml")]
    device_cfg = CONFIGS[device][:1] if device == "spyre" else []
    return [
        ("in-tree suites", CONFIGS[device], [SUITES], []),
        (
            "upstream file (fixture)",
            device_cfg + upstream,
            [os.path.join(FIXTURE, "base", "test", "test_elementwise_device.py")],
            ["--upstream-root", os.path.join(FIXTURE, "base")]
            + ([] if device == "spyre" else ["--oot-device", "cpu"]),
        ),
    ]


@command("native_bench", prefix="native_bench: ")
def main() -> int:
    parser = Parser(prog="native_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=sorted(CONFIGS), default="spyre")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.rounds < 1:
        raise ToolsError("--rounds must be >= 1")
    table = Table(title=f"collection: native (auto) vs patch, {args.device}, median of {args.rounds}")
    for col in (
        "target",
        "native s",
        "patch s",
        "ratio native/patch",
        "native tests",
        "patch tests",
        "equal",
    ):
        table.add_column(col)
    unequal = False
    for name, configs, files, extra in targets(args.device):
        walls: dict[str, list[float]] = {"auto": [], "patch": []}
        counts: dict[str, set[int]] = {"auto": set(), "patch": set()}
        for _ in range(args.rounds):
            for adapter in ("auto", "patch"):
                wall, n = collect(adapter, configs, files, extra)
                walls[adapter].append(wall)
                counts[adapter].add(n)
        n, p = statistics.median(walls["auto"]), statistics.median(walls["patch"])
        equal = counts["auto"] == counts["patch"] and len(counts["auto"]) == 1
        unequal |= not equal
        table.add_row(
            name,
            f"{n:.2f}",
            f"{p:.2f}",
            f"{n / p:.3f}",
            ",".join(map(str, sorted(counts["auto"]))),
            ",".join(map(str, sorted(counts["patch"]))),
            "yes" if equal else "NO",
        )
    Console(width=140).print(table)
    return 1 if unequal else 0


if __name__ == "__main__":
    sys.exit(main())
