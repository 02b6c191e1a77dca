"""Lint and format check of the tree: ruff (Python) and buildifier (BUILD, .bzl).

check FILE...   used by //:lint: reports every finding, exit 1 if any (changes nothing)
fix             used by `tools/bazel run //:format`: rewrites the workspace in place
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from ruff.__main__ import find_ruff_bin

BAZEL_FILES = ("BUILD.bazel", "BUILD", "WORKSPACE")


def is_starlark(path: str) -> bool:
    return path.endswith(".bzl") or os.path.basename(path) in BAZEL_FILES


def split_files(files: list[str]) -> tuple[list[str], list[str]]:
    """(Python files, Starlark files); anything else is ignored."""
    python = sorted(f for f in files if f.endswith(".py"))
    starlark = sorted(f for f in files if is_starlark(f))
    return python, starlark


def run(argv: list[str], what: str) -> bool:
    print(f"lint: {what}", flush=True)
    return subprocess.run(argv).returncode == 0


def check(files: list[str], config: str, buildifier: str) -> int:
    python, starlark = split_files(files)
    ruff = os.fspath(find_ruff_bin())
    results = [
        run([ruff, "check", "--no-cache", "--config", config, *python], f"ruff check ({len(python)} files)"),
        run([ruff, "format", "--no-cache", "--check", "--config", config, *python], "ruff format --check"),
        run([buildifier, "-mode=check", "-lint=off", *starlark], f"buildifier ({len(starlark)} files)"),
    ]
    if all(results):
        print("lint: clean")
        return 0
    print("lint: findings above; fix them with: tools/bazel run //:format", file=sys.stderr)
    return 1


def tracked_files(root: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True)
    return [line for line in out.stdout.splitlines() if (root / line).is_file()]


def fix(root: Path, config: str, buildifier: str, generated: set[str]) -> int:
    python, starlark = split_files([f for f in tracked_files(root) if f not in generated])
    ruff = os.fspath(find_ruff_bin())
    os.chdir(root)
    ok = run([ruff, "check", "--fix", "--config", config, *python], "ruff check --fix")
    ok = run([ruff, "format", "--config", config, *python], "ruff format") and ok
    ok = run([buildifier, "-mode=fix", "-lint=off", *starlark], "buildifier -mode=fix") and ok
    return 0 if ok else 1


def runfile(path: str) -> str:
    """An absolute path for a $(rootpath) argument (bazel run changes directory)."""
    return os.path.abspath(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", required=True, help="ruff.toml")
    parser.add_argument("--buildifier", required=True, help="buildifier binary")
    parser.add_argument(
        "--generated", action="append", default=[], help="workspace path left to its generator"
    )
    parser.add_argument("mode", choices=["check", "fix"])
    parser.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    config, buildifier = runfile(args.config), runfile(args.buildifier)
    if args.mode == "check":
        return check(args.files, config, buildifier)
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not workspace:
        parser.error("fix rewrites the workspace: run it as `tools/bazel run //:format`")
    return fix(Path(workspace), os.path.join(workspace, "ruff.toml"), buildifier, set(args.generated))


if __name__ == "__main__":
    sys.exit(main())
