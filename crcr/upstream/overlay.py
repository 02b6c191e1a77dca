"""Core at the dispatched SHA: the pinned wheel plus the Python files upstream
changed since the wheel's own commit (`torch.version.git_version`).

`core_delta` is pure: it sorts a tree diff into the Python overlay
(`torch/**/*.py`) and native changes (C++/CUDA sources, codegen inputs, build
files), which a Python overlay cannot apply. `build_overlay` lays the overlay
over the wheel's `torch/` as a content-keyed directory under the cache: real
copies for changed files, symlinks for everything else (directories that hold
no change are one symlink each), so building it costs a few hundred inodes and
every leg with the same wheel and overlay shares it. Bytecode is kept: the
wheel's `__pycache__` beside a changed file is mirrored without that file's
entries (the wheel's bytecode may be unchecked-hash, so a stale entry would be
used blindly), and the changed files are compiled once, checked-hash, into the
overlay; without it every interpreter on the overlay recompiled whole directories
(all of `torch/*.py` for one changed file there) on each start.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import py_compile
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, Sequence

from testing.base import atomic

NATIVE_SUFFIXES = frozenset(
    {
        ".c",
        ".cc",
        ".cpp",
        ".cxx",
        ".h",
        ".hpp",
        ".cu",
        ".cuh",
        ".mm",
        ".m",
        ".metal",
        ".hip",
        ".S",
        ".cmake",
        ".bzl",
        ".pyx",
        ".ptx",
    }
)
NATIVE_NAMES = frozenset(
    {
        "CMakeLists.txt",
        "native_functions.yaml",
        "derivatives.yaml",
        "tags.yaml",
        "setup.py",
        "BUILD.bazel",
        "BUILD",
        "build_variables.bzl",
        "pyproject.toml",
        "requirements.txt",
    }
)
# Python that generates native code: changing it changes the binary, not torch/*.py
NATIVE_PREFIXES = (
    "torchgen/",
    "tools/autograd/",
    "tools/setup_helpers/",
    "aten/src/",
    "c10/",
    "caffe2/",
    "third_party/",
    "torch/csrc/",
)
NATIVE_NOTE = "core: nearest wheel, native changes not applied"


def is_native(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        name in NATIVE_NAMES
        or os.path.splitext(name)[1] in NATIVE_SUFFIXES
        or path.startswith(NATIVE_PREFIXES)
    )


def is_core_python(path: str) -> bool:
    return path.startswith("torch/") and path.endswith(".py") and not path.startswith("torch/csrc/")


@dataclass(frozen=True)
class CoreDelta:
    base: str  # the wheel's commit
    sha: str  # the dispatched commit
    python: tuple[tuple[str, str], ...]  # (status, torch/... path) to lay over the wheel
    native: tuple[str, ...]  # changed native sources: not applied

    def note(self) -> str:
        if self.native:
            shown = ", ".join(self.native[:3]) + (
                f", +{len(self.native) - 3} more" if len(self.native) > 3 else ""
            )
            return (
                f"{NATIVE_NOTE} ({len(self.native)} files: {shown}); {len(self.python)} python files overlaid"
            )
        if self.python:
            return f"core: wheel + {len(self.python)} python files at {self.sha[:12]}"
        return f"core: wheel as is (no core change since {self.base[:12]})"

    def as_json(self) -> dict:
        return {
            "base": self.base,
            "sha": self.sha,
            "note": self.note(),
            "python": [{"status": s, "path": p} for s, p in self.python],
            "native": list(self.native),
        }


def core_delta(base: str, sha: str, changes: Sequence[tuple[str, str]]) -> CoreDelta:
    """Sort (status, path) changes between the wheel's commit and the dispatched one."""
    python = tuple(sorted((s[0], p) for s, p in changes if is_core_python(p)))
    native = tuple(sorted(p for _, p in changes if is_native(p)))
    return CoreDelta(base, sha, python, native)


