"""Merge test-suite configs into the plugin's plan.

Each file is read through the config contract (testing/config: the loaded model with
where each part was written and the reasons its comments give, file:line errors,
${TORCH_ROOT}/${REPO_ROOT} paths); this module never touches YAML. The result is a
frozen ``Plan`` keyed by resolved test-file path, used by selection.py for decisions.
What loads but deserves a word (a reason only in a comment, a name listed
twice, a later file overriding an earlier one) is collected as
``Plan.problems`` (problems.py); ``--oot-strict`` turns them into errors.
Name checks against op_db/module_db/dtypes live in device_support.py (they
need torch); this module imports no torch.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import dataclasses
import glob
import os
from typing import TYPE_CHECKING, Any, Optional

from testing.base.errors import Loc
from testing.config.gating import Declared
from testing.config.modes import Mode
from testing.config.paths import expand_path
from testing.plugin.labels import entry_for_test_type, suite_left_out
from testing.plugin.merging import finish, merge, merge_files, merged_named
from testing.plugin.planmodel import (  # noqa: F401 (the plan's types, as importers know them)
    COMPAT_TORCH_SPYRE,
    SCALAR_GLOBALS,
    UNREAD_KEYS,
    FilePlan,
    Named,
    Plan,
    Rule,
    model_cases,
)
from testing.plugin.problems import Problem

# The models and the YAML loader (pydantic, ruamel) are imported by the functions that
# read a file: a run given no config never pays for them (testing/README.md "Start-up cost").
if TYPE_CHECKING:
    from testing.config.load import Loaded
    from testing.config.models import FileEntry

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
            named = merged_named(out[spec.name], named, kind, problems)
        out[spec.name] = named
    return out


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
        files = merge_files(files, (fp,), problems)
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
        gating={
            name: Declared(answer, one.loc("global", "harness_capabilities", name))
            for name, answer in (g.harness_capabilities or {}).items()
        },
        gating_loc=one.loc("global", "harness_capabilities" if g.harness_capabilities else "global")
        if "global" in one.raw["test_suite_config"]
        else None,
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
