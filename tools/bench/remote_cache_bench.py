"""Cold build vs rebuild from a warm remote cache, side by side in one run.

    python3 tools/bench/remote_cache_bench.py [--command build|test] [--targets //backend/... ...] [--output-base DIR]

1. starts a fresh, empty nginx remote cache on a free loopback port (tools/cache/start);
2. cold: `bazel clean`, then `bazel build TARGETS --config=remote` (executes every action
   and uploads the results; with --command test, test results are cached too, as CI legs do);
3. warm: `bazel clean` again, then the same build (served from the remote cache);
4. prints both wall times, their ratio and the compile actions each run executed
   (targets: 0 compile actions warm, ratio <= 0.1).

Runs in its own output base (kept under ~/.cache/oot-ci so the pinned packages are fetched
only the first time), so it never cleans or blocks the workspace's own Bazel server.
"""

import argparse
import json
import pathlib
import signal
import socket
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


def bazel(output_base: str, *args: str) -> float:
    """Runs one Bazel command and returns its wall time; exits on failure."""
    start = time.monotonic()
    result = subprocess.run([BAZEL, f"--output_base={output_base}", *args], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"remote_cache_bench: bazel {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return time.monotonic() - start


def default_targets() -> list[str]:
    """Every top-level package tree. Not `//...`: from a second output base, the
    workspace's bazel-* convenience symlinks point into the other output base, and `//...`
    would crawl all of it."""
    tracked = subprocess.run(["git", "ls-files", "*BUILD.bazel"], cwd=ROOT, capture_output=True, text=True, check=True)
    tops = sorted({line.split("/")[0] for line in tracked.stdout.splitlines() if "/" in line})
    return [f"//{top}/..." for top in tops]


def stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def spawns(log: pathlib.Path) -> list[dict]:
    """Parses Bazel's --execution_log_json_file (a stream of JSON objects)."""
    text, decoder, out, pos = log.read_text(), json.JSONDecoder(), [], 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        obj, pos = decoder.raw_decode(text, pos)
        out.append(obj)
    return out


def executed_compiles(log: pathlib.Path) -> int:
    return sum(1 for s in spawns(log) if s.get("mnemonic") == "CppCompile" and not s.get("remoteCacheHit"))


def executed(log: pathlib.Path) -> int:
    return sum(1 for s in spawns(log) if not s.get("remoteCacheHit"))


def cache_hits(log: pathlib.Path) -> int:
    return sum(1 for s in spawns(log) if s.get("remoteCacheHit"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--command", choices=["build", "test"], default="build")
    parser.add_argument("--targets", nargs="+", help="default: every top-level package tree")
    parser.add_argument("--bazel-flag", action="append", default=[], help="extra flag for both builds, e.g. --remote_download_minimal")
    parser.add_argument("--output-base", default=str(pathlib.Path.home() / ".cache" / "oot-ci" / "bench-output-base"))
    args = parser.parse_args()
    args.targets = args.targets or default_targets()
    # The cache server and the bench's Bazel server must stop even when we are killed.
    signal.signal(signal.SIGTERM, stop_on_sigterm)

    with tempfile.TemporaryDirectory(prefix="remote-cache-bench-") as tmp:
        tmp_path = pathlib.Path(tmp)
        port = free_port()
        subprocess.run([str(CACHE / "start"), "--port", str(port), "--dir", str(tmp_path / "cache")], check=True)
        try:
            remote = ["--config=remote", f"--remote_cache=http://127.0.0.1:{port}", *args.bazel_flag]
            print("remote_cache_bench: fetching external repositories (not timed) ...", flush=True)
            bazel(args.output_base, "build", "--nobuild", *args.targets)
            runs = {}
            for phase in ("cold", "warm"):
                log = tmp_path / f"{phase}.json"
                bazel(args.output_base, "clean")
                print(f"remote_cache_bench: {phase} {args.command} of {' '.join(args.targets)} ...", flush=True)
                wall = bazel(args.output_base, args.command, *remote, f"--execution_log_json_file={log}", *args.targets)
                runs[phase] = (wall, executed_compiles(log), executed(log), cache_hits(log))
        finally:
            subprocess.run([str(CACHE / "stop"), "--dir", str(tmp_path / "cache")], check=False)
            subprocess.run([BAZEL, f"--output_base={args.output_base}", "shutdown"], cwd=ROOT, check=False)

    print(f"\n{'run':<6} {'wall s':>8} {'compiles executed':>18} {'actions executed':>17} {'remote cache hits':>18}")
    for phase, (wall, compiles, ran, hits) in runs.items():
        print(f"{phase:<6} {wall:>8.1f} {compiles:>18} {ran:>17} {hits:>18}")
    ratio = runs["warm"][0] / runs["cold"][0]
    print(f"\nwarm/cold wall-time ratio: {ratio:.3f} (target <= 0.1)")
    print(f"compile actions executed on the warm rebuild: {runs['warm'][1]} (target 0)")


if __name__ == "__main__":
    main()
