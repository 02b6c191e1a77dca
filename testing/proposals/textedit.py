"""Proposed config edits made on a config's text and shown as one unified diff.

The edits themselves are the config contract's comment-preserving text edits
(testing/config/edit.py: only the changed lines differ, whatever the file's indentation and
comments); this module applies a proposal's edits to a config's text, never writes the config,
and renders every proposer's diff the same way: the plugin's promotion report, the skip
audit, crcr's warehouse promotions and new-in-scope note, tools/select's refinement.
"""

from __future__ import annotations

import difflib
import os
from typing import Any, Iterable, Optional

from testing.config import edit
from testing.config.load import parse_yaml
from testing.proposals.promotions import Edit


def unified(name: str, before: str, after: str, new_name: Optional[str] = None) -> str:
    """One config's unified diff: `name` on both sides (applied with `patch -p0` where it is
    valid), or git's `a/...` and `b/...` labels given as `name` and `new_name`."""
    lines = difflib.unified_diff(before.splitlines(True), after.splitlines(True), name, new_name or name)
    return "".join(lines)


def render(configs: Iterable[tuple[str, str, str]]) -> str:
    """The diff of several configs, (name, before, after) each; unchanged ones say nothing."""
    return "".join(unified(name, before, after) for name, before, after in configs if before != after)


def flip(text: str, lines: list[int], path: str = "<config>") -> str:
    """`text` with the entries starting at `lines` made mandatory_success (their reason dropped)."""
    raw = parse_yaml(text, path)
    return edit.promote(text, [edit.entry_at(raw, line) for line in lines], [])


def apply_edits(path: str, edits: list[Edit]) -> tuple[str, str]:
    """(before, after) text of one config with promotion edits made; the file is not written."""
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


def config_diff(changes: dict[str, list[Edit]], here: str) -> str:
    """The unified diff of ``changes`` (promotions.plan_changes) to the configs, paths relative
    to ``here`` (where pytest ran, or the warehouse's workspace)."""
    configs = []
    for cfg_path, edits in sorted(changes.items()):
        before, after = apply_edits(os.path.join(here, cfg_path), edits)
        configs.append((diff_path(cfg_path, here), before, after))
    return render(configs)
