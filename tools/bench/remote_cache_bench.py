"""Cold build vs rebuild from a warm remote cache, side by side in one run.

    python3 tools/bench/remote_cache_bench.py [--command build|test] [--rounds 3]
        [--targets //backend/... ...] [--bazel-flag=...] [--profile-dir DIR] [--output-base DIR]

Each round:
1. starts a fresh, empty nginx remote cache on a free loopback port (tools/cache/start);
2. cold: `bazel clean`, then `bazel build TARGETS --config=remote` (executes every action
   and uploads the results; with --command test, test results are cached too, as CI legs do);
3. warm: `bazel clean` again, then the same build (served from the remote cache).
Then it prints every run's wall time, the compile actions and all actions it executed, the
remote cache hits, Bazel's own process summary, and the median warm/cold ratio
(targets: 0 compile actions warm, ratio <= 0.1).

Actions are counted from the JSON trace profile Bazel writes on every build, not from an
execution log: that log costs ~1 s per run here and would distort the short warm run.

Runs in its own output base (kept under ~/.cache/oot-ci so the pinned packages are fetched
only the first time), so it never cleans or blocks the workspace's own Bazel server.
"""

import argparse
import dataclasses
import gzip
import json
import pathlib
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
BAZEL = str(ROOT / "tools" / "bazel")
CACHE = ROOT / "tools" / "cache"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bazel(output_base: str, *args: str) -> tuple[float, str]:
    """Runs one Bazel command; returns its wall time and its console output. Exits on failure."""
    start = time.monotonic()
    result = subprocess.run(
        [BAZEL, f"--output_base={output_base}", *args], cwd=ROOT, capture_output=True, text=True
    )
    if result.returncode != 0:
        sys.exit(f"remote_cache_bench: bazel {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return time.monotonic() - start, result.stderr


def default_targets() -> list[str]:
    """Every top-level package tree. Not `//...`: from a second output base, the
    workspace's bazel-* convenience symlinks point into the other output base, and `//...`
    would crawl all of it."""
    tracked = subprocess.run(
        ["git", "ls-files", "*BUILD.bazel"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    tops = sorted({line.split("/")[0] for line in tracked.stdout.splitlines() if "/" in line})
    return [f"//{top}/..." for top in tops]


def stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


@dataclasses.dataclass
class Counts:
    lookups: int  # spawns that looked up the remote cache
    hits: int  # of them, served from it
    compiles_executed: int  # "Compiling ..." actions that looked it up and were not served

    @property
    def executed(self) -> int:
        return self.lookups - self.hits


def profile_counts(profile: pathlib.Path) -> Counts:
    """Counts read from the JSON trace profile Bazel writes on every build. The execution log
    would add ~1 s per run here (it lists all ~6k inputs of each compile action), which
    would weigh on the short warm run most. An action's own events share its thread, which
    tells a compile's lookup and download apart from the others'."""
    with gzip.open(profile, "rt") as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    by_thread: dict[int, list[dict]] = {}
    for e in events:
        by_thread.setdefault(e["tid"], []).append(e)
    compiles_executed = 0
    for thread in by_thread.values():
        for a in (
            e for e in thread if e.get("cat") == "action processing" and e["name"].startswith("Compiling ")
        ):
            inside = {e.get("cat") for e in thread if a["ts"] <= e["ts"] <= a["ts"] + a["dur"]}
            compiles_executed += (
                "remote action cache check" in inside and "remote output download" not in inside
            )
    return Counts(
        lookups=sum(e.get("cat") == "remote action cache check" for e in events),
        hits=sum(e.get("cat") == "remote output download" for e in events),
        compiles_executed=compiles_executed,
    )


def process_summary(output: str) -> str:
    """Bazel's own count, e.g. '165 processes: 51 remote cache hit, 114 internal.'"""
    lines = [line for line in output.splitlines() if " processes: " in line]
    return lines[-1].split("INFO: ", 1)[-1] if lines else "no process summary"


@dataclasses.dataclass
class Run:
    wall: float
    counts: Counts
    summary: str


def timed_run(args, phase: str, remote: list[str], profile: pathlib.Path) -> Run:
    bazel(args.output_base, "clean")
    print(f"remote_cache_bench: {phase} {args.command} ...", flush=True)
    wall, output = bazel(args.output_base, args.command, *remote, f"--profile={profile}", *args.targets)
    return Run(wall, profile_counts(profile), process_summary(output))


def one_round(args, tmp: pathlib.Path, number: int) -> dict[str, Run]:
    """Cold then warm against a fresh, empty cache server on a free port."""
    cache_dir = tmp / f"cache{number}"
    port = free_port()
    subprocess.run(
        [str(CACHE / "start"), "--port", str(port), "--dir", str(cache_dir)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    try:
        remote = ["--config=remote", f"--remote_cache=http://127.0.0.1:{port}", *args.bazel_flag]
        profiles = pathlib.Path(args.profile_dir).resolve() if args.profile_dir else tmp
        return {
            phase: timed_run(args, phase, remote, profiles / f"{phase}{number}.profile.gz")
            for phase in ("cold", "warm")
        }
    finally:
        subprocess.run([str(CACHE / "stop"), "--dir", str(cache_dir)], check=False, stdout=subprocess.DEVNULL)


def report(rounds: list[dict[str, Run]]) -> None:
    print(
        f"\n{'round':<6} {'run':<5} {'wall s':>7} {'compiles executed':>18} {'actions executed':>17} {'cache hits':>11}  bazel's summary"
    )
    for number, runs in enumerate(rounds, 1):
        for phase, r in runs.items():
            c = r.counts
            print(
                f"{number:<6} {phase:<5} {r.wall:>7.1f} {c.compiles_executed:>18} {c.executed:>17} {c.hits:>11}  {r.summary}"
            )
    ratios = [runs["warm"].wall / runs["cold"].wall for runs in rounds]
    print(
        f"\nwarm/cold wall-time ratio: median {statistics.median(ratios):.3f} of {', '.join(f'{x:.3f}' for x in ratios)} (target <= 0.1)"
    )
    print(
        f"compile actions executed on the warm rebuilds: {max(r['warm'].counts.compiles_executed for r in rounds)} (target 0)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--command", choices=["build", "test"], default="build")
    parser.add_argument("--targets", nargs="+", help="default: every top-level package tree")
    parser.add_argument(
        "--rounds", type=int, default=3, help="cold+warm pairs, each against a fresh empty cache (default 3)"
    )
    parser.add_argument(
        "--bazel-flag",
        action="append",
        default=[],
        help="extra flag for both builds, e.g. --remote_download_minimal",
    )
    parser.add_argument(
        "--profile-dir", help="keep each run's Bazel JSON profile here (coldN/warmN.profile.gz)"
    )
    parser.add_argument(
        "--output-base", default=str(pathlib.Path.home() / ".cache" / "oot-ci" / "bench-output-base")
    )
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    args.targets = args.targets or default_targets()
    # The cache servers and the bench's Bazel server must stop even when we are killed.
    signal.signal(signal.SIGTERM, stop_on_sigterm)

    with tempfile.TemporaryDirectory(prefix="remote-cache-bench-") as tmp:
        try:
            print(f"remote_cache_bench: {args.command} of {' '.join(args.targets)}")
            print(
                "remote_cache_bench: fetching external repositories, loading packages (not timed) ...",
                flush=True,
            )
            bazel(args.output_base, "build", "--nobuild", *args.targets)
            rounds = [one_round(args, pathlib.Path(tmp), n) for n in range(1, args.rounds + 1)]
        finally:
            subprocess.run([BAZEL, f"--output_base={args.output_base}", "shutdown"], cwd=ROOT, check=False)
    report(rounds)


if __name__ == "__main__":
    main()
