"""Benchmark of the test adaptation plugin: three ratios, measured side by side in one run.

    python3 tools/bench/plugin_bench.py [--device spyre|cpu] [--repeat N]

1. collection with the device config / unfiltered collection of the same files (target <= 0.25)
2. wall time of `-m op__add` (run) / full unfiltered collection                  (target <= 0.20)
3. the same selected tests with the plugin / without it (plain pytest, node ids)  (target <= 1.10)

Each pytest runs in a fresh interpreter (wall time, median of --repeat runs).
"pytest's own 'collected in' seconds" are printed beside the wall times,
because the plugin imports op_db in pytest_configure, before collection starts.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time

from rich.console import Console
from rich.table import Table

from testing.base.cliargs import Parser
from testing.base.command import command

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITES = [
    os.path.join(REPO, "testing", "suites", f)
    for f in (
        "test_op_consistency.py",
        "test_noncontiguous.py",
        "test_tensor_basics.py",
        "test_module_consistency.py",
    )
]
CONFIGS = {
    "spyre": [
        "spyre/device.yaml",
        "spyre/op_consistency.yaml",
        "spyre/noncontiguous.yaml",
        "spyre/tensor_basics.yaml",
        "spyre/module_consistency.yaml",
    ],
    "cpu": ["cpu/smoke.yaml"],
}
BASE = ["-p", "no:cacheprovider", "--rootdir", REPO]


def run(args: list[str], env: dict) -> tuple[float, float, str]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *BASE, *args], cwd=REPO, env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1, 5):
        raise SystemExit(
            f"pytest failed ({proc.returncode}): {' '.join(args)}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    m = re.search(r"in ([0-9.]+)s", proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "")
    return wall, float(m.group(1)) if m else float("nan"), proc.stdout


def median(args, env, repeat):
    runs = [run(args, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[-1][2]


@command("plugin_bench")
def main() -> int:
    ap = Parser(prog="plugin_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=sorted(CONFIGS), default="spyre")
    ap.add_argument("--repeat", type=int, default=1)
    opts = ap.parse_args()
    console = Console()
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([REPO, os.path.join(REPO, "backend"), os.environ.get("PYTHONPATH", "")]),
    )
    plugin = ["-p", "testing.plugin"] + [
        a for c in CONFIGS[opts.device] for a in ("--config", os.path.join(REPO, "configs", c))
    ]
    plain = [] if opts.device == "cpu" else ["-p", "torch_spyre"]
    env_plain = dict(env, PYTORCH_TESTING_DEVICE_ONLY_FOR=opts.device)

    with console.status("unfiltered collection (no plugin)"):
        full_wall, full_col, full_out = median(
            plain + ["--collect-only", "-q", *SUITES], env_plain, opts.repeat
        )
    with console.status("collection with the config"):
        cfg_wall, cfg_col, _ = median(plugin + ["--collect-only", "-q", *SUITES], env, opts.repeat)
    with console.status("-m op__add with the plugin (run)"):
        add_wall, add_col, add_out = median(plugin + ["-m", "op__add", "-v", *SUITES], env, opts.repeat)
    verdicts = (" PASSED", " FAILED", " XFAIL", " XPASS", " SKIPPED")
    ids = [
        line.split(" ")[0]
        for line in add_out.splitlines()
        if "::" in line and any(v in line for v in verdicts)
    ]
    if not ids:
        raise SystemExit(f"no tests selected by -m op__add:\n{add_out[-2000:]}")
    # Select by method name: without the plugin the first privateuse1 class is
    # named ...PRIVATEUSE1, not ...SPYRE, so node ids would not match.
    names = " or ".join(sorted({i.split("::")[-1] for i in ids}))
    with console.status(f"the same {len(ids)} tests without the plugin"):
        same_wall, same_col, same_out = median(plain + ["-q", "-k", names, *SUITES], env_plain, opts.repeat)
    ran = re.search(r"(\d+) passed", same_out)

    n_full = re.search(r"(\d+) tests? collected", full_out)
    table = Table(title=f"plugin benchmark on {opts.device} ({opts.repeat} run(s) each, median)")
    for col in ("measure", "wall s", "pytest s", "ratio (wall)", "ratio (pytest s)", "target"):
        table.add_column(col)
    table.add_row(
        f"unfiltered collection ({n_full.group(1) if n_full else '?'} tests)",
        f"{full_wall:.2f}",
        f"{full_col:.2f}",
        "",
        "",
        "",
    )
    table.add_row(
        "collection with config / unfiltered",
        f"{cfg_wall:.2f}",
        f"{cfg_col:.2f}",
        f"{cfg_wall / full_wall:.3f}",
        f"{cfg_col / full_col:.3f}",
        "<= 0.25",
    )
    table.add_row(
        "-m op__add run / full collection",
        f"{add_wall:.2f}",
        f"{add_col:.2f}",
        f"{add_wall / full_wall:.3f}",
        f"{add_col / full_col:.3f}",
        "<= 0.20",
    )
    table.add_row(
        f"same {len(ids)} tests ({ran.group(1) if ran else '?'} passed without): plugin / no plugin",
        f"{same_wall:.2f}",
        f"{same_col:.2f}",
        f"{add_wall / same_wall:.3f}",
        f"{add_col / same_col:.3f}",
        "<= 1.10",
    )
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
