"""The entries of tools/ci/doc_commands.yaml: how each README command is checked.

An entry names a command (its key: comments dropped, spacing normalised) and says
  run:      fast (runs in //... under //tools/ci:doc_commands_test) | manual (runs with
            `tools/bazel run //tools/ci:doc_commands -- --manual`) | example (never run) |
            tested (another target runs it as written; the reason names it). Blocks of
            docs/adopting.md marked `<!-- adoption-test: ... -->` are `tested` by
            //tools/ci:adoption_test without an entry.
  reason:   why it is manual or an example (required for both)
  env:      shell (a scratch clone, a new HOME) | venv (the same, plus the documented
            Python environment: the pinned packages and the backend wheel)
  exit:     the exit status it must end with (default 0)
  expect:   text one line of its output (stdout + stderr) must contain (fast and manual)
  setup:    shell run first, in the same shell (variables it sets reach the command)
  check:    shell run right after it in the same shell, for commands that print nothing
            (its output joins theirs; the exit status stays the command's)
  teardown: shell run after it, whatever happened
  serves:   true for a server that runs until stopped: it passes once a line holds
            `expect`, and is then stopped
  timeout:  seconds (default 300)
  edits:    what tracked files the command is documented to change (e.g. recorded timings);
            without it a command must leave the checkout as it found it: a file it leaves
            there (an output written into the tree) makes crcr attribution see a moved backend

Manual commands run in README order in one clone, so a command may use what an earlier
one made (tools/select's stages).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from ruamel.yaml import YAML

from tools.ci.readme_commands.extract import Command
from tools.errors import ToolsError

MANIFEST = "tools/ci/doc_commands.yaml"


class ManifestError(ToolsError, ValueError):
    pass


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str
    run: Literal["fast", "manual", "example", "tested"]
    reason: Optional[str] = None
    env: Literal["shell", "venv"] = "shell"
    exit: int = 0
    expect: Optional[str] = None
    setup: Optional[str] = None
    check: Optional[str] = None
    teardown: Optional[str] = None
    serves: bool = False
    timeout: float = 300.0
    edits: Optional[str] = None

    @model_validator(mode="after")
    def _complete(self) -> "Entry":
        if self.run != "fast" and not self.reason:
            raise ValueError(f"run: {self.run} needs a reason")
        if self.run in ("fast", "manual") and not self.expect:
            raise ValueError(f"run: {self.run} needs expect: (text of one output line)")
        return self

    @property
    def key(self) -> str:
        return Command("", 0, self.command).key


def load(path: Path) -> list[Entry]:
    try:
        tree = YAML(typ="rt").load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ManifestError(f"{path}: {err.strerror}") from None
    except Exception as err:  # ruamel's parser errors carry their own position
        raise ManifestError(f"{path}: not valid YAML: {err}") from None
    if not isinstance(tree, list):
        raise ManifestError(f"{path}: expected a list of entries")
    entries, seen = [], {}
    for i, raw in enumerate(tree):
        line = raw.lc.line + 1 if hasattr(raw, "lc") else i + 1
        try:
            entry = Entry.model_validate(dict(raw))
        except (ValidationError, TypeError, ValueError) as err:
            first = err.errors()[0]["msg"] if isinstance(err, ValidationError) else str(err)
            raise ManifestError(f"{path}:{line}: {first}") from None
        if entry.key in seen:
            raise ManifestError(f"{path}:{line}: the same command as line {seen[entry.key]}")
        seen[entry.key] = line
        entries.append(entry)
    return entries


@dataclass(frozen=True)
class Coverage:
    matched: list[tuple[Command, Entry]]
    missing: list[Command]  # in a README, no entry
    stale: list[Entry]  # an entry no README shows


def cover(commands: list[Command], entries: list[Entry]) -> Coverage:
    by_key = {e.key: e for e in entries}
    for c in commands:  # a block another target runs as written needs no entry here
        if c.tested_by and c.key not in by_key:
            by_key[c.key] = Entry(command=c.key, run="tested", reason=f"{c.tested_by} runs it as written")
    matched = [(c, by_key[c.key]) for c in commands if c.key in by_key]
    missing = [c for c in commands if c.key not in by_key]
    shown = {c.key for c in commands}
    return Coverage(matched, missing, [e for e in entries if e.key not in shown])


def stub(command: Command) -> str:
    """A YAML entry to paste and complete for a command that has none."""
    text = json.dumps(command.key)
    return (
        f"- command: {text}  # {command.where}\n"
        '  run: "manual"            # fast | manual | example\n'
        '  reason: "..."            # why not fast (nested Bazel, network, placeholder, ...)\n'
        '  expect: "..."            # text of one line it prints\n'
    )


def problems(coverage: Coverage) -> list[str]:
    """One line each: a README command without an entry, an entry without a command."""
    out = [
        f"{c.where}: no entry in {MANIFEST} for `{c.key}` (add one: run, reason, expect)"
        for c in coverage.missing
    ]
    out += [
        f"{MANIFEST}: `{e.key}` is in no README any more (remove or update the entry)" for e in coverage.stale
    ]
    return out
