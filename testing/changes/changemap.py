"""The change -> tests map as data: what tools/select's pipeline writes and the dispatch reads.

DESIGN.md: "the pipeline builds, the dispatch only reads". The pipeline (tools/select/changes)
builds a ChangeMap from per-test coverage of torch/**/*.py and the repository memory's aten-op
index and writes it with `write_map`; the handler (crcr) reads it with `read_map` into this
typed value, once, and derives every selection from it (decide.py). Standard library only.

Test ids are `<root>/<relpath>::<generic class>::<generated name>`, where <root> is
`${REPO_ROOT}` or `${TORCH_ROOT}` as in configs, so one map serves any checkout location.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from testing.results.atomic import write_json

FORMAT = 1  # bumped when the layout changes; a reader refuses any other
ROOT_TOKENS = ("${REPO_ROOT}", "${TORCH_ROOT}")


MAP_ENV = "OOT_CHANGE_MAP"


def select_dir(env: Mapping[str, str]) -> Path:
    """Where tools/select keeps the repository memory and the change map."""
    base = (
        Path(env["XDG_CACHE_HOME"])
        if env.get("XDG_CACHE_HOME")
        else Path(env.get("HOME") or Path.home()) / ".cache"
    )
    return base / "oot-ci" / "select"


def default_map_path(env: Mapping[str, str]) -> Path:
    """$OOT_CHANGE_MAP, else beside the repository memory."""
    return Path(env[MAP_ENV]) if env.get(MAP_ENV) else select_dir(env) / "changemap.json"


class ChangeMapError(ValueError):
    """The map cannot be used (missing, corrupt, another format): the leg runs full."""


@dataclass(frozen=True)
class Function:
    file: str  # torch/nn/modules/flatten.py (relative to the torch checkout root)
    name: str  # qualified: Flatten.__init__
    start: int  # first line (decorators included)
    end: int  # last line


@dataclass(frozen=True)
class Recorded:
    seconds: float  # recorded duration of the test (setup + call + teardown)
    functions: frozenset[int]  # ids into ChangeMap.functions the test executed
    ops: frozenset[str] = frozenset()  # aten ops it dispatches (repository memory's op index)


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


@dataclass(frozen=True)
class ChangeMap:
    torch_version: str  # the core the coverage ran on (torch.__version__)
    core_git_version: str  # its upstream commit (torch.version.git_version)
    suite_sha: str  # the upstream commit whose test files were run ("" = in-tree only)
    functions: tuple[Function, ...]
    import_time: frozenset[int]  # functions executed outside every test (import, collection)
    features: Mapping[str, Feature]
    ops_recorded: bool = False  # whether the aten-op part was joined in
    built_at: str = ""
    by_file: Mapping[str, tuple[int, ...]] = field(default_factory=dict, compare=False)

    def functions_of(self, file: str) -> tuple[int, ...]:
        return self.by_file.get(file, ())


def _file_index(functions: tuple[Function, ...]) -> dict[str, tuple[int, ...]]:
    index: dict[str, list[int]] = {}
    for i, f in enumerate(functions):
        index.setdefault(f.file, []).append(i)
    return {k: tuple(v) for k, v in index.items()}


def make_map(**kw: Any) -> ChangeMap:
    m = ChangeMap(**kw)
    return ChangeMap(**{**kw, "by_file": _file_index(m.functions)})


# ---------------------------------------------------------------- JSON
def to_json(m: ChangeMap) -> dict:
    """Coverage sets are shared: variants of one test usually execute the same functions."""
    sets: dict[frozenset[int], int] = {}
    features = {}
    for name, feat in sorted(m.features.items()):
        tests = {}
        for tid, t in sorted(feat.tests.items()):
            idx = sets.setdefault(t.functions, len(sets))
            tests[tid] = {"s": round(t.seconds, 4), "cov": idx, "ops": sorted(t.ops)}
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
        "functions": [[f.file, f.name, f.start, f.end] for f in m.functions],
        "import_time": sorted(m.import_time),
        "sets": [sorted(s) for s, _ in sorted(sets.items(), key=lambda kv: kv[1])],
        "features": features,
    }


def from_json(doc: Any, where: str) -> ChangeMap:
    if not isinstance(doc, dict):
        raise ChangeMapError(f"{where}: not a change map (a JSON object expected)")
    if doc.get("format") != FORMAT:
        raise ChangeMapError(f"{where}: change map format {doc.get('format')!r}, this reader reads {FORMAT}")
    try:
        functions = tuple(Function(str(a), str(b), int(c), int(d)) for a, b, c, d in doc["functions"])
        sets = [frozenset(int(i) for i in s) for s in doc["sets"]]
        features = {}
        for name, f in doc["features"].items():
            tests = {
                str(tid): Recorded(float(t["s"]), sets[int(t["cov"])], frozenset(map(str, t.get("ops", ()))))
                for tid, t in f["tests"].items()
            }
            features[str(name)] = Feature(
                {str(k): str(v) for k, v in f["configs"].items()},
                {str(k): str(v) for k, v in f["test_files"].items()},
                tests,
                tuple(str(s) for s in f.get("sentinels", ()) if s in tests),
            )
        bad = [i for s in sets for i in s if not 0 <= i < len(functions)]
        if bad:
            raise ChangeMapError(f"{where}: coverage names function {bad[0]}, the map has {len(functions)}")
        return make_map(
            torch_version=str(doc["core"]["torch"]),
            core_git_version=str(doc["core"].get("git_version") or ""),
            suite_sha=str(doc.get("suite_sha") or ""),
            functions=functions,
            import_time=frozenset(int(i) for i in doc.get("import_time", ())),
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
