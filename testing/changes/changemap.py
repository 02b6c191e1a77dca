"""The change -> tests map as data: what tools/select's pipeline writes and the dispatch reads.

DESIGN.md: "the pipeline builds, the dispatch only reads". The pipeline (tools/select/changes)
builds a ChangeMap from per-test line coverage of torch/**/*.py (which tests executed each
line; which lines ran outside every test: import, collection) and the repository memory's
aten-op index and writes it with `write_map`; the handler (crcr) reads it with `read_map` into this
typed value, once, and derives every selection from it (decide.py). Standard library only.

Test ids are `<root>/<relpath>::<generic class>::<generated name>`, where <root> is
`${REPO_ROOT}` or `${TORCH_ROOT}` as in configs, so one map serves any checkout location.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from testing.base.atomic import write_json
from testing.base.cachedir import user_cache
from testing.base.errors import OotError

FORMAT = 3  # bumped when the layout changes; a reader refuses any other (2: per-line coverage, 3: test modes)
ROOT_TOKENS = ("${REPO_ROOT}", "${TORCH_ROOT}")


MAP_ENV = "OOT_CHANGE_MAP"


def select_dir(env: Mapping[str, str]) -> Path:
    """Where tools/select keeps the repository memory and the change map."""
    return (user_cache(env) or Path.home() / ".cache" / "oot-ci") / "select"


def default_map_path(env: Mapping[str, str]) -> Path:
    """$OOT_CHANGE_MAP, else beside the repository memory."""
    return Path(env[MAP_ENV]) if env.get(MAP_ENV) else select_dir(env) / "changemap.json"


class ChangeMapError(OotError, ValueError):
    """The map cannot be used (missing, corrupt, another format): the leg runs full."""


@dataclass(frozen=True)
class Function:
    """A def of a core file some code executed: names a change in the selection's reasons."""

    file: str  # torch/nn/modules/flatten.py (relative to the torch checkout root)
    name: str  # qualified: Flatten.__init__
    start: int  # first line (decorators included)
    end: int  # last line
    tested: bool = False  # a test (not only import/collection) executed its own body


@dataclass(frozen=True)
class Lines:
    """Consecutive lines of one core file executed by the same tests (a statement's lines
    count together; a def's signature lines count as executed by the def's callers)."""

    start: int
    end: int
    tests: frozenset[int]  # indices into ChangeMap.tests


@dataclass(frozen=True)
class Recorded:
    seconds: float  # recorded duration of the test (setup + call + teardown)
    ops: frozenset[str] = frozenset()  # aten ops it dispatches (repository memory's op index)
    mode: str = ""  # its config bucket when recorded (testing/config/modes.py; "": no decision)


@dataclass(frozen=True)
class Feature:
    """One leg's feature as the pipeline ran it (every test its configs generate)."""

    configs: Mapping[str, str]  # config file (rooted) -> sha256 of its content when recorded
    test_files: Mapping[str, str]  # test file (rooted) -> sha256 of its content when recorded
    tests: Mapping[str, Recorded]
    sentinels: tuple[str, ...] = ()  # a small fixed set that always runs

    @property
    def seconds(self) -> float:
        return sum(t.seconds for t in self.tests.values())


Coverage = Mapping[str, Mapping[str, Mapping[int, Iterable[str]]]]  # feature -> file -> line -> test ids


@dataclass(frozen=True)
class ChangeMap:
    torch_version: str  # the core the coverage ran on (torch.__version__)
    core_git_version: str  # its upstream commit (torch.version.git_version)
    suite_sha: str  # the upstream commit whose test files were run ("" = in-tree only)
    functions: tuple[Function, ...]
    tests: tuple[tuple[str, str], ...]  # (feature, test id): what Lines.tests index
    lines: Mapping[str, tuple[Lines, ...]]  # core file -> runs of lines tests executed, by start
    import_lines: Mapping[str, tuple[tuple[int, int], ...]]  # lines run outside every test
    features: Mapping[str, Feature]
    ops_recorded: bool = False  # whether the aten-op part was joined in
    built_at: str = ""
    by_file: Mapping[str, tuple[int, ...]] = field(default_factory=dict, compare=False)

    def functions_of(self, file: str) -> tuple[int, ...]:
        return self.by_file.get(file, ())

    def known(self, file: str) -> bool:
        """Whether any recorded code (a test's or import's) lies in `file`."""
        return file in self.lines or file in self.import_lines

    def import_line(self, file: str, lines: Iterable[int]) -> Optional[int]:
        """The first of `lines` that ran at import, collection or session end, else None."""
        ranges = self.import_lines.get(file, ())
        starts = [r[0] for r in ranges]
        for line in sorted(lines):
            i = bisect.bisect_right(starts, line) - 1
            if i >= 0 and ranges[i][0] <= line <= ranges[i][1]:
                return line
        return None

    def tests_at(self, file: str, lines: Iterable[int]) -> set[int]:
        """Tests that executed any of `lines` of `file`."""
        runs = self.lines.get(file, ())
        starts = [r.start for r in runs]
        out: set[int] = set()
        for line in lines:
            i = bisect.bisect_right(starts, line) - 1
            if i >= 0 and runs[i].start <= line <= runs[i].end:
                out |= runs[i].tests
        return out

    def tests_of_file(self, file: str) -> set[int]:
        return {i for r in self.lines.get(file, ()) for i in r.tests}

    def of_feature(self, feature: str, indices: Iterable[int]) -> set[str]:
        return {self.tests[i][1] for i in indices if self.tests[i][0] == feature}

    def function_at(self, file: str, line: int) -> Optional[Function]:
        """The innermost recorded def holding `line` (None: module level or not recorded)."""
        holding = [self.functions[i] for i in self.functions_of(file)]
        inner = [f for f in holding if f.start <= line <= f.end]
        return min(inner, key=lambda f: f.end - f.start) if inner else None


