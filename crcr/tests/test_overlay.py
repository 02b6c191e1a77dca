"""Core at the dispatched SHA: python-only vs native change detection, the right
files overlaid over the wheel (changed copied, deleted gone, rest symlinked),
the overlay is content-keyed, and an interpreter really imports the overlay."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crcr.upstream.overlay import (
    NATIVE_NOTE,
    build_overlay,
    core_delta,
    is_native,
    wheel_git_version,
    wheel_version,
)

BASE, SHA = "a" * 40, "b" * 40


@pytest.mark.parametrize(
    "path,native",
    [
        ("aten/src/ATen/native/native_functions.yaml", True),
        ("aten/src/ATen/native/BinaryOps.cpp", True),
        ("c10/core/TensorImpl.h", True),
        ("torch/csrc/autograd/python_variable.cpp", True),
        ("caffe2/CMakeLists.txt", True),
        ("CMakeLists.txt", True),
        ("torchgen/gen.py", True),
        ("aten/src/ATen/native/cuda/Loss.cu", True),
        ("tools/autograd/derivatives.yaml", True),
        ("torch/nn/modules/flatten.py", False),
        ("test/test_nn.py", False),
        ("docs/source/index.rst", False),
        (".github/workflows/pull.yml", False),
    ],
)
def test_native_detection(path, native):
    assert is_native(path) is native


def test_python_only_change_is_overlaid():
    d = core_delta(
        BASE,
        SHA,
        [
            ("M", "torch/nn/modules/flatten.py"),
            ("A", "torch/_new.py"),
            ("M", "test/nn/test_x.py"),
            ("M", "docs/a.md"),
        ],
    )
    assert d.python == (("A", "torch/_new.py"), ("M", "torch/nn/modules/flatten.py")) and d.native == ()
    assert d.note() == "core: wheel + 2 python files at bbbbbbbbbbbb"
    assert (
        core_delta(BASE, SHA, [("M", "test/a.py")]).note()
        == "core: wheel as is (no core change since aaaaaaaaaaaa)"
    )


def test_native_change_is_reported_not_applied():
    d = core_delta(
        BASE,
        SHA,
        [
            ("M", "torch/functional.py"),
            ("M", "aten/src/ATen/native/Add.cpp"),
            ("M", "aten/src/ATen/native/native_functions.yaml"),
        ],
    )
    assert d.native == ("aten/src/ATen/native/Add.cpp", "aten/src/ATen/native/native_functions.yaml")
    assert d.note().startswith(NATIVE_NOTE + " (2 files: aten/src/ATen/native/Add.cpp, ")
    assert d.note().endswith("; 1 python files overlaid")
    assert d.as_json()["native"] == list(d.native)


@pytest.fixture
def wheel(tmp_path):
    torch = tmp_path / "site" / "torch"
    (torch / "nn" / "modules" / "__pycache__").mkdir(parents=True)
    (torch / "lib").mkdir()
    (torch / "lib" / "libfake.so").write_bytes(b"\x7fELF")
    (torch / "__init__.py").write_text("from torch.nn.modules.flatten import START\nfrom torch import gone\n")
    (torch / "gone.py").write_text("")
    (torch / "version.py").write_text(f"__version__ = '2.13.0+cpu'\ngit_version = '{BASE}'\n")
    (torch / "nn" / "__init__.py").write_text("")
    (torch / "nn" / "modules" / "__init__.py").write_text("")
    (torch / "nn" / "modules" / "flatten.py").write_text("START = 1\n")
    (torch / "nn" / "modules" / "__pycache__" / "flatten.cpython-311.pyc").write_bytes(b"stale")
    (torch / "nn" / "modules" / "__pycache__" / "flatten.cpython-311.opt-1.pyc").write_bytes(b"stale")
    (torch / "nn" / "modules" / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"kept")
    checkout = tmp_path / "checkout"
    (checkout / "torch" / "nn" / "modules").mkdir(parents=True)
    (checkout / "torch" / "nn" / "modules" / "flatten.py").write_text("START = 0\n")
    (checkout / "torch" / "_new").mkdir()
    (checkout / "torch" / "_new" / "mod.py").write_text("NEW = True\n")
    return torch, checkout


def test_overlay_tree_has_exactly_the_changed_files(wheel, tmp_path):
    torch, checkout = wheel
    assert wheel_git_version(torch) == BASE and wheel_version(torch) == "2.13.0+cpu"
    d = core_delta(
        BASE,
        SHA,
        [
            ("M", "torch/nn/modules/flatten.py"),
            ("A", "torch/_new/mod.py"),
            ("D", "torch/gone.py"),
            ("M", "aten/x.cpp"),
        ],
    )
    root = build_overlay(torch, checkout, d, tmp_path / "cache")
    t = root / "torch"
    assert (t / "nn/modules/flatten.py").read_text() == "START = 0\n" and not (
        t / "nn/modules/flatten.py"
    ).is_symlink()
    assert (t / "_new/mod.py").read_text() == "NEW = True\n"
    assert not (t / "gone.py").exists()
    # the replaced file's old bytecode is never reused (it may be unchecked-hash); the rest is
    cache = t / "nn/modules/__pycache__"
    assert (cache / "__init__.cpython-311.pyc").is_symlink()
    assert not (cache / "flatten.cpython-311.opt-1.pyc").exists()
    fresh = Path(importlib.util.cache_from_source(str(t / "nn/modules/flatten.py")))
    assert not fresh.is_symlink() and fresh.read_bytes() != b"stale"
    assert int.from_bytes(fresh.read_bytes()[4:8], "little") == 3  # hash-based, checked against the source
    assert Path(importlib.util.cache_from_source(str(t / "_new/mod.py"))).is_file()
    assert (
        (t / "lib").is_symlink()
        and (t / "__init__.py").is_symlink()
        and (t / "nn/modules/__init__.py").is_symlink()
    )
    assert (root / "overlay.txt").read_text() == (
        "A\ttorch/_new/mod.py\nD\ttorch/gone.py\nM\ttorch/nn/modules/flatten.py\n"
    )
    # same wheel + same content -> the same directory; other content -> another one
    assert build_overlay(torch, checkout, d, tmp_path / "cache") == root
    (checkout / "torch" / "nn" / "modules" / "flatten.py").write_text("START = 2\n")
    assert build_overlay(torch, checkout, d, tmp_path / "cache") != root
    assert build_overlay(torch, checkout, core_delta(BASE, SHA, [("M", "x.cpp")]), tmp_path / "cache") is None


def test_an_interpreter_imports_the_overlay(wheel, tmp_path):
    torch, checkout = wheel
    d = core_delta(BASE, SHA, [("M", "torch/nn/modules/flatten.py")])
    root = build_overlay(torch, checkout, d, tmp_path / "cache")
    code = "import torch; print(torch.START, torch.__file__)"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), str(torch.parent)]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path, check=True
    )
    start, path = out.stdout.split()
    assert start == "0" and path.startswith(str(root))
    env["PYTHONPATH"] = str(torch.parent)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert out.stdout.split()[0] == "1"
