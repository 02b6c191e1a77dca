"""The one YAML writer: comment-preserving edits of configs, rendered or written atomically.

Two ways, both keeping every comment and the file's own layout:

* text edits (``promote``): made on the text at the lines ruamel.yaml reports, so a diff
  holds only the changed lines whatever the indentation (Torch Spyre's configs keep
  theirs); flow-style parts fall back to a round trip with the file's guessed indentation;
* round trip (``dump`` / ``write``): a tree read by ``read_yaml`` (testing.yamldoc) is changed and
  dumped with one fixed layout (tools/select's generated configs and records).

Entries are found by the line they start on (a rule's file:line) or by the test file they
name (``file_entry_for``: the path under its ``${ROOT}``, globs allowed).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import fnmatch
import io
import json
import re
from enum import Enum
from pathlib import Path
from typing import Any, Optional

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.util import load_yaml_guess_indent

from testing.base.atomic import write_text
from testing.base.errors import ConfigError
from testing.config.modes import Mode
from testing.config.paths import split_root
from testing.yamldoc.read import parse_yaml, round_trip

# ---------------------------------------------------------------- round trip


def _writer(yaml: YAML) -> YAML:
    """Enum members (Mode) are written as their values."""
    yaml.representer.add_multi_representer(Enum, lambda rep, data: rep.represent_str(data.value))
    return yaml


def dump(tree: Any) -> str:
    out = io.StringIO()
    _writer(round_trip()).dump(tree, out)
    return out.getvalue()


def write(path: str | Path, tree: Any) -> Path:
    """The tree dumped to `path`, whole or not at all."""
    return write_text(path, dump(tree))


# ---------------------------------------------------------------- finding entries


def file_entries(raw: Any) -> list:
    return raw["test_suite_config"].get("files") or []


def entry_at(raw: Any, line: int) -> Optional[CommentedMap]:
    """The test entry starting at a 1-based line (a rule's file:line)."""
    for fe in file_entries(raw):
        tests = fe.get("tests") or []
        for j, entry in enumerate(tests):
            if tests.lc.item(j)[0] + 1 == line:
                return entry
    return None


def file_entry_at(raw: Any, line: int) -> Optional[CommentedMap]:
    """The file entry starting at a 1-based line."""
    files = file_entries(raw)
    for i, fe in enumerate(files):
        if files.lc.item(i)[0] + 1 == line:
            return fe
    return None


def holds_entry_at(file_entry: Any, line: int) -> bool:
    """Does this file entry hold the test entry starting at `line`?"""
    tests = file_entry.get("tests") or []
    return any(tests.lc.item(j)[0] + 1 == line for j in range(len(tests)))


def file_entry_for(raw: Any, test_file: str) -> Optional[CommentedMap]:
    """The first file entry naming `test_file` (relative to the run's root, e.g.
    testing/suites/test_x.py or test/test_view_ops.py): its path under ${REPO_ROOT} or
    ${TORCH_ROOT} equals it or matches it as a glob."""
    for fe in file_entries(raw):
        _, rel = split_root(str(fe.get("path", "")))
        if rel == test_file or fnmatch.fnmatchcase(test_file, rel):
            return fe
    return None


# ---------------------------------------------------------------- promotion: flip and add


def promote(text: str, flips: list, adds: list) -> str:
    """The config's text with each entry of `flips` made mandatory_success (its reason
    dropped) and, for each (file entry, names) of `adds`, one exact entry per name
    appended to that file's tests; `flips`/`adds` are nodes of ``parse_yaml(text, ...)``."""
    try:
        after = _edit_text(text, flips, adds)
        parse_yaml(after, "<promoted>")  # still YAML, or take the round trip below
    except (_NeedsRoundTrip, ConfigError):
        after = _round_trip(text, flips, adds)
    return after


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
        changes.append((m_line, m_line + 1, [lines[m_line][:m_col] + Mode.mandatory_success.value + "\n"]))
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


def _own_layout(text: str) -> tuple[YAML, Any]:
    """A round-trip YAML dumping with the file's own indentation, and the file's tree."""
    _, seq_indent, offset = load_yaml_guess_indent(text)
    yaml = _writer(YAML(typ="rt"))
    yaml.width = 4096
    yaml.preserve_quotes = True
    yaml.indent(
        mapping=_mapping_indent(text), sequence=seq_indent or 4, offset=offset if offset is not None else 2
    )
    return yaml, yaml.load(text)


def _round_trip(text: str, flips: list, adds: list) -> str:
    """Fallback for flow-style nodes: ruamel round trip with the file's own indentation."""
    yaml, raw = _own_layout(text)
    flip_lines = {e.lc.line for e in flips}
    add_lines = {fe.lc.line: names for fe, names in adds}
    for fe in raw["test_suite_config"].get("files") or []:
        for entry in fe.get("tests") or []:
            if entry.lc.line in flip_lines:
                entry.pop("reason", None)
                entry["mode"] = Mode.mandatory_success.value
        for name in add_lines.get(fe.lc.line, ()):
            new = CommentedMap(names=[name])
            new.yaml_add_eol_comment("promoted: passed in this run", "names")
            fe.setdefault("tests", []).append(new)
    out = io.StringIO()
    yaml.dump(raw, out)
    return out.getvalue()


# ---------------------------------------------------------------- new in scope: bucket and re-key

NEW_REASON = "new in scope upstream; not yet looked at on this backend"


def bucket_new(text: str, test_file: str, new: list[str], renamed: dict[str, str], since: str) -> str:
    """The config's text with upstream's moves applied to the file entry naming `test_file`
    (checkout-relative, e.g. test/test_x.py):

    * `renamed` {old class: new class}: every name ``Old::...`` of that entry becomes
      ``New::...`` (the renamed tests keep their bucket);
    * `new` (``Class::test`` names): one ``xfail_strict`` entry with ``reason`` and ``since``
      appended to its tests (a file no entry names gets one, with that entry).

    Text edits where the layout allows (only changed lines differ), else a round trip."""
    raw = parse_yaml(text, "<config>")
    fe = file_entry_for(raw, test_file)
    try:
        if fe is None or not fe.get("tests") or fe.fa.flow_style() or fe["tests"].fa.flow_style():
            raise _NeedsRoundTrip()
        after = _bucket_text(text, fe, new, renamed, since)
        parse_yaml(after, "<new in scope>")
    except (_NeedsRoundTrip, ConfigError):
        after = _bucket_round_trip(text, test_file, new, renamed, since)
    return after


def _bucket_text(text: str, fe: Any, new: list[str], renamed: dict[str, str], since: str) -> str:
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    tests = fe["tests"]
    first = tests.lc.item(0)[0]
    last_line, last_col = tests.lc.item(len(tests) - 1)
    dash = lines[last_line].rfind("-", 0, last_col + 1)
    end = _block_end(lines, last_line, dash)
    for i in range(first, end):  # the entry's names only: comments and other files untouched
        lines[i] = _rekey(lines[i], renamed)
    if new:
        pad, key = " " * dash, " " * (dash + 2)
        lines[end:end] = [
            f"{pad}- names: [{', '.join(json.dumps(n) for n in new)}]\n",
            f"{key}mode: xfail_strict\n",
            f"{key}reason: {json.dumps(NEW_REASON)}\n",
            f"{key}since: {json.dumps(since)}\n",
        ]
    return "".join(lines)


def _rekey(line: str, renamed: dict[str, str]) -> str:
    for old, new in renamed.items():
        line = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(old)}::", f"{new}::", line)
    return line


def _bucket_round_trip(text: str, test_file: str, new: list[str], renamed: dict[str, str], since: str) -> str:
    yaml, raw = _own_layout(text)
    fe = file_entry_for(raw, test_file)
    if fe is None:
        fe = CommentedMap(path=f"${{TORCH_ROOT}}/{test_file}", tests=[])
        raw["test_suite_config"].setdefault("files", []).append(fe)
    tests = fe.setdefault("tests", [])
    for entry in tests:
        names = entry.get("names")
        if isinstance(names, str):
            entry["names"] = _rekey(names, renamed)
        elif names is not None:
            for i, n in enumerate(names):
                names[i] = _rekey(n, renamed)
    if new:
        tests.append(CommentedMap(names=list(new), mode="xfail_strict", reason=NEW_REASON, since=since))
    out = io.StringIO()
    yaml.dump(raw, out)
    return out.getvalue()
