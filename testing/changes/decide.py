"""Pure: which tests of one feature a change needs, from the change map (no git, no I/O).

Each changed path is explained or not:
- a test file of the feature selects all its tests (new ones included); another suite's
  test file is not this leg's concern; any other file under test/ (a helper) is unexplained;
- torch/**/*.py: the changed lines (old side, the map's version of the file) select the tests
  that executed them in their setup, call or teardown; a def's signature line, the tests that
  called it; a line no test executed selects nothing (control never reaches it); a hunk of
  comments is inert; a new module selects nothing by itself (tests reach it only through an
  import, and that import is a change of its own); a line that ran at import or collection
  (it shapes what every test starts from) or a deleted core file is unexplained;
- native_functions.yaml: the ops whose `func:` lines changed, through the tests' aten ops;
  a kernel file named for an op (snake_case of its stem) likewise; other native code is
  unexplained;
- documentation and upstream CI files are explained (no test can see them).
Anything unexplained makes the leg run full, saying which path and why. A budget (budget.py)
caps the tests a change reaches through the map at a share of the leg's recorded time,
ranked, and says so in the line; by default (budget None) every reached test runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Iterable, Mapping, Optional, Sequence

from testing.changes.budget import Cut, apply_budget, specificity
from testing.changes.changemap import ChangeMap, Feature, test_file
from testing.changes.diff import FileChange

NATIVE_SUFFIXES = (".cpp", ".cc", ".c", ".h", ".hpp", ".cu", ".cuh", ".mm", ".metal", ".S")
BUILD_NAMES = ("CMakeLists.txt", "setup.py", "pyproject.toml", "WORKSPACE", "version.txt", "MODULE.bazel")
BUILD_PREFIXES = ("cmake/", "tools/", "torchgen/", "third_party/", ".bazel")
INERT_PREFIXES = ("docs/", ".github/", ".ci/", "benchmarks/", "functorch/docs/")
INERT_SUFFIXES = (".md", ".rst", ".txt.in", ".png", ".svg")
NATIVE_YAML = "aten/src/ATen/native/native_functions.yaml"
TORCH_ROOT = "${TORCH_ROOT}/"
MAX_REASONS = 4


@dataclass(frozen=True)
class Selection:
    feature: str
    full: bool
    total: int  # tests of the feature in the map (Y)
    total_seconds: float
    tests: frozenset[str] = frozenset()  # selected test ids (rooted)
    files: frozenset[str] = frozenset()  # rooted test files selected whole
    seconds: float = 0.0
    reasons: tuple[str, ...] = ()
    cut: Optional[Cut] = None  # what the budget left out (None: it cut nothing)

    @property
    def selected(self) -> int:
        return self.total if self.full else len(self.tests)

    @property
    def time_share(self) -> float:
        if self.full or not self.total_seconds:
            return 100.0 if self.full else 0.0
        return 100.0 * self.seconds / self.total_seconds

    def line(self) -> str:
        why = "; ".join(self.reasons)
        if self.full:
            return f"full leg ({self.total} tests): {why}" if self.total else f"full leg: {why}"
        return f"selected {self.selected} of {self.total} tests ({self.time_share:.1f} % of recorded time): {why}"

    def as_json(self) -> dict:
        return {
            "feature": self.feature,
            "mode": "full" if self.full else "selected",
            "selected": self.selected,
            "total": self.total,
            "time_share": round(self.time_share, 2),
            "reasons": list(self.reasons),
            "budget": self.cut.as_json() if self.cut else None,
            "line": self.line(),
        }


def full_leg(feature: str, reason: str, feat: Optional[Feature] = None) -> Selection:
    total = len(feat.tests) if feat else 0
    return Selection(feature, True, total, feat.seconds if feat else 0.0, reasons=(reason,))


@dataclass
class _Acc:
    tests: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    reasons: list[str] = field(default_factory=list)
    unexplained: Optional[str] = None
    changes: Sequence[FileChange] = ()  # the whole diff (a new module is explained by its importers)
    reached: set[str] = field(default_factory=set)  # through the map (core lines, ops): budgeted
    fixed: set[str] = field(default_factory=set)  # for any other reason: never cut
    covers: list[frozenset[str]] = field(default_factory=list)  # per changed line/op: who ran it
    spots: dict[str, list[int]] = field(default_factory=dict)  # core file -> changed lines hit

    def add(self, why: str, tests: Iterable[str], reached: bool = False) -> None:
        tests = set(tests)
        self.tests |= tests
        if reached:
            self.reached |= tests
        else:
            self.fixed |= tests
        self.reasons.append(f"{why} ({len(tests)} tests)")


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def op_base(op: str) -> str:
    """'aten::add.Tensor' -> 'add'."""
    return op.split("::")[-1].split(".")[0]


def _tests_with_ops(feat: Feature, names: Iterable[str]) -> set[str]:
    wanted = set(names)
    return {tid for tid, t in feat.tests.items() if any(op_base(o) in wanted for o in t.ops)}


def _changed_lines(c: FileChange) -> list[int]:
    """Old-side lines of the hunks that change code (a hunk of comments and blanks is inert)."""
    out: list[int] = []
    for h, (lo, hi) in zip(c.hunks, c.old_lines()):
        if all(not ln[1:].strip() or ln[1:].lstrip().startswith("#") for ln in h.lines) and h.lines:
            continue
        out += range(lo, hi + 1)
    return out


def _where(m: ChangeMap, path: str, line: int) -> str:
    f = m.function_at(path, line)
    return f"{path}:{line} ({f.name if f else 'module level'})"


def importers(path: str, changes: Sequence[FileChange]) -> list[str]:
    """Changed files whose added lines import the module at `path` (torch/a/b.py -> b)."""
    leaf = PurePosixPath(path).parent.name if path.endswith("/__init__.py") else PurePosixPath(path).stem
    pattern = re.compile(rf"^\+.*\bimport\b.*\b{re.escape(leaf)}\b|^\+\s*from\s+\S*\b{re.escape(leaf)}\b")
    return [
        o.path
        for o in changes
        if o.path != path and any(pattern.search(ln) for h in o.hunks for ln in h.lines)
    ]


def _new_core_file(c: FileChange, acc: _Acc) -> None:
    """A module no test can have run: it reaches tests only through a file that imports it,
    and that import is itself in the diff (and selects through the map)."""
    by = importers(c.path, acc.changes)
    acc.reasons.append(
        f"new core file {c.path}, imported by changed {by[0]}"
        if by
        else f"new core file nothing imports: {c.path}"
    )


def _core_python(m: ChangeMap, name: str, c: FileChange, acc: _Acc, file_level: bool) -> None:
    """Line granularity: the tests that executed a changed line (a signature line: the def's
    callers). A changed line that ran at import or collection (module level, class bodies,
    decorators, functions called while importing) changes what every test starts from: the
    leg runs full, naming the line."""
    if c.status == "A":
        _new_core_file(c, acc)
        return
    if not m.known(c.path):
        acc.reasons.append(f"{c.path}: no test executes it (0 tests)")
        return
    if c.status == "D":
        acc.unexplained = acc.unexplained or f"core file deleted: {c.path}"
        return
    if file_level:
        acc.add(f"{c.path} (file-level)", m.of_feature(name, m.tests_of_file(c.path)))
        return
    lines = _changed_lines(c)
    at_import = m.import_line(c.path, lines)
    if at_import is not None:
        acc.unexplained = acc.unexplained or (
            f"{_where(m, c.path, at_import)} runs at import or collection, before every test"
        )
        return
    ran = {ln: m.tests_at(c.path, [ln]) for ln in set(lines)}  # per changed line: who executed it
    hit = sorted(ln for ln, tests in ran.items() if tests)
    if not hit:
        acc.reasons.append(f"{c.path}: no test executes the changed lines (0 tests)")
        return
    covers = [frozenset(m.of_feature(name, ran[ln])) for ln in hit]
    names = sorted({(f.name if (f := m.function_at(c.path, ln)) else "module level") for ln in hit})
    acc.add(f"{c.path}:{hit[0]} {', '.join(names[:3])}", set().union(*covers), reached=True)
    acc.covers += covers
    acc.spots.setdefault(c.path, []).extend(hit)


def _native(m: ChangeMap, feat: Feature, c: FileChange, acc: _Acc) -> None:
    if not m.ops_recorded:
        acc.unexplained = acc.unexplained or f"native change and the map has no aten-op part: {c.path}"
        return
    if c.path == NATIVE_YAML:
        funcs = c.func_names()
        if not funcs or any(not any(ln.lstrip("+- ").startswith("func:") for ln in h.lines) for h in c.hunks):
            acc.unexplained = acc.unexplained or f"{c.path}: a hunk names no func: line"
            return
        covers = [frozenset(_tests_with_ops(feat, [f])) for f in funcs]
        acc.add(f"native ops {', '.join(funcs[:3])}", set().union(*covers), reached=True)
        acc.covers += covers
        return
    stem = PurePosixPath(c.path).stem
    known = {op_base(o) for t in m_all_ops(m) for o in t}
    name = next((n for n in (snake(stem), stem.lower()) if n in known), None)
    if name is None:
        acc.unexplained = acc.unexplained or f"unmapped native code: {c.path}"
        return
    tests = frozenset(_tests_with_ops(feat, [name]))
    acc.add(f"kernel {c.path} -> aten::{name}", tests, reached=True)
    acc.covers.append(tests)


def m_all_ops(m: ChangeMap) -> Iterable[frozenset[str]]:
    return (t.ops for f in m.features.values() for t in f.tests.values())


def _classify(
    m: ChangeMap, name_of_feature: str, feat: Feature, c: FileChange, acc: _Acc, file_level: bool
) -> None:
    p = c.path
    name = PurePosixPath(p).name
    if p.startswith("test/") and p.endswith(".py"):
        rooted = TORCH_ROOT + p
        if rooted in feat.test_files:
            acc.files.add(rooted)
            acc.add(
                f"test file changed, new tests included: {p}",
                (t for t in feat.tests if test_file(t) == rooted),
            )
        elif not name.startswith("test_"):
            acc.unexplained = acc.unexplained or f"test helper changed, not in the map: {p}"
        return
    if p.startswith("torch/") and p.endswith(".py"):
        _core_python(m, name_of_feature, c, acc, file_level)
        return
    if p == NATIVE_YAML or p.endswith(NATIVE_SUFFIXES):
        _native(m, feat, c, acc)
        return
    if p.startswith(INERT_PREFIXES) or p.endswith(INERT_SUFFIXES):
        return
    if name in BUILD_NAMES or p.startswith(BUILD_PREFIXES) or name.startswith("BUILD") or p.endswith(".bzl"):
        acc.unexplained = acc.unexplained or f"build or codegen file changed: {p}"
        return
    acc.unexplained = acc.unexplained or f"unmapped change: {p}"


def _summary(reasons: list[str]) -> tuple[str, ...]:
    if len(reasons) <= MAX_REASONS:
        return tuple(reasons)
    return tuple(reasons[:MAX_REASONS]) + (f"+{len(reasons) - MAX_REASONS} more",)


def select_tests(
    m: ChangeMap,
    feature: str,
    changes: Sequence[FileChange],
    tests_now: Mapping[str, Optional[str]],
    configs_now: Mapping[str, Optional[str]] = {},
    *,
    file_level: str = "",
    budget: Optional[float] = None,
) -> Selection:
    """The tests of `feature` that `changes` need. `tests_now` / `configs_now`: the feature's
    test files and configs as the leg will run them (rooted path -> sha256, None = absent).
    A test file the map recorded with other content is treated as changed (a stale map
    widens); configs are compared by content (paths differ between checkouts), and a changed
    one selects every test of its feature. `file_level`: why function spans cannot be
    trusted (another core), "" if they can. `budget`: the share of the leg's recorded time the
    reached tests may take (budget.py; None: all of them)."""
    feat = m.features.get(feature)
    if feat is None:
        return full_leg(feature, f"the change map has no tests of {feature}")
    acc = _Acc(changes=changes)
    for c in changes:
        _classify(m, feature, feat, c, acc, bool(file_level))
        if acc.unexplained:
            return full_leg(feature, acc.unexplained, feat)
    if file_level:
        acc.reasons.insert(0, file_level)
    recorded = set(feat.configs.values())
    moved = [p for p, d in sorted(configs_now.items()) if d not in recorded]
    if moved or len(configs_now) != len(feat.configs):
        name = moved[0].split("}/", 1)[-1] if moved else "the feature's config list"
        acc.add(f"config changed: {name}", feat.tests)
    for path, digest in sorted(tests_now.items()):
        if path not in acc.files and feat.test_files.get(path) != digest:
            acc.files.add(path)
            acc.add(
                f"map stale for {path.removeprefix(TORCH_ROOT)}",
                (t for t in feat.tests if test_file(t) == path),
            )
    sentinels = set(feat.sentinels) - acc.tests
    acc.tests |= sentinels
    acc.fixed |= set(feat.sentinels)
    acc.reasons.append(f"sentinels ({len(sentinels)})")
    times = {t: r.seconds for t, r in feat.tests.items()}
    run, cut = apply_budget(
        acc.reached & set(feat.tests),
        acc.fixed & set(feat.tests),
        acc.covers,
        times,
        feat.seconds,
        budget,
        _specificity(m, feature, acc.spots) if budget is not None else {},
        {t: r.mode for t, r in feat.tests.items() if r.mode},
    )
    if cut:  # first, so the summary's truncation never hides it
        acc.reasons.insert(0, cut.reason(feat.seconds))
    return Selection(
        feature,
        False,
        len(feat.tests),
        feat.seconds,
        frozenset(run),
        frozenset(acc.files),
        sum(times[t] for t in run),
        _summary(acc.reasons),
        cut,
    )


def _specificity(m: ChangeMap, feature: str, spots: Mapping[str, Sequence[int]]) -> dict[str, float]:
    """budget.specificity over the lines of the functions holding the changed lines (a changed
    module-level line: that line alone)."""
    runs: list[tuple[int, list[str]]] = []
    for path, lines in spots.items():
        spans = set()
        for ln in lines:
            f = m.function_at(path, ln)
            spans.add((f.start, f.end) if f else (ln, ln))
        for r in m.lines.get(path, ()):
            for a, b in spans:
                overlap = min(b, r.end) - max(a, r.start) + 1
                if overlap > 0:
                    runs.append((overlap, sorted(m.of_feature(feature, r.tests))))
    return specificity(runs)
