"""Load, validate and merge test-suite config YAML files.

ruamel.yaml keeps line numbers, so every error names file:line and the key;
pydantic validates the shape (models.py). The result is a frozen ``Plan``
keyed by resolved test-file path, used by selection.py for decisions.
Name checks against op_db/module_db/dtypes live in capabilities.py (they
need torch); this module imports no torch.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from testing.plugin.labels import entry_for_test_type, suite_left_out
from testing.plugin.models import (
    ConfigDocument,
    DtypeSpec,
    FileEntry,
    GlobalConfig,
    Mode,
    ModuleSpec,
    OpSpec,
    TestEntry,
)

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ConfigError(Exception):
    """A config problem, rendered as one line: file:line: key: message."""

    def __init__(self, loc: "Loc", key: str, message: str) -> None:
        super().__init__(f"{loc}: {key}: {message}" if key else f"{loc}: {message}")
        self.loc = loc
        self.key = key


@dataclass(frozen=True)
class Loc:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Rule:
    """One test entry of one file, with where it was written."""

    entry: TestEntry
    loc: Loc

    @property
    def patterns(self) -> tuple[str, ...]:
        return tuple(self.entry.name_list)

    @property
    def selector_key(self) -> tuple:
        e = self.entry
        return tuple(tuple(sorted(x)) if x is not None else None for x in (e.ops, e.dtypes, e.modules))


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

    def matches(self, file_path: str) -> bool:
        return fnmatch.fnmatchcase(os.path.realpath(file_path), self.path)


@dataclass(frozen=True)
class Named:
    """A global supported_* entry with its source location."""

    spec: Any  # DtypeSpec | OpSpec | ModuleSpec
    loc: Loc


@dataclass(frozen=True)
class Plan:
    files: tuple[FilePlan, ...]
    global_: GlobalConfig
    ops: Optional[dict[str, Named]]  # None: no restriction from configs
    dtypes: Optional[dict[str, Named]]
    modules: Optional[dict[str, Named]]
    tags: frozenset[str]
    sources: tuple[str, ...] = field(default=())
    # Files of configs the test type left out (labels.suite_left_out): collect: false,
    # nothing generated. Consulted after `files`, so a config in effect still wins.
    left_out: tuple[FilePlan, ...] = field(default=())

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


# ---------------------------------------------------------------- YAML + lines


def _yaml_line(node: Any, loc: Iterable[Any]) -> int:
    """Best 1-based line for a pydantic error location inside a ruamel tree."""
    line = 1
    for part in loc:
        if isinstance(node, dict) and part in node:
            lc = getattr(node, "lc", None)
            if lc is not None:
                line = lc.key(part)[0] + 1
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            lc = getattr(node, "lc", None)
            if lc is not None:
                line = lc.item(part)[0] + 1
            node = node[part]
        # other parts are pydantic union tags ('str', 'OpSpec'): skip them
    return line


def _is_union_tag(part: Any) -> bool:
    """pydantic inserts branch names ('str', 'OpSpec', 'function-after[...]') into locs."""
    return isinstance(part, str) and (part in ("str", "int") or part[:1].isupper() or "[" in part)


def _key_path(loc: Iterable[Any]) -> str:
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif _is_union_tag(part):
            continue
        else:
            parts.append(("." if parts else "") + str(part))
    return "".join(parts).removeprefix("test_suite_config.")


def _best_error(err: ValidationError, raw: Any) -> dict:
    """Pick the error to show: the first in the file, skipping 'not a str' union branches."""
    errors = err.errors()
    useful = [e for e in errors if e["type"] not in ("string_type", "int_type")] or errors
    return min(useful, key=lambda e: (_yaml_line(raw, e["loc"]), -len(e["loc"])))


def _message(e: dict) -> str:
    if e["type"] == "extra_forbidden":
        return f"unknown key '{e['loc'][-1]}'"
    if e["type"] == "enum":
        return f"bad value {e.get('input')!r}: {e['msg'].lower()}"
    msg = e["msg"]
    return msg.removeprefix("Value error, ")


def load_document(path: str) -> tuple[ConfigDocument, Any]:
    """Parse and validate one YAML file; return the model and the raw tree (for lines)."""
    yaml = YAML(typ="rt")
    try:
        with open(path, encoding="utf-8") as f:
            raw = yaml.load(f)
    except OSError as exc:
        raise ConfigError(Loc(path, 0), "", f"cannot read config: {exc.strerror}") from None
    except MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise ConfigError(Loc(path, line), "", f"YAML syntax error: {exc.problem}") from None
    if not isinstance(raw, dict) or "test_suite_config" not in raw:
        raise ConfigError(Loc(path, 1), "test_suite_config", "missing top-level key 'test_suite_config'")
    try:
        doc = ConfigDocument.model_validate(_plain(raw))
    except ValidationError as err:
        e = _best_error(err, raw)
        loc = e["loc"]
        raise ConfigError(Loc(path, _yaml_line(raw, loc)), _key_path(loc), _message(e)) from None
    return doc, raw


def _plain(node: Any) -> Any:
    """ruamel containers -> plain dict/list (pydantic wants builtins)."""
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


# ---------------------------------------------------------------- paths


def expand_path(text: str, roots: dict[str, str], config_dir: str, loc: Loc) -> str:
    def sub(m: re.Match) -> str:
        name = m.group(1)
        value = roots.get(name) or os.environ.get(name)
        if not value:
            hint = " (pass --upstream-root or set TORCH_ROOT)" if name == "TORCH_ROOT" else ""
            raise ConfigError(loc, "path", f"${{{name}}} is not set{hint}")
        return value

    expanded = _VAR.sub(sub, text)
    if not os.path.isabs(expanded):
        expanded = os.path.join(config_dir, expanded)
    return _real_prefix(os.path.normpath(expanded))


def _real_prefix(path: str) -> str:
    """realpath of the part before the first glob, so symlinked trees (Bazel runfiles) still match."""
    parts = path.split(os.sep)
    for i, part in enumerate(parts):
        if any(c in part for c in "*?["):
            return os.path.join(os.path.realpath(os.sep.join(parts[:i]) or os.sep), *parts[i:])
    return os.path.realpath(path)


# ---------------------------------------------------------------- build a plan


def _line_at(raw: Any, *loc: Any) -> int:
    return _yaml_line(raw, ("test_suite_config",) + loc)


def _file_plan(
    entry: FileEntry, idx: int, raw: Any, path: str, roots: dict[str, str], test_type: Optional[str] = None
) -> FilePlan:
    floc = Loc(path, _line_at(raw, "files", idx))
    resolved = expand_path(entry.path, roots, os.path.dirname(os.path.abspath(path)), floc)
    rules = []
    seen: dict[tuple, Loc] = {}
    for t_idx, test in enumerate(entry.tests):
        rule = Rule(entry_for_test_type(test, test_type), Loc(path, _line_at(raw, "files", idx, "tests", t_idx)))
        for n_idx, pattern in enumerate(test.name_list):
            key = (pattern, rule.selector_key)
            if key in seen:
                at = Loc(path, _line_at(raw, "files", idx, "tests", t_idx, "names", n_idx))
                raise ConfigError(at, "names", f"duplicate entry '{pattern}' (first at {seen[key]})")
            seen[key] = rule.loc
        rules.append(rule)
    return FilePlan(
        path=resolved,
        unlisted_mode=entry.unlisted_test_mode,
        unlisted_reason=entry.unlisted_reason,
        relax_device_restrictions=entry.relax_device_restrictions,
        relax_only_for=entry.relax_only_for,
        rules=tuple(rules),
        loc=floc,
        collect=entry.collect,
        reason=entry.reason,
    )


def _named(items, kind: str, spec_cls, raw: Any, path: str) -> Optional[dict[str, Named]]:
    if items is None:
        return None
    out: dict[str, Named] = {}
    for i, item in enumerate(items):
        spec = spec_cls(name=item) if isinstance(item, str) else item
        loc = Loc(path, _line_at(raw, "global", kind, i))
        if spec.name in out:
            raise ConfigError(loc, f"global.{kind}", f"duplicate entry '{spec.name}' (first at {out[spec.name].loc})")
        out[spec.name] = Named(spec, loc)
    return out


def plan_from_file(path: str, roots: dict[str, str], test_type: Optional[str] = None) -> Plan:
    """One config; test_type (labels.py) drops entries, or all file entries, whose labels exclude it."""
    doc, raw = load_document(path)
    suite = doc.test_suite_config
    g = suite.global_
    files = tuple(_file_plan(fe, i, raw, path, roots, test_type) for i, fe in enumerate(suite.files))
    seen: dict[str, Loc] = {}
    for fp in files:
        if fp.path in seen:
            raise ConfigError(fp.loc, "path", f"duplicate file entry (first at {seen[fp.path]})")
        seen[fp.path] = fp.loc
    left_out: tuple[FilePlan, ...] = ()
    if suite_left_out(suite.labels, bool(files), test_type):
        reason = f"suite labels {list(suite.labels)} exclude test type '{test_type}'"
        left_out = tuple(
            dataclasses.replace(fp, unlisted_mode=Mode.skip, unlisted_reason=None, rules=(), collect=False, reason=reason)
            for fp in files
        )
        files = ()
    tags = frozenset(t for fp in files for r in fp.rules for t in r.entry.tags)
    return Plan(
        files=files,
        global_=g,
        ops=_named(g.supported_ops, "supported_ops", OpSpec, raw, path),
        dtypes=_named(g.supported_dtypes, "supported_dtypes", DtypeSpec, raw, path),
        modules=_named(g.supported_modules, "supported_modules", ModuleSpec, raw, path),
        tags=tags,
        sources=(path,),
        left_out=left_out,
    )


# ---------------------------------------------------------------- merge


def _merge_named(a: Optional[dict[str, Named]], b: Optional[dict[str, Named]], kind: str):
    if a is None or b is None:
        return a if b is None else b
    out = dict(a)
    for name, item in b.items():
        if name in out and out[name].spec != item.spec:
            raise ConfigError(item.loc, f"global.{kind}", f"conflict for '{name}' with {out[name].loc}")
        out.setdefault(name, item)
    return out


def _merge_scalar_globals(a: GlobalConfig, b: GlobalConfig, where: Loc) -> GlobalConfig:
    updates = {}
    for key in ("backend", "device_type", "capabilities", "input_config"):
        va, vb = getattr(a, key), getattr(b, key)
        default = GlobalConfig.model_fields[key].default
        if vb == default or vb == va:
            continue
        if va != default:
            raise ConfigError(where, f"global.{key}", f"conflict: {va!r} vs {vb!r}")
        updates[key] = vb
    return a.model_copy(update=updates)


def _merge_files(a: tuple[FilePlan, ...], b: tuple[FilePlan, ...]) -> tuple[FilePlan, ...]:
    out = {fp.path: fp for fp in a}
    for fp in b:
        prev = out.get(fp.path)
        if prev is None:
            out[fp.path] = fp
            continue
        for attr in ("unlisted_mode", "relax_device_restrictions", "relax_only_for", "collect"):
            if getattr(prev, attr) != getattr(fp, attr):
                raise ConfigError(fp.loc, attr, f"conflict with {prev.loc}: {getattr(prev, attr)!s} vs {getattr(fp, attr)!s}")
        known = {(p, r.selector_key): r.loc for r in prev.rules for p in r.patterns}
        for rule in fp.rules:
            for pattern in rule.patterns:
                if (pattern, rule.selector_key) in known:
                    raise ConfigError(rule.loc, "names", f"conflict: '{pattern}' is also listed at {known[(pattern, rule.selector_key)]}")
        out[fp.path] = FilePlan(
            prev.path, prev.unlisted_mode, prev.unlisted_reason or fp.unlisted_reason,
            prev.relax_device_restrictions, prev.relax_only_for, prev.rules + fp.rules, prev.loc,
            prev.collect, prev.reason or fp.reason,
        )
    return tuple(out.values())


def merge(a: Plan, b: Plan) -> Plan:
    where = b.files[0].loc if b.files else Loc(b.sources[0], 1)
    return Plan(
        files=_merge_files(a.files, b.files),
        global_=_merge_scalar_globals(a.global_, b.global_, where),
        ops=_merge_named(a.ops, b.ops, "supported_ops"),
        dtypes=_merge_named(a.dtypes, b.dtypes, "supported_dtypes"),
        modules=_merge_named(a.modules, b.modules, "supported_modules"),
        tags=a.tags | b.tags,
        sources=a.sources + b.sources,
        left_out=a.left_out + b.left_out,
    )


def load_plan(paths: list[str], roots: dict[str, str], test_type: Optional[str] = None) -> Plan:
    """Load and merge several config files (in order); conflicts are errors.

    test_type: the run's --oot-test-type (None: labels do not filter).
    """
    plan: Optional[Plan] = None
    for path in paths:
        one = plan_from_file(path, roots, test_type)
        plan = one if plan is None else merge(plan, one)
    if plan is None:
        return Plan(files=(), global_=GlobalConfig(), ops=None, dtypes=None, modules=None, tags=frozenset())
    return plan


def default_roots(upstream_root: Optional[str] = None) -> dict[str, str]:
    """${REPO_ROOT} is this repository (also inside Bazel runfiles); ${TORCH_ROOT} a checkout."""
    roots = {"REPO_ROOT": os.environ.get("REPO_ROOT") or str(Path(__file__).resolve().parents[2])}
    torch_root = upstream_root or os.environ.get("TORCH_ROOT")
    if torch_root:
        roots["TORCH_ROOT"] = os.path.realpath(torch_root)
    return roots
