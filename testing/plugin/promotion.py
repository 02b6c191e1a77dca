"""Promotion report: xfail tests that passed, as JSON plus a ready-to-apply YAML diff.

For each config entry whose every variant in this run passed, the diff flips
its mode to mandatory_success (and drops the reason). When only some variants
passed, it adds one exact-variant entry per passing variant instead; an exact
variant name is more specific than the entry, so it takes precedence.
"""

from __future__ import annotations

import difflib
import io
import json
import os
from collections import defaultdict
from typing import Any, Optional

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from testing.plugin.config import default_roots, load_plan
from testing.plugin.files import write_atomic

PASSING = ("xpassed", "xpassed_strict")


def _entry_at(raw: Any, line: int) -> Optional[CommentedMap]:
    for fe in raw["test_suite_config"].get("files") or []:
        tests = fe.get("tests") or []
        for j, entry in enumerate(tests):
            if tests.lc.item(j)[0] + 1 == line:
                return entry
    return None


def _file_entry_at(raw: Any, line: int) -> Optional[CommentedMap]:
    files = raw["test_suite_config"].get("files") or []
    for i, fe in enumerate(files):
        if files.lc.item(i)[0] + 1 == line:
            return fe
    return None


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
    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)  # the layout configs/ uses
    with open(path, encoding="utf-8") as f:
        before = f.read()
    raw = yaml.load(before)
    for action, line, name, _ in edits:
        if action == "flip":
            entry = _entry_at(raw, line)
            if entry is not None:
                entry.pop("reason", None)
                entry["mode"] = "mandatory_success"
                continue
        fe = _file_entry_at(raw, line)
        if fe is None:  # the rule line: add next to its file entry
            fe = next((f for f in raw["test_suite_config"]["files"] if _entry_in(f, line)), None)
        if fe is None:
            continue
        new = CommentedMap(names=[name])
        new.yaml_add_eol_comment("promoted: passed in this run", "names")
        fe.setdefault("tests", []).append(new)
    out = io.StringIO()
    yaml.dump(raw, out)
    return before, out.getvalue()


def _entry_in(file_entry: Any, line: int) -> bool:
    tests = file_entry.get("tests") or []
    return any(tests.lc.item(j)[0] + 1 == line for j in range(len(tests)))


def write(path: str, summary: dict, config) -> None:
    plan = load_plan(list(config.option.oot_configs), default_roots(config.option.oot_upstream_root))

    def locate_file(nodeid: str):
        fp = plan.file_plan(os.path.realpath(os.path.join(str(config.rootpath), nodeid.split("::")[0])))
        return (fp.loc.file, fp.loc.line) if fp and fp.loc.line else None

    changes = plan_changes(summary, locate_file)
    diff = []
    for cfg_path, edits in sorted(changes.items()):
        before, after = _apply(cfg_path, edits)
        # relative to where pytest ran, so `patch -p0 < PATH.diff` applies from there
        name = os.path.relpath(cfg_path, str(config.invocation_params.dir))
        diff += difflib.unified_diff(before.splitlines(True), after.splitlines(True), name, name)
    report = {
        "version": 1,
        "candidates": [
            {"config": cfg, "action": a, "line": line, "test": name, "nodeid": nodeid}
            for cfg, edits in sorted(changes.items()) for a, line, name, nodeid in edits
        ],
        "diff": path + ".diff",
    }
    write_atomic(path + ".diff", "".join(diff))
    write_atomic(path, json.dumps(report, indent=1) + "\n")