def _file_index(functions: tuple[Function, ...]) -> dict[str, tuple[int, ...]]:
    index: dict[str, list[int]] = {}
    for i, f in enumerate(functions):
        index.setdefault(f.file, []).append(i)
    return {k: tuple(v) for k, v in index.items()}


def make_map(**kw: Any) -> ChangeMap:
    m = ChangeMap(**kw)
    return ChangeMap(**{**kw, "by_file": _file_index(m.functions)})


def runs_of(lines: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """Sorted line numbers -> inclusive runs of consecutive lines."""
    out: list[list[int]] = []
    for line in sorted(set(lines)):
        if out and line == out[-1][1] + 1:
            out[-1][1] = line
        else:
            out.append([line, line])
    return tuple((a, b) for a, b in out)


def pack(coverage: Coverage) -> tuple[tuple[tuple[str, str], ...], dict[str, tuple[Lines, ...]]]:
    """Per-feature line coverage -> the map's test index and its runs of lines, consecutive
    lines with the same tests folded into one run."""
    keys = sorted(
        {
            (f, t)
            for f, files in coverage.items()
            for lines in files.values()
            for ts in lines.values()
            for t in ts
        }
    )
    index = {k: i for i, k in enumerate(keys)}
    per_file: dict[str, dict[int, set[int]]] = {}
    for feature, files in coverage.items():
        for file, lines in files.items():
            into = per_file.setdefault(file, {})
            for line, tests in lines.items():
                into.setdefault(line, set()).update(index[(feature, t)] for t in tests)
    out: dict[str, tuple[Lines, ...]] = {}
    for file, lines in sorted(per_file.items()):
        runs: list[Lines] = []
        for line in sorted(lines):
            tests = frozenset(lines[line])
            if not tests:
                continue
            if runs and runs[-1].end == line - 1 and runs[-1].tests == tests:
                runs[-1] = Lines(runs[-1].start, line, tests)
            else:
                runs.append(Lines(line, line, tests))
        if runs:
            out[file] = tuple(runs)
    return tuple(keys), out


def map_from_coverage(coverage: Coverage, imports: Mapping[str, Iterable[int]], **kw: Any) -> ChangeMap:
    """A map from per-feature line coverage and the lines run outside every test."""
    tests, lines = pack(coverage)
    import_lines = {f: runs_of(ls) for f, ls in sorted(imports.items()) if ls}
    return make_map(tests=tests, lines=lines, import_lines=import_lines, **kw)


def coverage_of(m: ChangeMap) -> tuple[dict, dict]:
    """The inverse of map_from_coverage (an incremental build carries a feature over)."""
    cov: dict = {}
    for file, runs in m.lines.items():
        for r in runs:
            for i in r.tests:
                feature, tid = m.tests[i]
                lines = cov.setdefault(feature, {}).setdefault(file, {})
                for line in range(r.start, r.end + 1):
                    lines.setdefault(line, set()).add(tid)
    imports = {f: {ln for a, b in rs for ln in range(a, b + 1)} for f, rs in m.import_lines.items()}
    return cov, imports


# ---------------------------------------------------------------- JSON
def to_json(m: ChangeMap) -> dict:
    """Test sets are shared: runs of lines are mostly executed by the same few groups of tests."""
    sets: dict[frozenset[int], int] = {}
    lines = {
        file: [[r.start, r.end, sets.setdefault(r.tests, len(sets))] for r in runs]
        for file, runs in sorted(m.lines.items())
    }
    features = {}
    for name, feat in sorted(m.features.items()):
        tests = {
            tid: {"s": round(t.seconds, 4), "ops": sorted(t.ops), **({"mode": t.mode} if t.mode else {})}
            for tid, t in sorted(feat.tests.items())
        }
        features[name] = {
            "configs": dict(sorted(feat.configs.items())),
            "test_files": dict(sorted(feat.test_files.items())),
            "sentinels": list(feat.sentinels),
            "tests": tests,
        }
    return {
        "format": FORMAT,
        "core": {"torch": m.torch_version, "git_version": m.core_git_version},
        "suite_sha": m.suite_sha,
        "built_at": m.built_at,
        "ops_recorded": m.ops_recorded,
        "functions": [[f.file, f.name, f.start, f.end, int(f.tested)] for f in m.functions],
        "tests": [list(k) for k in m.tests],
        "sets": [sorted(s) for s, _ in sorted(sets.items(), key=lambda kv: kv[1])],
        "lines": lines,
        "import_lines": {f: [list(r) for r in rs] for f, rs in sorted(m.import_lines.items())},
        "features": features,
    }


def _features(doc: dict) -> dict[str, Feature]:
    out = {}
    for name, f in doc["features"].items():
        tests = {
            str(tid): Recorded(float(t["s"]), frozenset(map(str, t.get("ops", ()))), str(t.get("mode", "")))
            for tid, t in f["tests"].items()
        }
        out[str(name)] = Feature(
            {str(k): str(v) for k, v in f["configs"].items()},
            {str(k): str(v) for k, v in f["test_files"].items()},
            tests,
            tuple(str(s) for s in f.get("sentinels", ()) if s in tests),
        )
    return out


def from_json(doc: Any, where: str) -> ChangeMap:
    if not isinstance(doc, dict):
        raise ChangeMapError(f"{where}: not a change map (a JSON object expected)")
    if doc.get("format") != FORMAT:
        raise ChangeMapError(f"{where}: change map format {doc.get('format')!r}, this reader reads {FORMAT}")
    try:
        functions = tuple(
            Function(str(a), str(b), int(c), int(d), bool(e)) for a, b, c, d, e in doc["functions"]
        )
        features = _features(doc)
        tests = tuple((str(f), str(t)) for f, t in doc["tests"])
        unknown = [k for k in tests if k[1] not in features.get(k[0], Feature({}, {}, {})).tests]
        if unknown:
            raise ChangeMapError(
                f"{where}: coverage names test {unknown[0][1]!r}, not one of {unknown[0][0]}'s"
            )
        sets = [frozenset(int(i) for i in s) for s in doc["sets"]]
        bad = [i for s in sets for i in s if not 0 <= i < len(tests)]
        if bad:
            raise ChangeMapError(f"{where}: coverage names test {bad[0]}, the map has {len(tests)}")
        lines = {
            str(file): tuple(
                sorted((Lines(int(a), int(b), sets[int(s)]) for a, b, s in runs), key=lambda r: r.start)
            )
            for file, runs in doc["lines"].items()
        }
        return make_map(
            torch_version=str(doc["core"]["torch"]),
            core_git_version=str(doc["core"].get("git_version") or ""),
            suite_sha=str(doc.get("suite_sha") or ""),
            functions=functions,
            tests=tests,
            lines=lines,
            import_lines={
                str(f): tuple(sorted((int(a), int(b)) for a, b in rs))
                for f, rs in doc["import_lines"].items()
            },
            features=features,
            ops_recorded=bool(doc.get("ops_recorded")),
            built_at=str(doc.get("built_at") or ""),
        )
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        if isinstance(err, ChangeMapError):
            raise
        raise ChangeMapError(f"{where}: corrupt change map ({type(err).__name__}: {err})") from None


def read_map(path: Path) -> ChangeMap:
    """The map at `path`, or ChangeMapError with one line saying why not."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ChangeMapError(f"no change map at {path}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ChangeMapError(f"{path}: unreadable change map ({err})") from None
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise ChangeMapError(f"{path}: corrupt change map (not JSON: {err})") from None
    return from_json(doc, str(path))


def write_map(path: Path, m: ChangeMap) -> Path:
    return write_json(path, to_json(m), indent=None, sort_keys=False)


# ---------------------------------------------------------------- rooted paths
def rooted(path: str, roots: Mapping[str, Optional[Path]]) -> Optional[str]:
    """`${TORCH_ROOT}/test/x.py` -> an absolute real path under that root (None: root unknown)."""
    for token in ROOT_TOKENS:
        if path.startswith(token + "/"):
            root = roots.get(token)
            return os.path.realpath(Path(root) / path[len(token) + 1 :]) if root else None
    return os.path.realpath(path)


def to_rooted(path: str | Path, roots: Mapping[str, Optional[Path]]) -> str:
    """An absolute path -> `${ROOT}/rel` under the first root holding it (else the real path)."""
    real = os.path.realpath(path)
    for token in ROOT_TOKENS:
        root = roots.get(token)
        if root:
            base = os.path.realpath(root) + os.sep
            if real.startswith(base):
                return f"{token}/{real[len(base) :]}"
    return real


def digests(paths: Iterable[str | Path], roots: Mapping[str, Optional[Path]]) -> dict[str, Optional[str]]:
    """rooted path -> sha256 of the content (None: absent). What a map records and a leg checks."""
    out: dict[str, Optional[str]] = {}
    for p in paths:
        try:
            out[to_rooted(p, roots)] = hashlib.sha256(Path(p).read_bytes()).hexdigest()
        except OSError:
            out[to_rooted(p, roots)] = None
    return out


def test_file(test_id: str) -> str:
    return test_id.split("::", 1)[0]
