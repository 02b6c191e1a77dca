"""Shared fixtures for the spyre backend tests."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import torch_spyre  # registers device "spyre"

# The documented tolerance for float16-precision rows on float32 data, read
# from the capability table (its single source).
FLOAT16_ATOL, FLOAT16_RTOL = torch_spyre.tolerance("add", torch.float32)


def python_env(**overrides: str) -> dict[str, str]:
    """Environment for a child interpreter that sees the same modules as we do."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.update(overrides)
    return env


def run_python(
    code: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env if env is not None else python_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def cpu_fallback(monkeypatch):
    """Turns on SPYRE_CPU_FALLBACK for one test (read on every op call)."""
    monkeypatch.setenv("SPYRE_CPU_FALLBACK", "1")


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path
