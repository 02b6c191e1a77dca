"""Write testing/targets/configs.bzl from configs/**/*.yaml.

    python3 -m testing.targets.generate           # rewrite the file
    python3 -m testing.targets.generate --check   # exit 1 if it is stale
    tools/bazel run //testing/targets:generate    # same, from Bazel

The Starlark macro in defs.bzl turns the data into test targets, so a config
edit changes targets after regenerating, with no BUILD edit; the test
//testing/targets:generated_test fails while the file is stale. Writing fails on any
config problem the strict check (testing/check) finds.
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from testing.base.atomic import write_text
from testing.base.cliargs import Parser, user_path, workspace_dir
from testing.base.command import command
from testing.base.errors import ConfigError, OotError
from testing.config import features, runs
from testing.config.load import load
from testing.config.paths import files_under
from testing.targets.model import (
    ConfigFile,
    config_file,
    config_targets,
    device_sets,
    label_of,
    marked_targets,
    runnable,
    sanitize,
)

OUTPUT = Path("testing/targets/configs.bzl")
CONFIG_DIR = Path(features.CONFIG_DIR)
HEADER = '''"""Test targets implied by configs/: generated, do not edit.

Regenerate: tools/bazel run //testing/targets:generate (checked by //testing/targets:generated_test).
"""

'''


class GenerateError(OotError):
    pass


def config_files(root: Path) -> list[Path]:
    """Every config YAML under configs/ (the same set the CI legs are planned from)."""
    return features.config_files(root / CONFIG_DIR)


def _expander(root: Path):
    def expand(pattern: str) -> list[str]:
        hits = files_under(root, pattern)
        if not hits:
            raise GenerateError(f"${{REPO_ROOT}}/{pattern}: no such file in the repository")
        return [h.relative_to(root).as_posix() for h in hits]

    return expand


def read_configs(root: Path) -> list[ConfigFile]:
    configs = []
    for path in config_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            doc = load(str(path)).doc
        except ConfigError as err:
            raise GenerateError(str(err)) from None
        stem = path.relative_to(root / CONFIG_DIR).with_suffix("").as_posix()
        try:
            configs.append(config_file(stem, rel, doc, _expander(root)))
        except GenerateError as err:
            raise GenerateError(f"{rel}: {err}") from None
    return configs


def collect_marks(root: Path, configs: list[str], suites: list[str]) -> dict[str, list[str]]:
    """{node id: op__/dtype__/model__ marks} of what the configured suites generate,
    from a real `pytest --collect-only` with the adaptation plugin."""
    if not suites:
        return {}
    with tempfile.TemporaryDirectory(prefix="targets-") as tmp:
        out = Path(tmp) / "marks.json"
        cmd = runs.PytestCommand(
            paths=suites,
            plugins=[runs.PLUGIN, "testing.targets.collect"],
            configs=configs,
            extra=[f"--collect-marks-out={out}"],
            quiet=True,
            cache=False,
            collect_only=True,
        ).argv()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root)] + sys.path))
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
        if proc.returncode not in (0, 5) or not out.exists():
            lines = [x for x in (proc.stderr + proc.stdout).splitlines() if x.strip()]
            raise GenerateError(
                f"collecting {' '.join(suites)} failed (exit {proc.returncode}): "
                f"{lines[-1] if lines else 'no output'}"
            )
        return json.loads(out.read_text(encoding="utf-8"))


def build(root: Path, collect=None) -> dict:
    configs = read_configs(root)
    packages = bazel_packages(root)
    label = lambda path: label_of(path, packages)  # noqa: E731
    devices = device_sets(configs)
    ops: dict = {}
    dtypes: dict = {}
    models: dict = {}
    for group, members in sorted(devices.items()):
        # One device set gets plain op_<name>; several are told apart by their directory.
        prefix = "" if len(devices) == 1 else sanitize(group) + "_"
        marks = (collect or collect_marks)(root, *runnable(members))
        ops.update({prefix + k: v for k, v in marked_targets(marks, "op", members, label).items()})
        dtypes.update({prefix + k: v for k, v in marked_targets(marks, "dtype", members, label).items()})
        models.update({prefix + k: v for k, v in marked_targets(marks, "model", members, label).items()})
    return {"configs": config_targets(configs, label), "ops": ops, "dtypes": dtypes, "models": models}


def check_configs(root: Path) -> None:
    """Targets are written from clean configs only: every problem the strict check finds
    (testing/check, as //... runs it) stops generation, each at its file:line."""
    from testing.check import check, report

    _, found = check.check(root, [root / CONFIG_DIR])
    failing = [f for f in found if report.fails(f, strict=True)]
    if failing:
        lines = "\n".join(f"  {f}" for f in failing)
        raise GenerateError(f"{len(failing)} config problems (python3 -m testing.check --strict):\n{lines}")


def bazel_packages(root: Path) -> set[str]:
    """Directories holding a BUILD file ("" is the root package)."""
    found = set()
    for here, dirs, files in os.walk(root):
        # Bazel's output symlinks and hidden directories hold no packages of ours.
        dirs[:] = [d for d in dirs if not d.startswith((".", "bazel-"))]
        if "BUILD.bazel" in files or "BUILD" in files:
            rel = Path(here).relative_to(root).as_posix()
            found.add("" if rel == "." else rel)
    return found


SECTIONS = ("configs", "ops", "dtypes", "models")


def render(data: dict) -> str:
    # JSON of strings, lists and dicts is valid Starlark.
    lines = [HEADER]
    for key in SECTIONS:
        lines.append(f"{key.upper()} = {json.dumps(data[key], indent=4, sort_keys=True)}\n\n")
    return "".join(lines).rstrip("\n") + "\n"


def parse(text: str) -> dict:
    """render's inverse ({} for a section the text lacks or cannot be read)."""
    data: dict = {}
    for key in SECTIONS:
        at = text.find(f"\n{key.upper()} = ")
        try:
            data[key] = json.JSONDecoder().raw_decode(text, text.index("{", at))[0] if at >= 0 else {}
        except ValueError:
            data[key] = {}
    return data


def changes(current: str, fresh: str) -> str:
    """What regenerating changes, target by target: 'ops +op_mul -op_sub ~op_add; ...' ('' if nothing)."""
    old, new = parse(current), parse(fresh)
    parts = []
    for key in SECTIONS:
        was, now = old.get(key, {}), new.get(key, {})
        marks = [f"+{t}" for t in sorted(now.keys() - was.keys())]
        marks += [f"-{t}" for t in sorted(was.keys() - now.keys())]
        marks += [f"~{t}" for t in sorted(was.keys() & now.keys()) if was[t] != now[t]]
        if marks:
            shown = " ".join(marks[:8]) + (f" (+{len(marks) - 8} more)" if len(marks) > 8 else "")
            parts.append(f"{key} {shown}")
    return "; ".join(parts) or ("layout only" if current != fresh else "")


def current_text(root: Path) -> str:
    return (root / OUTPUT).read_text(encoding="utf-8") if (root / OUTPUT).exists() else ""


def stale_diff(root: Path, fresh: str | None = None) -> str:
    """Unified diff from the checked-in file to a fresh one ('' if current)."""
    fresh = render(build(root)) if fresh is None else fresh
    return "".join(
        difflib.unified_diff(
            current_text(root).splitlines(True),
            fresh.splitlines(True),
            str(OUTPUT),
            f"{OUTPUT} (from configs/)",
        )
    )


def stale_line(current: str, fresh: str) -> str:
    """The one line a stale file is named by, with what regenerating changes."""
    return f"{OUTPUT} is stale ({changes(current, fresh)}): run tools/bazel run //testing/targets:generate"


@command("generate", {GenerateError: 2}, prefix="error: ")
def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python3 -m testing.targets.generate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report whether the file is stale")
    parser.add_argument(
        "--root", type=user_path, default=workspace_dir(), help="the checkout (default: here)"
    )
    args = parser.parse_args(argv)
    if not (args.root / "configs").is_dir():  # else it wrote a configs.bzl under any directory
        parser.error(f"--root {args.root}: no configs/ directory there")
    current, fresh = current_text(args.root), render(build(args.root))  # built once (minutes)
    if args.check:
        if current != fresh:
            print(stale_diff(args.root, fresh) + "\n" + stale_line(current, fresh), file=sys.stderr)
            return 1
        return 0
    check_configs(args.root)
    if current != fresh:
        write_text(args.root / OUTPUT, fresh)
        print(f"{OUTPUT}: updated: {changes(current, fresh)}")
    else:
        print(f"{OUTPUT}: already current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
