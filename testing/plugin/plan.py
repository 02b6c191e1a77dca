"""Merge test-suite configs into the plugin's plan.

Each file is read through the config contract (testing/config: the loaded model with
where each part was written and the reasons its comments give, file:line errors,
${TORCH_ROOT}/${REPO_ROOT} paths); this module never touches YAML. The result is a
frozen ``Plan`` keyed by resolved test-file path, used by selection.py for decisions.
What loads but deserves a word (a reason only in a comment, a name listed
twice, a later file overriding an earlier one) is collected as
``Plan.problems`` (problems.py); ``--oot-strict`` turns them into errors.
Name checks against op_db/module_db/dtypes live in capabilities.py (they
need torch); this module imports no torch.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import dataclasses
import fnmatch
import glob
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from testing.config.errors import Loc
from testing.config.modes import Mode
from testing.config.paths import expand_path
from testing.plugin.labels import entry_for_test_type, suite_left_out
from testing.plugin.problems import Problem

# The models and the YAML loader (pydantic, ruamel) are imported by the functions that
# read a file: a run given no config never pays for them (testing/README.md "Start-up cost").
if TYPE_CHECKING:
    from testing.config.load import Loaded
    from testing.config.models import FileEntry, GlobalConfig, TestEntry

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


# ---------------------------------------------------------------- build a plan


def _file_plan(
    entry: FileEntry, idx: int, one: Loaded, roots: dict[str, str], test_type: Optional[str] = None
) -> FilePlan:
    floc = one.loc("files", idx)
    resolved = expand_path(entry.path, roots, os.path.dirname(os.path.abspath(one.path)), floc)
    rules = []
    for t_idx, test in enumerate(entry.tests):
        at = ("files", idx, "tests", t_idx)
        rules.append(
            Rule(
                entry_for_test_type(test, test_type),
                one.loc(*at),
                comment_reason=one.reason(*at),
                name_reasons=tuple(one.name_reasons(*at).items()),
                name_lines=one.name_lines(*at),
            )
        )
    reason = entry.reason or one.reason("files", idx, after=("collect",))
    return FilePlan(
        path=resolved,
        unlisted_mode=entry.unlisted_test_mode,
        unlisted_reason=entry.unlisted_reason,
        relax_device_restrictions=entry.relax_device_restrictions,
        relax_only_for=entry.relax_only_for,
        rules=tuple(rules),
        loc=floc,
        collect=entry.collect,
        reason=reason if not entry.collect else entry.reason,
        unlisted_explicit="unlisted_test_mode" in entry.model_fields_set,
    )


def _hygiene(fp: FilePlan, entry: FileEntry) -> list[Problem]:
    """Reasons Torch Spyre leaves to comments (or out): fine to load, flagged by --oot-strict."""
    out = []
    for rule in fp.rules:
        if rule.entry.mode != Mode.mandatory_success and not rule.entry.reason:
            where = f"only in a comment ('{_short(rule.reason)}')" if rule.reason else "missing"
            out.append(
                Problem(rule.loc, "reason", f"mode '{rule.entry.mode.value}': 'reason' {where}", "hygiene")
            )
    if not entry.collect and not entry.reason:
        out.append(Problem(fp.loc, "reason", "collect: false without a 'reason'", "hygiene"))
    if entry.unlisted_test_mode in (Mode.xfail, Mode.xfail_strict) and not entry.unlisted_reason:
        out.append(
            Problem(
                fp.loc,
                "unlisted_reason",
                f"unlisted_test_mode '{entry.unlisted_test_mode.value}' without an 'unlisted_reason'",
                "hygiene",
            )
        )
    return out


def _short(text: Optional[str], width: int = 60) -> str:
    text = text or ""
    return text if len(text) <= width else text[: width - 3] + "..."


def _named(items, kind: str, spec_cls, one: Loaded, problems: list[Problem]) -> Optional[dict[str, Named]]:
    if items is None:
        return None
    out: dict[str, Named] = {}
    for i, item in enumerate(items):
        spec = spec_cls(name=item) if isinstance(item, str) else item
        loc = one.loc("global", kind, i)
        named = Named(spec, loc, one.reason("global", kind, i, after=("force_xfail", "name")))
        if spec.force_xfail and not spec.reason:
            problems.append(
                Problem(loc, f"global.{kind}", f"'{spec.name}': force_xfail without a 'reason'", "hygiene")
            )
        if spec.name in out:
            named = _merged_named(out[spec.name], named, kind, problems)
        out[spec.name] = named
    return out


def _merged_named(earlier: Named, later: Named, kind: str, problems: list[Problem]) -> Named:
    """Later wins, key by key: what the later entry writes replaces, what it leaves out is kept
    (so a feature config's bare '- name: float32' keeps device.yaml's precision)."""
    written = {k: getattr(later.spec, k) for k in later.spec.model_fields_set if k != "name"}
    merged = earlier.spec.model_copy(update=written)
    if merged != earlier.spec:
        same_file = earlier.loc.file == later.loc.file
        problems.append(
            Problem(
                later.loc,
                f"global.{kind}",
                f"'{later.spec.name}' {'listed twice' if same_file else 'also at ' + str(earlier.loc)}: "
                f"{', '.join(sorted(written)) or 'nothing'} taken from here (later wins)",
                "warning" if same_file else "hygiene",
            )
        )
    elif earlier.loc.file == later.loc.file:
        problems.append(
            Problem(later.loc, f"global.{kind}", f"'{later.spec.name}' listed twice (first at {earlier.loc})")
        )
    return Named(merged, later.loc, later.comment_reason or earlier.comment_reason)


def plan_from_file(path: str, roots: dict[str, str], test_type: Optional[str] = None) -> Plan:
    """One config; test_type (labels.py) drops entries, or all file entries, whose labels exclude it."""
    from testing.config.load import load

    return plan_from_loaded(load(path), roots, test_type)


def plan_from_loaded(one: Loaded, roots: dict[str, str], test_type: Optional[str] = None) -> Plan:
    """The plan of one loaded config (load.py: the model and where each part was written)."""
    from testing.config.models import DtypeSpec, ModuleSpec, OpSpec

    path = one.path
    suite = one.doc.test_suite_config
    g = suite.global_
    problems: list[Problem] = []
    files: tuple[FilePlan, ...] = ()
    for i, fe in enumerate(suite.files):
        fp = _file_plan(fe, i, one, roots, test_type)
        if not glob.glob(fp.path):
            problems.append(
                Problem(fp.loc, "path", f"'{fe.path}' matches no file (moved or removed upstream?)")
            )
        problems += _hygiene(fp, fe)
        problems += _unread_keys(fp, fe)
        files = _merge_files(files, (fp,), problems)
    left_out: tuple[FilePlan, ...] = ()
    if suite_left_out(suite.labels, bool(files), test_type):
        reason = f"suite labels {list(suite.labels)} exclude test type '{test_type}'"
        left_out = tuple(
            dataclasses.replace(
                fp, unlisted_mode=Mode.skip, unlisted_reason=None, rules=(), collect=False, reason=reason
            )
            for fp in files
        )
        files = ()
    tags = frozenset(t for fp in files for r in fp.rules for t in r.entry.tags)
    return Plan(
        files=files,
        global_=g,
        ops=_named(g.supported_ops, "supported_ops", OpSpec, one, problems),
        dtypes=_named(g.supported_dtypes, "supported_dtypes", DtypeSpec, one, problems),
        modules=_named(g.supported_modules, "supported_modules", ModuleSpec, one, problems),
        tags=tags,
        sources=(path,),
        left_out=left_out,
        problems=tuple(problems),
        scope_loc=one.loc("global", "scope") if g.scope else None,
    )


def _unread_keys(fp: FilePlan, entry: FileEntry) -> list[Problem]:
    """Torch Spyre's module-input specs are accepted but not applied: say so. Op includes with
    sample_inputs_func are model-op cases (testing/config/modelops.py): their own checks."""
    from testing.config import modelops

    out = []
    for rule in fp.rules:
        edits = rule.entry.edits
        for group, key in ((edits and edits.ops, "edits.ops"), (edits and edits.modules, "edits.modules")):
            for ref in (list(group.include) + list(group.exclude)) if group else ():
                if isinstance(ref, str):
                    continue
                if ref.sample_inputs_func is not None and key == "edits.ops":
                    out += _case_problems(rule, ref, modelops)
                    continue
                unread = [k for k in UNREAD_KEYS if k in ref.model_fields_set]
                if unread:
                    out.append(
                        Problem(
                            rule.loc,
                            key,
                            f"'{ref.name}': {', '.join(unread)} not applied (not implemented here)",
                        )
                    )
    return out


def _case_problems(rule: Rule, ref: Any, modelops: Any) -> list[Problem]:
    """A model-op case that cannot run (it skips with the same reason) or has unknown keys."""
    loc = Loc(rule.loc.file, ref.source_line or rule.loc.line)
    out = [
        Problem(loc, "edits.ops.include", f"'{ref.name}': {p}: the case skips")
        for p in modelops.problems(ref.sample_inputs_func)
    ]
    unknown = modelops.unknown_keys(ref, ref.sample_inputs_func)
    if unknown:
        out.append(
            Problem(loc, "edits.ops.include", f"'{ref.name}': unknown key(s) {', '.join(unknown)} (ignored)")
        )
    return out


# ---------------------------------------------------------------- merge


def _merge_named(
    a: Optional[dict[str, Named]], b: Optional[dict[str, Named]], kind: str, problems: list[Problem]
):
    if a is None or b is None:
        return a if b is None else b
    out = dict(a)
    for name, item in b.items():
        out[name] = _merged_named(out[name], item, kind, problems) if name in out else item
    return out


def _merge_scalar_globals(
    a: GlobalConfig, b: GlobalConfig, where: Loc, problems: list[Problem]
) -> GlobalConfig:
    """Later file wins for every scalar it writes (a warning when it changes one)."""
    updates = {}
    for key in SCALAR_GLOBALS:
        va, vb = getattr(a, key), getattr(b, key)
        if key not in b.model_fields_set or vb == va:
            continue
        if key in a.model_fields_set:
            problems.append(
                Problem(where, f"global.{key}", f"{vb!r} overrides {va!r} of an earlier config (later wins)")
            )
        updates[key] = vb
    return a.model_copy(update=updates)  # the updated keys join model_fields_set: a third file sees them


def _merge_files(
    a: tuple[FilePlan, ...], b: tuple[FilePlan, ...], problems: list[Problem]
) -> tuple[FilePlan, ...]:
    """Entries for the same path are combined; a file-level setting written twice: the later wins."""
    out = {fp.path: fp for fp in a}
    for fp in b:
        prev = out.get(fp.path)
        if prev is None:
            out[fp.path] = fp
            continue
        updates: dict[str, Any] = {}
        for attr in ("unlisted_mode", "relax_device_restrictions", "relax_only_for", "collect"):
            if getattr(prev, attr) != getattr(fp, attr) and (attr != "unlisted_mode" or fp.unlisted_explicit):
                problems.append(
                    Problem(
                        fp.loc,
                        attr,
                        f"{getattr(fp, attr)!s} overrides {getattr(prev, attr)!s} at {prev.loc} (later wins)",
                    )
                )
                updates[attr] = getattr(fp, attr)
        if "unlisted_mode" in updates:
            updates["unlisted_reason"] = fp.unlisted_reason
            updates["unlisted_explicit"] = True
        out[fp.path] = dataclasses.replace(
            prev,
            rules=prev.rules + fp.rules,
            reason=prev.reason or fp.reason,
            unlisted_reason=updates.pop("unlisted_reason", prev.unlisted_reason or fp.unlisted_reason),
            **updates,
        )
    return tuple(out.values())


def merge(a: Plan, b: Plan) -> Plan:
    where = b.files[0].loc if b.files else Loc(b.sources[0], 1)
    problems: list[Problem] = []
    return Plan(
        files=_merge_files(a.files, b.files, problems),
        global_=_merge_scalar_globals(a.global_, b.global_, where, problems),
        ops=_merge_named(a.ops, b.ops, "supported_ops", problems),
        dtypes=_merge_named(a.dtypes, b.dtypes, "supported_dtypes", problems),
        modules=_merge_named(a.modules, b.modules, "supported_modules", problems),
        tags=a.tags | b.tags,
        sources=a.sources + b.sources,
        left_out=a.left_out + b.left_out,
        problems=a.problems + b.problems + tuple(problems),
        scope_loc=b.scope_loc or a.scope_loc,
    )


# ---------------------------------------------------------------- after merging: compat, duplicates


def name_key(pattern: str, class_insensitive: bool) -> str:
    """What a name means for duplicate detection: Class::method, or the method alone."""
    return pattern.split("::", 1)[1] if class_insensitive and "::" in pattern else pattern


def with_compat(fp: FilePlan, compat: Optional[str], relax_all: bool) -> FilePlan:
    """Torch Spyre's reading of a file entry (configs/README.md, 'Coming from Torch Spyre')."""
    if compat != COMPAT_TORCH_SPYRE:
        return dataclasses.replace(fp, relax_device_restrictions=True) if relax_all else fp
    updates: dict[str, Any] = dict(
        relax_device_restrictions=True,
        relax_only_for=True,
        rules=tuple(dataclasses.replace(r, class_insensitive=True) for r in fp.rules),
    )
    if not fp.unlisted_explicit and fp.unlisted_mode == Mode.skip:
        updates.update(
            unlisted_mode=Mode.xfail, unlisted_reason="unlisted (compat: torch_spyre defaults to xfail)"
        )
    return dataclasses.replace(fp, **updates)


