"""Autoload from the wheel: install it into a fresh directory, then a child
interpreter that only runs `import torch` must have device "spyre"."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from testing.tests.clean_venv import bare_venv, install_into

WHEEL_ENV = "SPYRE_WHEEL"
PLUGIN_WHEEL_ENV = "PLUGIN_WHEEL"


def wheel_path(env: str = WHEEL_ENV) -> Path:
    value = os.environ.get(env)
    if not value:
        pytest.skip(f"{env} is not set (the Bazel target //backend/tests:wheel_test sets it)")
    path = Path(value)
    if not path.is_absolute() and not path.is_file() and "TEST_SRCDIR" in os.environ:
        # Bazel passes a runfiles-relative path.
        path = Path(os.environ["TEST_SRCDIR"], os.environ.get("TEST_WORKSPACE", ""), value)
    assert path.is_file(), f"{env}={value} does not exist"
    return path


def test_wheel_contents():
    names = zipfile.ZipFile(wheel_path()).namelist()
    assert "torch_spyre/__init__.py" in names
    assert "torch_spyre/libspyre.so" in names
    entry_points = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert entry_points, names
    text = zipfile.ZipFile(wheel_path()).read(entry_points[0]).decode()
    assert "[torch.backends]" in text and "torch_spyre:_autoload" in text


def test_import_torch_autoloads_spyre_from_the_wheel(tmp_path):
    target = tmp_path / "site"
    install_into(target, wheel_path())
    torch_site = Path(torch.__file__).resolve().parent.parent
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.pathsep.join([str(target), str(torch_site)]),
        "PYTHONNOUSERSITE": "1",
    }
    result = subprocess.run(
        [sys.executable, "-c", AUTOLOAD_PROBE],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0] == "spyre:0"
    assert Path(lines[1]).resolve().is_relative_to(target.resolve())
    assert lines[2] == "TypeError"


AUTOLOAD_PROBE = """
import sys
import torch  # nothing else: the torch.backends entry point must load spyre
assert "torch_spyre" in sys.modules, "torch_spyre was not autoloaded"
x = torch.ones(3, device="spyre") + 1
assert x.cpu().tolist() == [2.0, 2.0, 2.0]
print(x.device)
print(sys.modules["torch_spyre"].__file__)
try:
    torch.ones(2, dtype=torch.float64, device="spyre").exp()
except TypeError as e:
    print(type(e).__name__)
"""


def plugin_module(wheel: Path) -> str:
    """The plugin's import name, as its pytest11 entry point says (packaging may rename it)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt"))
        lines = archive.read(name).decode().splitlines()
    section = lines.index("[pytest11]")
    return next(line.split("=", 1)[1].strip() for line in lines[section + 1 :] if "=" in line)


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory):
    """A venv holding the two wheels; torch and the pinned packages via one .pth line."""
    python, site = bare_venv(tmp_path_factory.mktemp("venv") / "venv")
    install_into(site, wheel_path(), wheel_path(PLUGIN_WHEEL_ENV))
    return python


ORDERS = {
    "torch_spyre-first": ["torch_spyre", "torch"],
    "torch-first": ["torch", "torch_spyre"],
    "plugin-first": ["{plugin}", "torch_spyre"],
    "plugin-after": ["torch_spyre", "{plugin}"],
}


@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
def test_backend_and_plugin_import_in_either_order_in_a_clean_venv(clean_venv, tmp_path, order):
    plugin = plugin_module(wheel_path(PLUGIN_WHEEL_ENV))
    imports = "; ".join(f"import {m.format(plugin=plugin)}" for m in order)
    probe = f"{imports}; import torch; print(torch.ones(2, device='spyre').device)"
    # cwd is a scratch dir and nothing but the venv is on the path: no checkout to lean on.
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONNOUSERSITE": "1", "HOME": str(tmp_path)}
    result = subprocess.run(
        [str(clean_venv), "-c", probe], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "spyre:0"
