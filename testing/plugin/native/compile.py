"""Pure: a loaded config (Plan + Support) compiled to torch's native test-reuse settings.

What the native API can say (torch 2.13.0, docs/upstream-test-reuse.md):

| config | native setting |
|---|---|
| supported ops (``supported_ops``, ``capabilities: backend``), op names resolved | ``op_allowlist`` (OpInfo.full_name) |
| per-op / per-dtype precision (``@ops`` tests) | ``op_overrides``: DecorateInfo(toleranceOverride) |
| ``xfail_strict`` of ``@ops`` tests, narrowed by class, test, ops, dtypes | ``op_overrides``: DecorateInfo(unittest.expectedFailure) |
| ``skip`` of whole tests or classes (entries, ``unlisted_test_mode: skip``) | ``test_exclusions`` |
| ``global.relax_device_restrictions`` | ``bypass_device_restrictions`` on the device test base |

Everything else stays in our patches (instantiate.py), layered on top, and each config
rule gets an ``Applied`` row saying which way it went and why. No torch, no pytest.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Union

from testing.config.modes import Mode
from testing.plugin.plan import FilePlan, Plan, Rule
from testing.plugin.selection import (
    Support,
    Variant,
    _name_score,
    match,
    op_matches,
    pattern_may_name,
    should_instantiate,
)

NATIVE, PATCHED = "native", "patched"
GLOB = frozenset("*?[")
STRICT_WHY = (
    "unittest.expectedFailure is strict (an unexpected success fails the test); the xfail bucket "
    "lets a pass through as XPASS: a pytest mark"
)


@dataclass(frozen=True)
class Applied:
    """How one config rule was applied: one row of the summary and the JSON report."""

    rule: str  # file:line
    what: str  # e.g. "supported_ops 'add'", "TestX::test_y (xfail_strict)"
    setting: str  # op_allowlist | op_overrides | test_exclusions | bypass_device_restrictions | patch
    way: str  # native | patched
    why: str

    def as_json(self) -> dict:
        return dict(rule=self.rule, what=self.what, setting=self.setting, way=self.way, why=self.why)

    def __str__(self) -> str:
        return f"{self.way:8} {self.setting:27} {self.rule}: {self.what}: {self.why}"


@dataclass(frozen=True)
class StrictXfail:
    """One DecorateInfo(unittest.expectedFailure, cls, test, dtypes) in op_overrides[op]."""

    op: str
    cls: Optional[str]  # generic class name; None: every class
    test: str
    dtypes: Optional[tuple[str, ...]]
    rule: str  # file:line


@dataclass(frozen=True)
class NativePlan:
    op_allowlist: Optional[tuple[str, ...]]  # None: every op
    tolerances: Mapping[str, tuple[tuple[str, float, float], ...]]  # full_name -> (dtype, atol, rtol)
    xfails: tuple[StrictXfail, ...]
    bypass: bool
    rows: tuple[Applied, ...]
    dtype_form: bool = False  # the core honours dtype-level test_exclusions (runtime.probe_dtype_exclusions)

    @property
    def patched_rows(self) -> tuple[Applied, ...]:
        return tuple(r for r in self.rows if r.way == PATCHED)

    def counts(self) -> dict[str, int]:
        return {w: sum(1 for r in self.rows if r.way == w) for w in (NATIVE, PATCHED)}


def excluded(fp: FilePlan, cls: str, tests: Iterable[str]) -> Union[str, list[str]]:
    """test_exclusions for one generic class: tests of which no variant is generated;
    '*' when that is all of them."""
    tests = sorted(tests)
    out = [t for t in tests if whole_test_skipped(fp, cls, t)]
    return "*" if tests and len(out) == len(tests) else out


def whole_test_skipped(fp: FilePlan, cls: str, test: str) -> bool:
    """Every variant of this generic test is skipped: the entry naming the test itself (or
    the unlisted mode) skips, and no other entry could win a variant of it (a variant name,
    or selectors on a name as specific)."""
    if not should_instantiate(fp, cls, test):
        return True
    generic = Variant(cls, test, test)
    found = match(fp, generic)
    if (found[0].entry.mode if found else fp.unlisted_mode) != Mode.skip:
        return False
    won = _name_score(found[1], generic, found[0].class_insensitive) if found else 0
    for rule in fp.rules:
        if rule.entry.mode == Mode.skip:
            continue
        for p in rule.patterns:
            if not pattern_may_name(p, cls, test, rule.class_insensitive):
                continue
            meth = p.split("::", 1)[-1]
            # a name matching the generic test scores as such for every variant (selection._name_score)
            names_variants = not fnmatch.fnmatchcase(test, meth)
            best = 47 if names_variants else _name_score(p, generic, rule.class_insensitive) + 6
            if best >= won:
                return False
    return True


def dtype_skip_rule(rule: Rule) -> bool:
    """A skip entry pytorch main's dtype-level test_exclusions can say: exact names, a dtypes
    selector of exact dtype names and no other selector."""
    e = rule.entry
    return (
        e.mode == Mode.skip
        and e.dtypes is not None
        and e.ops is None
        and e.modules is None
        and _exact(rule.patterns)
        and _exact(e.dtypes)
    )


def dtypes_excluded(fp: FilePlan, cls: str, test: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(dtypes, rules) of one generic test pytorch main's dtype-level form excludes exactly as
    our decision does: skip entries naming the test itself with only a dtypes selector, and no
    entry that could win one of those variants instead (a variant name, or a selector: those
    outscore a plain name). ((), ()) when there is none or the form cannot say it."""
    generic = Variant(cls, test, test)
    dtypes: list[str] = []
    rules: list[str] = []
    for rule in fp.rules:
        named = any(_name_score(p, generic, rule.class_insensitive) >= 30 for p in rule.patterns)
        may = any(pattern_may_name(p, cls, test, rule.class_insensitive) for p in rule.patterns)
        if dtype_skip_rule(rule) and named:
            dtypes += [d for d in rule.entry.dtypes if d not in dtypes]
            rules.append(str(rule.loc))
        elif may and rule.entry.mode != Mode.skip:
            e = rule.entry
            by_name = all(
                fnmatch.fnmatchcase(test, p.split("::", 1)[-1])
                for p in rule.patterns
                if pattern_may_name(p, cls, test, rule.class_insensitive)
            )
            if e.ops is not None or e.dtypes is not None or e.modules is not None or not by_name:
                return (), ()
    return tuple(dtypes), tuple(rules)


