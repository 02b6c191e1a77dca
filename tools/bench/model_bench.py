"""Benchmark of model-op capture and runs: three ratios, measured side by side in one run.

    tools/bazel run //tools/bench:model_bench [-- --repeat 5]

1. capture overhead: wall of MiniLM's forward under the recording mode / the plain forward
   (same model, same fixed input, interleaved, medians of --repeat)           (goal <= 3)
2. dedupe: distinct cases written / torch calls seen in one forward
3. the captured cases on spyre (configs/spyre/model_minilm.yaml with the device config, fresh
   interpreters): wall of `pytest --collect-only` / wall of the full run
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from testing.base.cliargs import Parser
from testing.base.command import command

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def capture_ratio(repeat: int) -> tuple[float, float, int, int]:
    """(median plain s, median captured s, calls seen, distinct cases)."""
    import torch

    from tools.models import capture

    torch.set_num_threads(1)  # one intra-op thread: a shared machine's spinning OpenMP pool swamps ms timings
    model = capture.minilm()
    net, inputs = capture.load(model)
    capture.forward(net, inputs)  # warm-up: lazy inits, allocator
    plain, captured, rec = [], [], None
    for _ in range(repeat):
        t = time.perf_counter()
        capture.forward(net, inputs)
        plain.append(time.perf_counter() - t)
        t = time.perf_counter()
        rec = capture.record(net, inputs, model)
        captured.append(time.perf_counter() - t)
    return statistics.median(plain), statistics.median(captured), rec.calls, len(rec.cases)


def _pytest(extra: list[str]) -> tuple[float, str]:
    configs = ["configs/spyre/device.yaml", "configs/spyre/model_minilm.yaml"]
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "testing.plugin",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        REPO,
    ]
    cmd += [a for c in configs for a in ("--config", c)] + ["-q", *extra, "testing/suites/test_model_ops.py"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"pytest failed ({proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return wall, proc.stdout.strip().splitlines()[-1]


def run_ratio() -> tuple[float, float, str]:
    """(collect-only wall s, full run wall s, outcome line): the captured cases on spyre, each in
    a fresh interpreter (torch, the backend and the plugin's configure are in both)."""
    collect, _ = _pytest(["--collect-only"])
    total, last = _pytest([])
    return collect, total, last


@command("model_bench")
def main(argv: list[str] | None = None) -> int:
    ap = Parser(prog="model_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="forward passes per side (median)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if os.environ.get("BUILD_WORKSPACE_DIRECTORY"):
        os.chdir(REPO)
    plain, captured, calls, cases = capture_ratio(args.repeat)
    collect, total, outcome = run_ratio()
    print(
        f"capture: MiniLM forward, median of {args.repeat}: plain {plain * 1e3:.1f} ms, captured {captured * 1e3:.1f} ms"
    )
    print(f"  overhead ratio captured/plain: {captured / plain:.2f} (goal <= 3)")
    print(f"  dedupe: {cases} cases / {calls} calls seen = {cases / calls:.3f}")
    print(f"run on spyre: {outcome}")
    print(
        f"  plugin collection (--collect-only) {collect:.1f} s / total run {total:.1f} s = {collect / total:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
