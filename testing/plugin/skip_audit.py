"""Skip audit: re-run the skip-bucket entries of configs under crash isolation and propose
removing those that now pass.

    python3 -m testing.plugin.skip_audit --config configs/spyre/device.yaml \
        --config configs/spyre/op_consistency.yaml -o out/skip-audit.json [--upstream-root PATH] [FILE ...]

Each config with ``mode: skip`` entries is copied to a temp dir with those entries flipped
to mandatory_success (the proposals' flip, testing/proposals/textedit.py, through the config
contract's comment-preserving promotion edit), and one ``pytest --isolate`` runs them (a skip is often there
because the test crashes). An entry all of whose variants passed (at least one) is a
removal candidate: ``OUT.diff`` flips it in the real config, through the same edit as the
xfail_strict promotion, and ``OUT`` (JSON) lists every entry with its variants' outcomes.
Apply with ``patch -p0 < OUT.diff`` from where the command ran. Bad input: one line, exit 2.
The nightly workflow's ``skip-audit`` job runs it.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from typing import Optional

from ruamel.yaml import YAML

from testing.base import flags
from testing.base.atomic import write_json, write_text
from testing.base.cliargs import Parser
from testing.base.command import command
from testing.base.errors import ConfigError
from testing.config import edit, runs
from testing.config.modes import Mode
from testing.config.paths import default_roots
from testing.plugin.plan import load_plan
from testing.proposals import textedit


def skip_rules(plan) -> dict[str, list[int]]:
    """config path -> 1-based lines of its skip entries."""
    out: dict[str, set[int]] = defaultdict(set)
    for fp in plan.files:
        for rule in fp.rules:
            if rule.entry.mode == Mode.skip:
                out[rule.loc.file].add(rule.loc.line)
    return {k: sorted(v) for k, v in out.items()}


def _entry_lines(text: str) -> list[list[int]]:
    """Per file entry, the start line of each test entry (order is what maps a flipped copy back)."""
    raw = YAML(typ="rt").load(text)
    return [
        [fe["tests"].lc.item(j)[0] + 1 for j in range(len(fe.get("tests") or []))]
        for fe in edit.file_entries(raw)
    ]


def flipped(path: str, lines: list[int]) -> tuple[str, str, dict[int, int]]:
    """(before, after, original line -> line in `after`) with those entries made mandatory."""
    before = open(path, encoding="utf-8").read()
    after = textedit.flip(before, lines, path)
    moved = {
        old: new
        for olds, news in zip(_entry_lines(before), _entry_lines(after))
        for old, new in zip(olds, news)
        if old in lines
    }
    return before, after, moved


def run_audit(
    configs: list[str], files: list[str], upstream_root: Optional[str], work: str, extra: list[str]
) -> dict:
    plan = load_plan(configs, default_roots(upstream_root))
    rules = skip_rules(plan)
    copies, where, texts = [], {}, {}
    for i, cfg in enumerate(configs):
        real = os.path.realpath(cfg)
        key = next((k for k in rules if os.path.realpath(k) == real), None)
        if key is None:
            copies.append(cfg)
            continue
        before, after, moved = flipped(cfg, rules[key])
        copy = os.path.join(work, f"{i}-{os.path.basename(cfg)}")
        write_text(copy, after)
        copies.append(copy)
        texts[cfg] = before
        where.update({f"{copy}:{new}": (cfg, old) for old, new in moved.items()})
    paths = files or sorted(
        {p for fp in plan.files if any(r.entry.mode == Mode.skip for r in fp.rules) for p in _glob(fp.path)}
    )
    summary = os.path.join(work, "summary.json")
    argv = runs.PytestCommand(
        paths=paths,
        plugins=[runs.PLUGIN],
        configs=copies,
        args=extra,
        extra=["--isolate"],
        quiet=True,
        cache=False,
        upstream_root=upstream_root,
        summary=summary,
    ).argv()
    subprocess.run(argv, check=False)
    try:
        tests = json.load(open(summary)).get("tests", [])
    except (OSError, ValueError):
        raise ValueError("the audit run wrote no summary (see its output above)") from None
    found: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for t in tests:
        if t.get("rule") in where:
            found[where[t["rule"]]].append(t)
    entries = []
    for cfg in texts:
        for line in rules[next(k for k in rules if os.path.realpath(k) == os.path.realpath(cfg))]:
            ran = found.get((cfg, line), [])
            passing = bool(ran) and all(t["outcome"] == "passed" for t in ran)
            entries.append(
                {
                    "config": cfg,
                    "line": line,
                    "remove": passing,
                    "variants": {t["nodeid"]: t["outcome"] for t in ran},
                }
            )
    return {"version": 1, "entries": entries, "texts": texts}


def _glob(path: str) -> list[str]:
    return sorted(glob.glob(path))


def write_report(out: str, audit: dict) -> str:
    """OUT (JSON) and OUT.diff; returns the diff text."""
    configs = []
    for cfg, before in sorted(audit["texts"].items()):
        lines = [e["line"] for e in audit["entries"] if e["config"] == cfg and e["remove"]]
        if lines:
            configs.append((os.path.relpath(cfg), before, textedit.flip(before, lines, cfg)))
    text = textedit.render(configs)
    write_text(out + ".diff", text)
    write_json(out, {"version": 1, "entries": audit["entries"], "diff": out + ".diff"})
    return text


@command("skip_audit", {(ConfigError, ValueError): 2}, prefix="skip_audit: ")
def main(argv: Optional[list[str]] = None) -> int:
    parser = Parser(prog="python3 -m testing.plugin.skip_audit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", action="append", required=True, metavar="YAML")
    parser.add_argument(
        "-o", "--output", required=True, metavar="JSON", help="report; the diff goes to JSON.diff"
    )
    flags.upstream_root(parser)
    parser.add_argument(
        "--pytest-arg", action="append", default=[], metavar="ARG", help="passed to pytest (repeatable)"
    )
    parser.add_argument("files", nargs="*", help="test files (default: those the skip entries name)")
    args = parser.parse_args(argv)
    if os.environ.get("BUILD_WORKING_DIRECTORY"):  # `tools/bazel run`: paths are the caller's
        os.chdir(os.environ["BUILD_WORKING_DIRECTORY"])
    for cfg in args.config:
        if not os.path.isfile(cfg):
            print(f"skip_audit: --config {cfg}: no such file", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="oot-skip-audit-") as work:
        root = str(args.upstream_root) if args.upstream_root else None
        audit = run_audit(args.config, args.files, root, work, args.pytest_arg)
    write_report(args.output, audit)
    removable = sum(e["remove"] for e in audit["entries"])
    print(
        f"skip_audit: {len(audit['entries'])} skip entries re-run, {removable} now pass: {args.output}.diff"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
