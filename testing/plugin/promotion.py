"""Promotion report: xfail tests that passed, as JSON plus a ready-to-apply YAML diff.

For each config entry whose every variant in this run passed, the diff flips
its mode to mandatory_success (and drops the reason). When only some variants
passed, it adds one exact-variant entry per passing variant instead; an exact
variant name is more specific than the entry, so it takes precedence.

The edits are made on the text, at the lines ruamel.yaml reports for each
node, so the diff holds only the changed lines, whatever the file's
indentation and comments (Torch Spyre's configs are indented their own way).
Flow-style parts (``tests: [{...}]``) fall back to a ruamel round trip with
the file's guessed indentation. Paths in the diff are relative to where
pytest ran: ``patch -p0 < PATH.diff`` applies there.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
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
from ruamel.yaml.util import load_yaml_guess_indent

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
    """(before, after) text of one config with the edits made; the file itself is not written."""
    with open(path, encoding="utf-8") as f:
        before = f.read()
    raw = YAML(typ="rt").load(before)
    flips: dict[int, CommentedMap] = {}
    adds: dict[int, tuple[Any, list[str]]] = {}
    for action, line, name, _ in edits:
        entry = _entry_at(raw, line) if action == "flip" else None
        if entry is not None:
            flips[line] = entry
            continue
        fe = _file_entry_at(raw, line)
        if fe is None:  # the rule line: add next to its file entry
            fe = next((f for f in raw["test_suite_config"].get("files") or [] if _entry_in(f, line)), None)
        if fe is not None:
            names = adds.setdefault(id(fe), (fe, []))[1]
            if name not in names:
                names.append(name)
    try:
        after = _edit_text(before, list(flips.values()), list(adds.values()))
        YAML(typ="rt").load(after)  # still YAML, or take the round trip below
    except _NeedsRoundTrip:
        after = _round_trip(before, list(flips.values()), list(adds.values()))
    return before, after


class _NeedsRoundTrip(Exception):
    """A flow-style node: its text cannot be edited line by line."""


def _edit_text(text: str, flips: list, adds: list) -> str:
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    changes: list[tuple[int, int, list[str]]] = []  # (start, end) 0-based, end exclusive -> new lines
    for entry in flips:
        if entry.fa.flow_style() or "mode" not in entry:
            raise _NeedsRoundTrip()
        m_line, m_col = entry.lc.value("mode")
        changes.append((m_line, m_line + 1, [lines[m_line][:m_col] + "mandatory_success\n"]))
        if "reason" in entry:
            r_line, r_col = entry.lc.key("reason")
            changes.append((r_line, _block_end(lines, r_line, r_col), []))
    for fe, names in adds:
        tests = fe.get("tests")
        if not tests or tests.fa.flow_style() or fe.fa.flow_style():
            raise _NeedsRoundTrip()
        last = len(tests) - 1
        item_line, item_col = tests.lc.item(last)
        dash = lines[item_line].rfind("-", 0, item_col + 1)
        end = _block_end(lines, item_line, dash)
        new = [f"{' ' * dash}- names: [{json.dumps(n)}]  # promoted: passed in this run\n" for n in names]
        changes.append((end, end, new))
    for start, end, new in sorted(changes, key=lambda c: (c[0], c[1]), reverse=True):
        lines[start:end] = new
    return "".join(lines)


def _block_end(lines: list[str], start: int, col: int) -> int:
    """The line after the node starting at `start` whose content is indented deeper than `col`
    (trailing blank and comment lines stay outside: they belong to what follows)."""
    end = start + 1
    for i in range(start + 1, len(lines)):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            continue
        if len(lines[i]) - len(lines[i].lstrip()) <= col:
            break
        end = i + 1
    return end


def _mapping_indent(text: str) -> int:
    """Indentation of the first key under test_suite_config (ruamel guesses only the sequences')."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("test_suite_config:")), 0)
    for line in lines[start + 1 :]:
        if line.strip() and not line.lstrip().startswith("#"):
            return max(len(line) - len(line.lstrip()), 1)
    return 2


def _round_trip(text: str, flips: list, adds: list) -> str:
    """Fallback for flow-style nodes: ruamel round trip with the file's own indentation."""
    _, seq_indent, offset = load_yaml_guess_indent(text)
    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.preserve_quotes = True
    yaml.indent(
        mapping=_mapping_indent(text), sequence=seq_indent or 4, offset=offset if offset is not None else 2
    )
    raw = yaml.load(text)
    flip_lines = {e.lc.line for e in flips}
    add_lines = {fe.lc.line: names for fe, names in adds}
    for fe in raw["test_suite_config"].get("files") or []:
        for entry in fe.get("tests") or []:
            if entry.lc.line in flip_lines:
                entry.pop("reason", None)
                entry["mode"] = "mandatory_success"
        for name in add_lines.get(fe.lc.line, ()):
            new = CommentedMap(names=[name])
            new.yaml_add_eol_comment("promoted: passed in this run", "names")
            fe.setdefault("tests", []).append(new)
    out = io.StringIO()
    yaml.dump(raw, out)
    return out.getvalue()


def _entry_in(file_entry: Any, line: int) -> bool:
    tests = file_entry.get("tests") or []
    return any(tests.lc.item(j)[0] + 1 == line for j in range(len(tests)))


def diff_path(cfg_path: str, invocation_dir: str) -> str:
    """The config's path as `patch -p0` run in `invocation_dir` finds it."""
    return os.path.relpath(os.path.join(invocation_dir, cfg_path), invocation_dir)


def write(path: str, summary: dict, config) -> None:
    plan = load_plan(list(config.option.oot_configs), default_roots(config.option.oot_upstream_root))

    def locate_file(nodeid: str):
        fp = plan.file_plan(os.path.realpath(os.path.join(str(config.rootpath), nodeid.split("::")[0])))
        return (fp.loc.file, fp.loc.line) if fp and fp.loc.line else None

    changes = plan_changes(summary, locate_file)
    diff = []
    here = str(config.invocation_params.dir)
    for cfg_path, edits in sorted(changes.items()):
        before, after = _apply(os.path.join(here, cfg_path), edits)
        # relative to where pytest ran, so `patch -p0 < PATH.diff` applies from there
        name = diff_path(cfg_path, here)
        diff += difflib.unified_diff(before.splitlines(True), after.splitlines(True), name, name)
    report = {
        "version": 1,
        "candidates": [
            {"config": cfg, "action": a, "line": line, "test": name, "nodeid": nodeid}
            for cfg, edits in sorted(changes.items())
            for a, line, name, nodeid in edits
        ],
        "diff": path + ".diff",
    }
    write_atomic(path + ".diff", "".join(diff))
    write_atomic(path, json.dumps(report, indent=1) + "\n")
