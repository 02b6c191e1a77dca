"""Pure decisions: which test variants exist and in which bucket.

No torch, no pytest hooks: a Variant (file, class, test, op, dtypes, module)
plus the config's FilePlan and the effective Support go in, a Decision (or
None: not generated at all) comes out. instantiate.py and plugin.py call
these; tests exercise them directly.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import difflib
import fnmatch
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Optional

from testing.config.modes import Mode
from testing.plugin.marks import (  # noqa: F401 (the mark names, as importers know them from here)
    MARK_FAMILIES,
    MarkFilter,
    is_plugin_mark,
    mark_name,
    marks_for,
)
from testing.plugin.opnames import candidates
from testing.plugin.plan import FilePlan, Rule, model_cases
from testing.plugin.problems import Loc, Problem

if TYPE_CHECKING:  # the models (pydantic) are imported only by runs that read a config
    from testing.config.models import Shapes


@dataclass(frozen=True)
class Variant:
    """One generated test (or a plain unittest method: no op/dtypes/module)."""

    cls: str  # generic class name, e.g. TestOpConsistency
    test: str  # generic method name, e.g. test_matches_cpu
    name: str  # generated method name, e.g. test_matches_cpu_add_spyre_float32
    op: Optional[str] = None  # OpInfo.full_name
    aten: Optional[str] = None  # OpInfo.aten_name (capabilities key)
    dtypes: tuple[str, ...] = ()
    module: Optional[str] = None  # ModuleInfo.name
    op_names: tuple[str, ...] = ()  # other names of the op: OpInfo.name, aliases (config names may use them)
    # A model-op case (testing/plugin/modelops.py): the entry that wrote it (other model entries
    # naming the same test never take it), the marks it carries itself (model__, op__<callable>,
    # its tags), and its dtype is the recorded call's, not a choice: a dtype the device lacks
    # makes the case skip with a reason instead of vanishing.
    owner: Optional[Loc] = None
    tags: tuple[str, ...] = ()
    recorded: bool = False

    @property
    def op_keys(self) -> tuple[str, ...]:
        return tuple(n for n in (self.op, self.aten, *self.op_names) if n)


@dataclass(frozen=True)
class OpSupport:
    dtypes: Optional[frozenset[str]] = None  # None: whatever the global dtypes allow
    exclude_dtypes: frozenset[str] = frozenset()
    precision: tuple[tuple[str, float, float], ...] = ()
    shapes: Optional[Shapes] = None
    xfail_reason: Optional[str] = None
    widen: frozenset[str] = (
        frozenset()
    )  # dtypes the config lists for the op: added where the OpInfo lacks them


@dataclass(frozen=True)
class Support:
    """What the device runs: config ∩ backend capabilities, resolved (device_support.py)."""

    ops: Optional[dict[str, OpSupport]] = None  # None: every op
    dtypes: Optional[frozenset[str]] = None  # None: every dtype
    dtype_precision: dict[str, tuple[float, float]] = field(default_factory=dict)
    dtype_xfail: dict[str, str] = field(default_factory=dict)
    modules: Optional[dict[str, OpSupport]] = None  # None: every module


@dataclass(frozen=True)
class Decision:
    mode: Mode
    reason: Optional[str]
    tags: tuple[str, ...] = ()
    rule_loc: Optional[Loc] = None
    precision: tuple[tuple[str, float, float], ...] = ()  # (dtype, atol, rtol)
    shapes: Optional[Shapes] = None
    relax: bool = False
    cpu_move: tuple[str, ...] = ()  # TestCase methods whose tensor arguments go to CPU first
    hang_window: Optional[float] = None  # its entry's hang window (seconds), over the config's


# ---------------------------------------------------------------- name matching


def _split(pattern: str, class_insensitive: bool = False) -> tuple[Optional[str], str]:
    """'Class::method' -> (Class, method); a bare method names that method in every class.
    class_insensitive (compat: torch_spyre): the class part is ignored, as Torch Spyre does."""
    if "::" in pattern:
        cls, meth = pattern.split("::", 1)
        return (None if class_insensitive else cls), meth
    return None, pattern


def _name_score(pattern: str, v: Variant, class_insensitive: bool = False) -> int:
    """0: no match; higher is more specific:
    exact variant > glob over variant names > exact test > glob over test names."""
    cls, meth = _split(pattern, class_insensitive)
    if cls is not None and not fnmatch.fnmatchcase(v.cls, cls):
        return 0
    bonus = 1 if cls is not None else 0
    if meth == v.name:
        return 40 + bonus
    if meth == v.test:
        return 30 + bonus
    if fnmatch.fnmatchcase(v.test, meth):
        return 10 + bonus
    if fnmatch.fnmatchcase(v.name, meth):
        return 35 + bonus  # a glob over generated names is narrower than the generic test
    return 0


def _any_match(patterns: Optional[list[str]], *values: Optional[str]) -> bool:
    return any(val is not None and fnmatch.fnmatchcase(val, p) for p in patterns or () for val in values)


def op_matches(patterns: Optional[Iterable[str]], keys: Iterable[Optional[str]]) -> bool:
    """Does any op name (OpInfo name, aten name, aten::x, overload, alias; opnames.py) name
    an op known by these keys (Variant.op_keys)?"""
    keys = [k for k in keys if k]
    return any(fnmatch.fnmatchcase(k, c) for p in patterns or () for c in candidates(p) for k in keys)


def _selectors_match(rule: Rule, v: Variant) -> Optional[int]:
    e = rule.entry
    score = 0
    if e.ops is not None:
        if not op_matches(e.ops, v.op_keys):
            return None
        score += 2
    if e.dtypes is not None:
        if not v.dtypes or not all(_any_match(e.dtypes, d) for d in v.dtypes):
            return None
        score += 2
    if e.modules is not None:
        if not _any_match(e.modules, v.module):
            return None
        score += 2
    return score


def match(fp: FilePlan, v: Variant) -> Optional[tuple[Rule, str]]:
    """The most specific entry naming this variant and the name that matched; ties go to the first written."""
    best, best_score = None, 0
    for rule in fp.rules:
        if v.owner is not None and rule.loc != v.owner and model_cases(rule.entry):
            continue
        sel = _selectors_match(rule, v)
        if sel is None:
            continue
        score, pattern = max(
            ((_name_score(p, v, rule.class_insensitive), p) for p in rule.patterns),
            key=lambda t: t[0],
            default=(0, ""),
        )
        if score and score + sel > best_score:
            best, best_score = (rule, pattern), score + sel
    return best


def match_rule(fp: FilePlan, v: Variant) -> Optional[Rule]:
    found = match(fp, v)
    return found[0] if found else None


def pattern_may_name(pattern: str, cls: str, test: str, class_insensitive: bool = False) -> bool:
    """Could this pattern name the generic test or one of its generated variants?"""
    pcls, meth = _split(pattern, class_insensitive)
    if pcls is not None and not fnmatch.fnmatchcase(cls, pcls):
        return False
    if any(c in meth for c in "*?["):
        # A glob can only match names starting with its literal prefix.
        prefix = re.split(r"[*?\[]", meth, 1)[0]
        return prefix.startswith(test) or test.startswith(prefix)
    return meth == test or meth.startswith(test + "_")


def should_instantiate(fp: FilePlan, cls: str, test: str) -> bool:
    """False when every variant of this generic test would be skipped (don't instantiate)."""
    if fp.unlisted_mode != Mode.skip:
        return True
    return any(
        r.entry.mode != Mode.skip
        and any(pattern_may_name(p, cls, test, r.class_insensitive) for p in r.patterns)
        for r in fp.rules
    )


def unknown_patterns(fp: FilePlan, seen: Iterable[tuple[str, str]]) -> list[tuple[Rule, str]]:
    """Entries whose names match no test that exists in the file (upstream removed or renamed it)."""
    seen = list(seen)
    return [
        (rule, p)
        for rule in fp.rules
        for p in rule.patterns
        if not any(pattern_may_name(p, c, t, rule.class_insensitive) and _exists(p, c, t) for c, t in seen)
    ]


def unknown_test_problems(fp: FilePlan, seen: Iterable[tuple[str, str]], file_name: str) -> list[Problem]:
    """A warning per config name that names no test of the file, with the closest existing names."""
    seen = list(seen)
    out = []
    for rule, pattern in unknown_patterns(fp, seen):
        near = closest_tests(pattern, seen)
        hint = f"; closest: {', '.join(near)}" if near else ""
        out.append(
            Problem(
                rule.loc_of(pattern),
                "names",
                f"unknown test '{pattern}' (no such test in {file_name}: removed or renamed upstream?){hint}",
                closest=tuple(near),
            )
        )
    return out


def idle_rule_problems(
    fp: FilePlan, seen: Iterable[tuple[str, str]], used: set[Loc], support: Support, device: str
) -> list[Problem]:
    """A warning per entry that names tests of the file yet decides none of the tests this run
    generated (a skip entry never does): its selectors, the device's support or more specific
    entries leave it nothing. Names the selector values the device's support lacks."""
    unknown = {id(rule) for rule, _ in unknown_patterns(fp, seen)}
    out = []
    for rule in fp.rules:
        if rule.entry.mode == Mode.skip or rule.loc in used or id(rule) in unknown:
            continue
        lacking = _lacking(rule, support)
        why = f": {device} cannot run {', '.join(lacking)}" if lacking else ""
        out.append(Problem(rule.loc, "names", f"entry selects no test{why} (0 tests generated from it)"))
    return out


def _lacking(rule: Rule, support: Support) -> list[str]:
    """The entry's op/dtype/module selectors outside the run's support (capabilities, supported_*)."""
    e = rule.entry
    out = []
    if support.ops is not None:
        out += [f"op {o}" for o in e.ops or () if not any(_op_named(o, full) for full in support.ops)]
    if support.dtypes is not None:
        out += [f"dtype {d}" for d in e.dtypes or () if d not in support.dtypes]
    if support.modules is not None:
        out += [f"module {m}" for m in e.modules or () if m not in support.modules]
    return out


def _op_named(selector: str, full_name: str) -> bool:
    """Does an op selector name this OpInfo (its full name, or its variants by base name)?"""
    return full_name == selector or full_name.startswith(selector + ".")


def closest_tests(pattern: str, seen: Iterable[tuple[str, str]], n: int = 3) -> list[str]:
    """The existing tests nearest to a name that matches none (for the warning), written the way
    the pattern is: Class::method, or the method alone. Methods are compared without the class,
    so a shared 'TestX::test_' prefix does not make every test look close."""
    cls, meth = _split(pattern)
    seen = sorted(set(seen))
    near = difflib.get_close_matches(meth, sorted({t for _, t in seen}), n=n, cutoff=0.75)
    if cls is None:
        return near
    return [
        f"{c}::{t}" for t in near for c in sorted({c for c, t2 in seen if t2 == t}, key=lambda c: c != cls)
    ][:n]


def _exists(pattern: str, cls: str, test: str) -> bool:
    _, meth = _split(pattern)
    if any(c in meth for c in "*?["):
        return (
            fnmatch.fnmatchcase(test, meth) or fnmatch.fnmatchcase(test + "_x", meth) or meth.startswith(test)
        )
    return True


# ---------------------------------------------------------------- support filters


def _name_allowed(edit, supported, name: Optional[str], keys: Iterable[str] = ()) -> bool:
    """A per-test exclude wins, then a per-test include, then the device's support list.
    keys: every name of an op (op_matches); modules match by ModuleInfo.name."""
    if name is None:
        return True
    keys = tuple(keys) or (name,)
    if edit and op_matches(_names(edit.exclude), keys):
        return False
    if edit and op_matches(_names(edit.include), keys):
        return True
    return supported is None or name in supported


def op_allowed(support: Support, rule: Optional[Rule], op: Optional[str], keys: Iterable[str] = ()) -> bool:
    edits = rule.entry.edits if rule else None
    return _name_allowed(edits.ops if edits else None, support.ops, op, keys)


def module_allowed(support: Support, rule: Optional[Rule], module: Optional[str]) -> bool:
    edits = rule.entry.edits if rule else None
    return _name_allowed(edits.modules if edits else None, support.modules, module)


def dtype_allowed(
    support: Support,
    rule: Optional[Rule],
    op: Optional[str],
    dtype: Optional[str],
    module: Optional[str] = None,
) -> bool:
    """None (an op test without dtypes) always passes."""
    if dtype is None:
        return True
    edits = rule.entry.edits if rule else None
    if edits and edits.dtypes:
        if _any_match(_names(edits.dtypes.exclude), dtype):
            return False
        if _any_match(_names(edits.dtypes.include), dtype):
            return True
    spec = support.ops.get(op) if (support.ops is not None and op) else None
    if spec is not None:
        if dtype in spec.exclude_dtypes:
            return False
        if spec.dtypes is not None:
            return dtype in spec.dtypes
    mspec = support.modules.get(module) if (support.modules is not None and module) else None
    if mspec is not None and mspec.dtypes is not None:
        return dtype in mspec.dtypes
    return support.dtypes is None or dtype in support.dtypes


def _names(items) -> list[str]:
    return [i if isinstance(i, str) else i.name for i in items]


# ---------------------------------------------------------------- the decision


def _forced_xfail(support: Support, v: Variant) -> Optional[str]:
    if v.op and support.ops and v.op in support.ops and support.ops[v.op].xfail_reason:
        return support.ops[v.op].xfail_reason
    if (
        v.module
        and support.modules
        and v.module in support.modules
        and support.modules[v.module].xfail_reason
    ):
        return support.modules[v.module].xfail_reason
    for d in v.dtypes:
        if d in support.dtype_xfail:
            return support.dtype_xfail[d]
    return None


def _precision(support: Support, rule: Optional[Rule], v: Variant) -> tuple[tuple[str, float, float], ...]:
    """Per dtype: test entry include > op entry > global dtype (incl. capabilities)."""
    out = dict((d, (a, r)) for d, (a, r) in support.dtype_precision.items() if d in v.dtypes)
    spec = support.ops.get(v.op) if (support.ops and v.op) else None
    if spec:
        out.update((d, (a, r)) for d, a, r in spec.precision if d in v.dtypes)
    edits = rule.entry.edits if rule else None
    if edits and edits.dtypes:
        for inc in edits.dtypes.include:
            if not isinstance(inc, str) and inc.precision and inc.name in v.dtypes:
                out[inc.name] = (inc.precision.atol, inc.precision.rtol)
    return tuple((d, a, r) for d, (a, r) in sorted(out.items()))


def _shapes(support: Support, rule: Optional[Rule], v: Variant) -> Optional[Shapes]:
    edits = rule.entry.edits if rule else None
    if edits and edits.shapes:
        return edits.shapes
    spec = support.ops.get(v.op) if (support.ops and v.op) else None
    return spec.shapes if spec else None


def decide(fp: FilePlan, support: Support, v: Variant) -> Optional[Decision]:
    """The bucket of one variant, or None when it must not be generated."""
    found = match(fp, v)
    rule = found[0] if found else None
    if rule is None:
        mode, reason = fp.unlisted_mode, fp.unlisted_reason
    else:
        mode, reason = rule.entry.mode, rule.reason_for(found[1])
    if mode == Mode.skip:
        return None
    if not v.recorded:  # a model-op case was chosen by its entry; what the device lacks, it skips
        if not (op_allowed(support, rule, v.op, v.op_keys) and module_allowed(support, rule, v.module)):
            return None
        if not all(dtype_allowed(support, rule, v.op, d, v.module) for d in v.dtypes):
            return None
    if mode == Mode.mandatory_success:
        forced = _forced_xfail(support, v)
        if forced:
            mode, reason = Mode.xfail, forced
    return Decision(
        mode=mode,
        reason=reason,
        tags=tuple(rule.entry.tags) if rule else (),
        rule_loc=rule.loc if rule else None,
        precision=_precision(support, rule, v),
        shapes=_shapes(support, rule, v),
        relax=fp.relax_device_restrictions or bool(rule and rule.entry.relax_device_restrictions),
        cpu_move=cpu_move_names(rule),
        hang_window=rule.entry.hang_window if rule else None,
    )


def cpu_move_names(rule: Optional[Rule]) -> tuple[str, ...]:
    """edits.functions.cpu_move of the entry: TestCase methods to wrap."""
    functions = rule.entry.edits.functions if rule and rule.entry.edits else None
    return tuple(_names(functions.cpu_move)) if functions else ()
