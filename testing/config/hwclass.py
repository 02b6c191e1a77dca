"""Upstream's hardware classification of test classes, read from a checkout without importing it.

pytorch main labels each test class with a class attribute
``hw_classification = HardwareClassification.<NAME>`` (the enum lives in
``torch/testing/_internal/common_utils.py``; ``test/run_test.py --hw-classification NAME``
and ``pytest --hw-classification NAME`` filter on it). A config's ``global.scope`` asks for
classes of some classifications; it can only be applied where the checkout at the SHA
carries the classification. Older checkouts (v2.13.0 included) do not: then one line says
so and the scope comes from the configs alone.

Pure (stdlib ``ast``): the plugin, ``check`` and the CRCR handler read it the same way.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import ast
import functools
import os
from dataclasses import dataclass, field
from typing import Optional

NAMES = ("GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU")
ATTR = "hw_classification"
UNCLASSIFIED = "unclassified"
# Where a checkout stores it, in the order we look: the enum, then the runner's flag.
MARKERS = (
    ("torch/testing/_internal/common_utils.py", "class HardwareClassification"),
    ("test/run_test.py", "--hw-classification"),
)


def normalize(value: str) -> str:
    """'accelerator' -> 'ACCELERATOR'; ValueError naming the known ones otherwise."""
    name = str(value).strip().upper()
    if name not in NAMES:
        raise ValueError(f"unknown hardware classification {value!r}; one of {', '.join(NAMES)}")
    return name


def checkout_carries(root: Optional[str]) -> Optional[str]:
    """Where the checkout at `root` stores the classification ('<file>: <marker>'), or None."""
    if not root:
        return None
    for rel, marker in MARKERS:
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                if marker in f.read():
                    return f"{rel}: {marker}"
        except OSError:
            continue
    return None


def _own(node: ast.ClassDef) -> Optional[str]:
    """The classification a class body assigns itself (``= HardwareClassification.X`` or ``= "X"``)."""
    for stmt in node.body:
        targets = (
            stmt.targets
            if isinstance(stmt, ast.Assign)
            else [stmt.target]
            if isinstance(stmt, ast.AnnAssign) and stmt.value is not None
            else []
        )
        if not any(isinstance(t, ast.Name) and t.id == ATTR for t in targets):
            continue
        value = stmt.value
        name = (
            value.attr
            if isinstance(value, ast.Attribute)
            else value.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str)
            else None
        )
        if name and name.upper() in NAMES:
            return name.upper()
    return None


def classes(text: str) -> dict[str, Optional[str]]:
    """Test file source -> {class: classification or None}. A class without its own attribute
    takes its first classified base defined in the same file (Python's attribute lookup)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    defs = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    @functools.cache
    def of(name: str, depth: int = 0) -> Optional[str]:
        node = defs.get(name)
        if node is None or depth > 20:
            return None
        own = _own(node)
        if own:
            return own
        for base in node.bases:
            if isinstance(base, ast.Name):
                found = of(base.id, depth + 1)
                if found:
                    return found
        return None

    return {name: of(name) for name in defs}


@functools.lru_cache(maxsize=256)
def file_classes(path: str) -> dict[str, Optional[str]]:
    try:
        with open(path, encoding="utf-8") as f:
            return classes(f.read())
    except OSError:
        return {}


@dataclass(frozen=True)
class Scope:
    """A config's ``global.scope`` against one checkout."""

    wanted: tuple[str, ...]  # classification names, upper case
    root: Optional[str]  # the checkout (TORCH_ROOT); files outside it are ours, never scoped
    carried: Optional[str]  # where the checkout stores the classification; None: it does not

    @property
    def applies(self) -> bool:
        return bool(self.wanted) and self.carried is not None

    def covers(self, path: str) -> bool:
        """Files of the checkout are scoped; in-tree suites and other files are not."""
        if not self.applies:
            return False
        root = os.path.realpath(self.root or "")
        return os.path.realpath(path).startswith(root.rstrip(os.sep) + os.sep)

    def classification(self, path: str, cls: str) -> str:
        return file_classes(os.path.realpath(path)).get(cls) or UNCLASSIFIED

    def out_of_scope(self, path: str, cls: str) -> Optional[str]:
        """The class's classification when the scope leaves it out (None: it runs)."""
        if not self.covers(path):
            return None
        found = self.classification(path, cls)
        return None if found in self.wanted else found

    def line(self) -> str:
        asked = ", ".join(w.lower() for w in self.wanted)
        if self.carried:
            return f"oot scope: {asked} (hardware classification of the checkout, {self.carried})"
        why = (
            f"{self.root} carries no hardware classification (no HardwareClassification in "
            "torch/testing/_internal/common_utils.py, no --hw-classification in test/run_test.py)"
            if self.root
            else "no upstream checkout (TORCH_ROOT unset)"
        )
        return f"oot scope: {asked}: not applied: {why}; scope from the configs only"


def scope_for(wanted, root: Optional[str]) -> Optional[Scope]:
    """None when the config asks for no scope."""
    if not wanted:
        return None
    return Scope(tuple(wanted), root, checkout_carries(root))


@dataclass
class ScopeReport:
    """What a run's scope left out, for the summary (``"scope"``) and the terminal line."""

    scope: Scope
    out: dict[str, dict[str, str]] = field(default_factory=dict)  # file -> class -> classification

    def record(self, path: str, cls: str, classification: str) -> None:
        self.out.setdefault(path, {})[cls] = classification

    def line(self) -> str:
        if not self.scope.applies:
            return self.scope.line()
        n = sum(len(c) for c in self.out.values())
        return f"{self.scope.line()}: {n} test classes out of scope" + (
            " ("
            + ", ".join(f"{c} {k}" for f in sorted(self.out) for c, k in sorted(self.out[f].items()))
            + ")"
            if n
            else ""
        )

    def as_json(self) -> dict:
        return {
            "asked": [w.lower() for w in self.scope.wanted],
            "applied": self.scope.applies,
            "carried": self.scope.carried,
            "line": self.line(),
            "out_of_scope": {f: dict(sorted(c.items())) for f, c in sorted(self.out.items())},
        }