# -- the overlay tree (glue) -----------------------------------------------------
WHEEL_VERSION_RE = re.compile(r"""^git_version\s*=\s*['"]([0-9a-f]{40})['"]""", re.MULTILINE)
WHEEL_RELEASE_RE = re.compile(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def wheel_torch_dir() -> Path:
    """The torch package of the interpreter we run under (found without importing it)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("torch is not importable")
    return Path(list(spec.submodule_search_locations)[0])


def wheel_git_version(torch_dir: Path) -> Optional[str]:
    """torch.version.git_version, read from torch/version.py (importing torch takes seconds)."""
    try:
        m = WHEEL_VERSION_RE.search((torch_dir / "version.py").read_text())
    except OSError:
        return None
    return m.group(1) if m else None


def wheel_version(torch_dir: Path) -> str:
    """torch.__version__ from torch/version.py, e.g. '2.13.0+cpu'."""
    m = WHEEL_RELEASE_RE.search((torch_dir / "version.py").read_text())
    if not m:
        raise FileNotFoundError(f"{torch_dir / 'version.py'} names no __version__")
    return m.group(1)


LAYOUT = "overlay-2"  # bumped when the tree's layout changes (2: bytecode kept and compiled)


def overlay_key(torch_dir: Path, checkout: Path, delta: CoreDelta) -> str:
    """The overlay tree's cache key: the layout, the base wheel, and what is laid over it."""
    content = overlay_content(checkout, delta)
    if not content:
        raise FileNotFoundError(f"{checkout} lacks a Python file of the core's change")
    h = hashlib.sha256(f"{LAYOUT}\0{torch_dir.resolve()}".encode())
    h.update((torch_dir / "version.py").read_bytes() if (torch_dir / "version.py").exists() else b"")
    h.update(content.encode())
    return h.hexdigest()[:32]


def overlay_content(checkout: Path, delta: Optional[CoreDelta]) -> str:
    """What the overlay lays over its base wheel, by content alone (the reuse key's core): two
    commits whose Python core files are the same over the same wheel give the same digest.
    "" when a changed file cannot be read."""
    if delta is None:
        return "none"
    h = hashlib.sha256()
    for status, path in sorted(delta.python):
        h.update(f"{status}\0{path}\0".encode())
        if status != "D":
            try:
                h.update(hashlib.sha256((checkout / path).read_bytes()).digest())
            except OSError:
                return ""  # the checkout lacks it: content unknown (the leg gets no reuse key)
    return h.hexdigest()


@contextlib.contextmanager
def lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def _mirror(src: Path, dst: Path, changed: dict[str, str], checkout: Path, rel: str) -> None:
    """dst mirrors src: changed files from the checkout, untouched subtrees as symlinks."""
    dst.mkdir(parents=True, exist_ok=True)
    prefix = f"{rel}/" if rel else ""
    for entry in sorted(os.listdir(src)):
        here = prefix + entry
        if here in changed:
            continue  # written below (or deleted)
        if entry == "__pycache__":
            _mirror_bytecode(
                src / entry, dst / entry, {p[len(prefix) :] for p in changed if p.startswith(prefix)}
            )
            continue
        if (
            (src / entry).is_dir()
            and not (src / entry).is_symlink()
            and any(p.startswith(here + "/") for p in changed)
        ):
            _mirror(src / entry, dst / entry, changed, checkout, here)
        else:
            os.symlink(src / entry, dst / entry)


def _mirror_bytecode(src: Path, dst: Path, changed_here: set[str]) -> None:
    """The wheel's bytecode of this directory, less the changed files' (`flatten.cpython-311.pyc`
    for `flatten.py`): those may be unchecked-hash, valid only for the wheel's source."""
    stale = {name[: -len(".py")] for name in changed_here if "/" not in name and name.endswith(".py")}
    dst.mkdir(parents=True, exist_ok=True)
    for entry in sorted(os.listdir(src)):
        if entry.split(".", 1)[0] not in stale:
            os.symlink(src / entry, dst / entry)


def _compile(path: Path) -> None:
    """Bytecode for a changed file, checked against its source (a file that does not compile
    is left to fail at import, exactly as it would without bytecode)."""
    try:
        py_compile.compile(
            str(path),
            cfile=importlib.util.cache_from_source(str(path)),
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
        )
    except (py_compile.PyCompileError, OSError, ValueError):
        pass


def build_overlay(torch_dir: Path, checkout: Path, delta: CoreDelta, cache: Path) -> Optional[Path]:
    """A directory to put first on PYTHONPATH (holding `torch/`), or None when nothing changed."""
    if not delta.python:
        return None
    key = overlay_key(torch_dir, checkout, delta)
    final = cache / "core" / key
    with lock(cache / "locks" / f"core-{key}.lock"):
        if (final / ".complete").exists():
            return final
        changed = {p[len("torch/") :]: s for s, p in delta.python}
        with atomic.replace_dir(final) as tmp:
            _mirror(torch_dir.resolve(), tmp / "torch", changed, checkout, "")
            for rel, status in changed.items():
                if status == "D":
                    continue
                target = tmp / "torch" / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(checkout / "torch" / rel, target)
                if target.suffix == ".py":
                    _compile(target)
            (tmp / "overlay.txt").write_text("".join(f"{s}\ttorch/{p}\n" for p, s in sorted(changed.items())))
            (tmp / ".complete").write_text(key + "\n")
    return final
