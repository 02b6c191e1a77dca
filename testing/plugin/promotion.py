"""Promotion report: xfail tests that passed, as JSON plus a ready-to-apply YAML diff.

For each config entry whose every variant in this run passed, the diff flips
its mode to mandatory_success (and drops the reason). When only some variants
passed, it adds one exact-variant entry per passing variant instead; an exact
variant name is more specific than the entry, so it takes precedence.

The edits are the config contract's text edits (testing/config/edit.py:
only the changed lines differ, whatever the file's indentation and comments).
Paths in the diff are relative to where
pytest ran: ``patch -p0 < PATH.diff`` applies there.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
from collections import defaultdict
from typing import Any

from testing.base.atomic import write_json, write_text
from testing.config import edit
from testing.config.load import parse_yaml
from testing.config.paths import default_roots
from testing.plugin.plan import load_plan

PASSING = ("xpassed", "xpassed_strict")


def plan_changes(summary: dict, locate_file) -> dict[str, list[tuple[str, int, str, str]]]:
    """config path -> [(action, line, class::variant, nodeid)]; action 'flip' or 'add'."""
    by_rule: dict[str, list[dict]] = defaultdict(list)
    for t in summary["tests"]:
        if t.get("rule"):
            by_rule[t["rule"]].append(t)
    changes: dict[str, list] = defaultdict(list)
    for t in summary["tests"]:
        if t["outcome"] not in PASSING:
            continue
        name = f"{t.get('class', '')}::{t.get('variant', t['nodeid'].split('::')[-1])}"
        if t.get("rule"):
            path, line = t["rule"].rsplit(":", 1)
            siblings = by_rule[t["rule"]]
            action = "flip" if all(s["outcome"] in PASSING for s in siblings) else "add"
            changes[path].append((action, int(line), name, t["nodeid"]))
        else:
            where = locate_file(t["nodeid"])
            if where:
                changes[where[0]].append(("add", where[1], name, t["nodeid"]))
    return changes


def _apply(path: str, edits: list[tuple[str, int, str, str]]) -> tuple[str, str]:
    """(before, after) text of one config with the edits made; the file itself is not written."""
    with open(path, encoding="utf-8") as f:
        before = f.read()
    raw = parse_yaml(before, path)
    flips: dict[int, Any] = {}
    adds: dict[int, tuple[Any, list[str]]] = {}
    for action, line, name, _ in edits:
        entry = edit.entry_at(raw, line) if action == "flip" else None
        if entry is not None:
            flips[line] = entry
            continue
        fe = edit.file_entry_at(raw, line)
        if fe is None:  # the rule line: add next to its file entry
            fe = next((f for f in edit.file_entries(raw) if edit.holds_entry_at(f, line)), None)
        if fe is not None:
            names = adds.setdefault(id(fe), (fe, []))[1]
            if name not in names:
                names.append(name)
    return before, edit.promote(before, list(flips.values()), list(adds.values()))


def diff_path(cfg_path: str, invocation_dir: str) -> str:
    """The config's path as `patch -p0` run in `invocation_dir` finds it."""
    return os.path.relpath(os.path.join(invocation_dir, cfg_path), invocation_dir)


def config_diff(changes: dict[str, list[tuple[str, int, str, str]]], here: str) -> str:
    """The unified diff of ``changes`` (plan_changes) to the configs, paths relative to ``here``
    (also used by crcr's results warehouse for candidates that passed K runs in a row)."""
    diff: list[str] = []
    for cfg_path, edits in sorted(changes.items()):
        before, after = _apply(os.path.join(here, cfg_path), edits)
        # relative to where pytest ran, so `patch -p0 < PATH.diff` applies from there
        name = diff_path(cfg_path, here)
        diff.append(edit.unified(name, before, after))
    return "".join(diff)


def write(path: str, summary: dict, config, plan=None) -> None:
    """`plan`: the run's own; None in an isolating controller, which has read no config yet."""
    if plan is None:
        plan = load_plan(list(config.option.oot_configs), default_roots(config.option.oot_upstream_root))

    def locate_file(nodeid: str):
        fp = plan.file_plan(os.path.realpath(os.path.join(str(config.rootpath), nodeid.split("::")[0])))
        return (fp.loc.file, fp.loc.line) if fp and fp.loc.line else None

    changes = plan_changes(summary, locate_file)
    diff = config_diff(changes, str(config.invocation_params.dir))
    report = {
        "version": 1,
        "candidates": [
            {"config": cfg, "action": a, "line": line, "test": name, "nodeid": nodeid}
            for cfg, edits in sorted(changes.items())
            for a, line, name, nodeid in edits
        ],
        "diff": path + ".diff",
    }
    write_text(path + ".diff", diff)
    write_json(path, report)