def _exact(values: Optional[Iterable[str]]) -> bool:
    return all(not (GLOB & set(v)) for v in values or ())


def _split(pattern: str, class_insensitive: bool) -> tuple[Optional[str], str]:
    if "::" not in pattern:
        return None, pattern
    cls, meth = pattern.split("::", 1)
    return (None if class_insensitive else cls), meth


class _Compiler:
    def __init__(self, plan: Plan, support: Support, op_keys: Mapping[str, tuple[str, ...]], bypass: bool):
        self.plan, self.support, self.op_keys, self.bypass = plan, support, op_keys, bypass
        self.rows: list[Applied] = []
        self.dtype_exclusions = False  # the core has pytorch main's dtype-level test_exclusions
        self.xfails: list[StrictXfail] = []
        self.allowlist = self._allowlist()

    def row(self, loc, what: str, setting: str, way: str, why: str) -> None:
        self.rows.append(Applied(str(loc), what, setting, way, why))

    # ------------------------------------------------------------ global
    def _allowlist(self) -> Optional[tuple[str, ...]]:
        if self.support.ops is None:
            return None
        names = set(self.support.ops)
        for fp in self.plan.files:  # ops a test's edits.ops.include adds must be generated too
            for rule in fp.rules:
                edits = rule.entry.edits
                for inc in edits.ops.include if edits and edits.ops else ():
                    name = inc if isinstance(inc, str) else inc.name
                    names |= {f for f, keys in self.op_keys.items() if op_matches([name], keys)}
        return tuple(sorted(names))

    def tolerances(self) -> dict[str, tuple[tuple[str, float, float], ...]]:
        """Per op: global dtype precision, then the op's. Dtypes a test's edits.dtypes.include
        gives its own precision stay patched: torch's override would win over the test's."""
        if self.allowlist is None:
            return {}  # every OpInfo would need op_db at start-up: precision stays patched
        ops = self.allowlist
        per_test = {
            inc.name
            for fp in self.plan.files
            for rule in fp.rules
            if rule.entry.edits and rule.entry.edits.dtypes
            for inc in rule.entry.edits.dtypes.include
            if not isinstance(inc, str) and inc.precision
        }
        out = {}
        for op in ops:
            per = dict(self.support.dtype_precision)
            spec = (self.support.ops or {}).get(op)
            per.update({d: (a, r) for d, a, r in (spec.precision if spec else ())})
            per = {d: p for d, p in per.items() if d not in per_test}
            if per:
                out[op] = tuple((d, a, r) for d, (a, r) in sorted(per.items()))
        return out

    def global_rows(self) -> None:
        plan = self.plan
        for name, named in (plan.ops or {}).items():
            spec = named.spec
            self.row(named.loc, f"supported_ops '{name}'", "op_allowlist", NATIVE, "OpInfo full names")
            if spec.dtypes is not None or spec.exclude_dtypes:
                self.row(
                    named.loc,
                    f"supported_ops '{name}' dtypes",
                    "patch",
                    PATCHED,
                    "the native API filters ops, not an op's dtypes (dtype filter and widening)",
                )
            if any(not isinstance(d, str) and d.precision for d in spec.dtypes or ()):
                self.row(
                    named.loc,
                    f"supported_ops '{name}' precision",
                    "op_overrides",
                    NATIVE,
                    "toleranceOverride",
                )
            if spec.shapes is not None:
                self.row(
                    named.loc,
                    f"supported_ops '{name}' shapes",
                    "patch",
                    PATCHED,
                    "shape knobs: no native form",
                )
            if spec.force_xfail:
                self.row(named.loc, f"supported_ops '{name}' force_xfail", "patch", PATCHED, STRICT_WHY)
        if plan.ops is None and self.allowlist is not None:
            self.row(
                plan.sources[0] if plan.sources else "-",
                "capabilities: backend",
                "op_allowlist",
                NATIVE,
                "the backend's capability table as OpInfo full names",
            )
        for name, named in (plan.dtypes or {}).items():
            spec = named.spec
            self.row(
                named.loc,
                f"supported_dtypes '{name}'",
                "patch",
                PATCHED,
                "dtype filter: the native API has no dtype allowlist",
            )
            if spec.precision and self.allowlist is None:
                self.row(
                    named.loc,
                    f"supported_dtypes '{name}' precision",
                    "patch",
                    PATCHED,
                    "no op_allowlist: op_overrides name ops one by one",
                )
            elif spec.precision:
                self.row(
                    named.loc,
                    f"supported_dtypes '{name}' precision",
                    "op_overrides",
                    NATIVE,
                    "toleranceOverride on every allowed op (@ops tests); other tests: patched",
                )
            if spec.force_xfail:
                self.row(named.loc, f"supported_dtypes '{name}' force_xfail", "patch", PATCHED, STRICT_WHY)
        for name, named in (plan.modules or {}).items():
            self.row(
                named.loc,
                f"supported_modules '{name}'",
                "patch",
                PATCHED,
                "@modules: the native API has no module allowlist",
            )
        if plan.setting("scope"):
            self.row(
                plan.scope_loc or (plan.sources[-1] if plan.sources else "-"),
                f"scope: {', '.join(s.lower() for s in plan.setting('scope'))}",
                "test_exclusions",
                NATIVE,
                "device-generic classes the checkout classifies outside the scope: {Class: '*'} "
                "(plain TestCase classes are deselected); applied only where the checkout carries "
                "hw_classification",
            )
        if self.bypass:
            self.row(
                plan.sources[0] if plan.sources else "-",
                "relax_device_restrictions",
                "bypass_device_restrictions",
                NATIVE,
                "onlyOn/onlyCUDA guards; onlyNativeDeviceTypes stays patched (NATIVE_DEVICES)",
            )

    # ------------------------------------------------------------ files
    def file_rows(self, fp: FilePlan) -> None:
        if fp.unlisted_mode == Mode.skip:
            self.row(
                fp.loc, "unlisted_test_mode: skip", "test_exclusions", NATIVE, "every unnamed generic test"
            )
        elif fp.unlisted_mode != Mode.mandatory_success:
            self.row(
                fp.loc,
                f"unlisted_test_mode: {fp.unlisted_mode.value}",
                "patch",
                PATCHED,
                "unnamed tests are only known once the file is imported",
            )
        if fp.relax_only_for:
            self.row(fp.loc, "relax_only_for", "patch", PATCHED, "only_for is an argument, not a setting")
        if fp.relax_device_restrictions and not self.bypass:
            self.row(
                fp.loc,
                "relax_device_restrictions",
                "patch",
                PATCHED,
                "per file: bypass_device_restrictions is set per test, not on the device base",
            )
        if not fp.collect:
            self.row(fp.loc, "collect: false", "patch", PATCHED, "the file is never imported (pytest)")
        for rule in fp.rules:
            self.rule_row(fp, rule)

    def rule_row(self, fp: FilePlan, rule: Rule) -> None:
        e = rule.entry
        what = f"{', '.join(rule.patterns)} ({e.mode.value})"
        layered = self._patched_parts(rule)
        if layered:
            self.row(rule.loc, what, "patch", PATCHED, layered)
        elif e.mode == Mode.skip:
            if e.ops is None and e.dtypes is None and e.modules is None:
                self.row(rule.loc, what, "test_exclusions", NATIVE, "whole generic tests")
            elif self.dtype_exclusions and dtype_skip_rule(rule):
                self.row(
                    rule.loc,
                    what,
                    "test_exclusions",
                    NATIVE,
                    "dtype-level ({Class: {test: {dtypes: [...]}}}, feature-detected in this core); "
                    "a test with tuple dtypes or a more specific entry: patched",
                )
            else:
                self.row(
                    rule.loc,
                    what,
                    "patch",
                    PATCHED,
                    (
                        "variants not generated: dtype-level test_exclusions names exact tests and "
                        "dtypes only (op/module selectors and globs have no native form)"
                        if self.dtype_exclusions
                        else "variants not generated: this core's test_exclusions names whole tests only "
                        "(no dtype-level form, feature-detected), and a DecorateInfo(skip) would still "
                        "generate them"
                    ),
                )
        elif e.mode == Mode.xfail:
            self.row(rule.loc, what, "patch", PATCHED, STRICT_WHY)
        elif e.mode == Mode.xfail_strict:
            found = self._strict(rule)
            if isinstance(found, str):
                self.row(rule.loc, what, "patch", PATCHED, found)
            else:
                self.xfails.extend(found)
                self.row(
                    rule.loc,
                    what,
                    "op_overrides",
                    NATIVE,
                    f"DecorateInfo(expectedFailure) on {len({x.op for x in found})} ops; "
                    "plain (non-@ops) tests it names: patched",
                )
        else:
            self.row(
                rule.loc,
                what,
                "none",
                NATIVE,
                "generated and run as upstream does (kept out of test_exclusions); the bucket is counted by the report",
            )

    def _patched_parts(self, rule: Rule) -> str:
        e = rule.entry
        parts = []
        if e.edits is not None:
            parts.append(
                "edits ("
                + ", ".join(
                    k
                    for k in ("ops", "modules", "dtypes", "shapes", "functions")
                    if getattr(e.edits, k) is not None
                )
                + ")"
            )
        if e.modules is not None:
            parts.append("modules selector (@modules)")
        if e.relax_device_restrictions:
            parts.append("relax_device_restrictions per entry")
        return "; ".join(parts) + ": no native form" if parts else ""

    def _strict(self, rule: Rule):
        e = rule.entry
        if not _exact(rule.patterns) or not _exact(e.dtypes):
            return "glob names or dtypes: a DecorateInfo names one class, test and dtype list"
        if e.ops is None and self.allowlist is None:
            return "no ops selector and no op_allowlist: a DecorateInfo on every OpInfo"
        if e.ops is not None:
            ops = [f for f, keys in self.op_keys.items() if op_matches(e.ops, keys)]
        else:
            ops = list(self.allowlist)
        if self.allowlist is not None:
            ops = [o for o in ops if o in set(self.allowlist)]
        if not ops:
            return "names no allowed OpInfo: only plain tests, which op_overrides cannot reach"
        out = []
        for pattern in rule.patterns:
            cls, meth = _split(pattern, rule.class_insensitive)
            for op in sorted(ops):
                out.append(StrictXfail(op, cls, meth, tuple(e.dtypes) if e.dtypes else None, str(rule.loc)))
        return out


