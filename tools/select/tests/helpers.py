"""Test helpers importable as tools.select.tests.helpers (tests run with --import-mode=importlib,
because the directory name ``select`` would otherwise shadow the stdlib module)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).parent / "fixtures"


class HashEmbedder:
    """Deterministic stand-in for MiniLM in tests that are about bookkeeping, not meaning:
    a bag of hashed words, L2-normalised (similar texts still land near each other)."""

    name = "hash-bag"

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts):
        self.calls += len(texts)
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.split():
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)


def unit(name="test_x", variant="add", **overrides):
    """A UnitFacts with sensible defaults for rule tests."""
    from tools.select.bucket.facts import UnitFacts

    fields = dict(
        unit_id=f"f.py::TestA::{name}[{variant}]" if variant else f"f.py::TestA::{name}",
        test_id=f"f.py::TestA::{name}",
        file="${REPO_ROOT}/f.py",
        cls="TestA",
        test=name,
        variant=variant,
        kind="ops" if variant else "dtypes",
        dtypes=("float32", "int64"),
        status="passed",
        ops=("aten::add.Tensor", "aten::empty.memory_format", "aten::uniform_"),
        kernel_ops=("aten::add.Tensor", "aten::empty.memory_format", "aten::uniform_"),
        compare_ops=("aten::isclose",),
        error="",
        features=(),
        summary=f"{name} checks {variant}",
    )
    fields.update(overrides)
    return UnitFacts(**fields)
