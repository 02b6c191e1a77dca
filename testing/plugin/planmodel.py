"""The plan's types: a frozen ``Plan`` of per-file ``FilePlan``s, their ``Rule``s and the
global ``Named`` supported_* entries (plan.py builds it, merging.py merges several). No YAML,
no torch.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional

from testing.base.errors import Loc
from testing.config.gating import Declared
from testing.config.modes import Mode
from testing.plugin.problems import Problem

if TYPE_CHECKING:
    from testing.config.models import GlobalConfig, TestEntry

COMPAT_TORCH_SPYRE = "torch_spyre"
# Torch Spyre's model-input specs on op/module includes: read, not applied (a warning says so).
UNREAD_KEYS = ("sample_inputs_func", "module_path", "constructor_inputs", "forward_inputs", "tags")
SCALAR_GLOBALS = (
    "backend",
    "device_type",
    "capabilities",
    "input_config",
    "compat",
    "relax_device_restrictions",
    "adapter",
    "scope",
    "hang_window",
)


@dataclass(frozen=True)
class Rule:
    """One test entry of one file, with where it was written.

    names: the patterns this rule still owns (None: all of the entry's; a
    duplicate written later takes a pattern over). comment_reason: the nearest
    YAML comment (comments.py), used when the entry has no 'reason';
    name_reasons: a comment after one name, that name's own reason.
    class_insensitive: 'Class::method' also names `method` of every other
    class (compat: torch_spyre).
    """

    entry: TestEntry
    loc: Loc
    names: Optional[tuple[str, ...]] = None
    comment_reason: Optional[str] = None
    name_reasons: tuple[tuple[str, str], ...] = ()
    class_insensitive: bool = False
    name_lines: tuple[tuple[str, int], ...] = ()  # where each name is written (a block list: its own line)

    @property
    def patterns(self) -> tuple[str, ...]:
        return self.names if self.names is not None else tuple(self.entry.name_list)

    @property
    def reason(self) -> Optional[str]:
        return self.entry.reason or self.comment_reason

    def loc_of(self, pattern: str) -> Loc:
        """file:line of one name (the entry's line when the names share it)."""
        line = dict(self.name_lines).get(pattern)
        return Loc(self.loc.file, line) if line else self.loc

    def reason_for(self, pattern: Optional[str]) -> Optional[str]:
        """The reason a variant matched by `pattern` gets: the 'reason' key, else that
        name's own comment, else the entry's nearest comment."""
        if self.entry.reason:
            return self.entry.reason
        own = dict(self.name_reasons).get(pattern) if pattern else None
        return own or self.comment_reason

    @property
    def selector_key(self) -> tuple:
        e = self.entry
        # Two models' model-op entries name the same test but are not duplicates: their cases differ.
        cases = tuple((self.loc.file, i.source_line) for i in model_cases(e))
        return (
            tuple(tuple(sorted(x)) if x is not None else None for x in (e.ops, e.dtypes, e.modules)) + cases
        )


def model_cases(entry: TestEntry) -> list:
    """The entry's model-op cases: op includes with sample_inputs_func (testing/config/modelops.py)."""
    ops = entry.edits.ops if entry.edits else None
    return [
        i for i in (ops.include if ops else ()) if not isinstance(i, str) and i.sample_inputs_func is not None
    ]


@dataclass(frozen=True)
class FilePlan:
    path: str  # resolved, may contain fnmatch globs
    unlisted_mode: Mode
    unlisted_reason: Optional[str]
    relax_device_restrictions: bool
    relax_only_for: bool
    rules: tuple[Rule, ...]
    loc: Loc
    collect: bool = True
    reason: Optional[str] = None
    unlisted_explicit: bool = True  # False: the default was taken (compat may change it)

    def matches(self, file_path: str) -> bool:
        return fnmatch.fnmatchcase(os.path.realpath(file_path), self.path)


@dataclass(frozen=True)
class Named:
    """A global supported_* entry with its source location."""

    spec: Any  # DtypeSpec | OpSpec | ModuleSpec
    loc: Loc
    comment_reason: Optional[str] = None  # the nearest YAML comment (force_xfail without 'reason')

    @property
    def reason(self) -> Optional[str]:
        return self.spec.reason or self.comment_reason


@dataclass(frozen=True)
class Plan:
    files: tuple[FilePlan, ...]
    global_: Optional[GlobalConfig]  # None: read from no file (see setting)
    ops: Optional[dict[str, Named]]  # None: no restriction from configs
    dtypes: Optional[dict[str, Named]]
    modules: Optional[dict[str, Named]]
    tags: frozenset[str]
    sources: tuple[str, ...] = field(default=())
    # Files of configs the test type left out (labels.suite_left_out): collect: false,
    # nothing generated. Consulted after `files`, so a config in effect still wins.
    left_out: tuple[FilePlan, ...] = field(default=())
    problems: tuple[Problem, ...] = field(default=())
    scope_loc: Optional[Loc] = None  # where global.scope was written (the last config writing it)
    # global.harness_capabilities of every config (testing/config/gating.py): name -> answer, where
    gating: Mapping[str, Declared] = field(default_factory=dict)
    gating_loc: Optional[Loc] = None  # where a line for an undeclared capability goes

    def setting(self, name: str) -> Any:
        """A `global` setting; a plan read from no file has none set (None, which every
        reader treats as the models' default: nothing configured)."""
        return None if self.global_ is None else getattr(self.global_, name)

    def file_plan(self, file_path: str) -> Optional[FilePlan]:
        for fp in self.files + self.left_out:
            if fp.matches(file_path):
                return fp
        return None

    @property
    def left_out_sources(self) -> tuple[str, ...]:
        """Configs whose file entries the test type left out, in --config order."""
        out = {fp.loc.file for fp in self.left_out}
        return tuple(s for s in self.sources if s in out)