def compile_plan(
    plan: Plan,
    support: Support,
    op_keys: Mapping[str, tuple[str, ...]],
    compat: Optional[str] = None,
    dtype_exclusions: bool = False,
) -> NativePlan:
    """op_keys: every known OpInfo full name -> the names a config may use for it
    (full name, aten name, OpInfo name, aliases)."""
    bypass = (
        bool(plan.setting("relax_device_restrictions")) or (compat or plan.setting("compat")) == "torch_spyre"
    )
    c = _Compiler(plan, support, op_keys, bypass)
    c.dtype_exclusions = dtype_exclusions  # only asked when some entry needs it (setup.dtype_form)
    c.global_rows()
    for fp in plan.files:
        c.file_rows(fp)
    return NativePlan(c.allowlist, c.tolerances(), tuple(c.xfails), bypass, tuple(c.rows), dtype_exclusions)


def native_errors(native: NativePlan) -> list[str]:
    """adapter: native: one line per rule it cannot express."""
    return [
        f"{r.rule}: {r.what}: adapter: native cannot express this ({r.why}); use adapter: auto or patch"
        for r in native.patched_rows
    ]


def has_dtype_rules(plan: Plan) -> bool:
    return any(dtype_skip_rule(r) for fp in plan.files for r in fp.rules)