def dedupe(fp: FilePlan) -> tuple[FilePlan, list[Problem]]:
    """A name written twice with the same selectors: the last entry takes it (as in Torch Spyre),
    with a warning naming both places."""
    owner: dict[tuple, int] = {}
    names = [list(r.patterns) for r in fp.rules]
    problems = []
    for i, rule in enumerate(fp.rules):
        for pattern in rule.patterns:
            key = (name_key(pattern, rule.class_insensitive), rule.selector_key)
            if key in owner:
                j = owner[key]
                earlier = fp.rules[j]
                names[j] = [p for p in names[j] if name_key(p, earlier.class_insensitive) != key[0]]
                problems.append(
                    Problem(
                        rule.loc_of(pattern),
                        "names",
                        f"duplicate entry '{pattern}' (also at "
                        f"{_also_at(earlier, pattern, key[0])}): this later entry wins ({rule.entry.mode.value})",
                    )
                )
            owner[key] = i
    rules = tuple(dataclasses.replace(r, names=tuple(n)) for r, n in zip(fp.rules, names) if n)
    return dataclasses.replace(fp, rules=rules), problems


def _also_at(rule: Rule, pattern: str, key: str) -> Loc:
    same = next((p for p in rule.patterns if name_key(p, rule.class_insensitive) == key), pattern)
    return rule.loc_of(same)


def finish(plan: Plan, compat: Optional[str] = None) -> Plan:
    """Apply compat (option, else global.compat) and the device-restriction switch; merge duplicates."""
    compat = compat or plan.global_.compat
    problems = list(plan.problems)
    files = []
    for fp in plan.files:
        fp, found = dedupe(with_compat(fp, compat, plan.global_.relax_device_restrictions))
        problems += found
        files.append(fp)
    return dataclasses.replace(plan, files=tuple(files), problems=tuple(problems))


def load_plan(
    paths: list[str], roots: dict[str, str], test_type: Optional[str] = None, compat: Optional[str] = None
) -> Plan:
    """Load and merge several config files (in order); a later file wins (configs/README.md).

    test_type: the run's --oot-test-type (None: labels do not filter).
    compat: 'torch_spyre' reads every file as Torch Spyre does (also global.compat).
    """
    plan: Optional[Plan] = None
    for path in paths:
        one = plan_from_file(path, roots, test_type)
        plan = one if plan is None else merge(plan, one)
    return empty_plan() if plan is None else finish(plan, compat)


def empty_plan() -> Plan:
    """The plan of no config file: no restriction, every global at its default."""
    return Plan(files=(), global_=None, ops=None, dtypes=None, modules=None, tags=frozenset())
