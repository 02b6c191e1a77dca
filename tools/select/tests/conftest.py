"""Shared fixtures for the selection tool's tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tools.select.tests.helpers import FIXTURES


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def suite_copy(tmp_path) -> Path:
    """A writable copy of the fixture suite, so tests can edit it."""
    dest = tmp_path / "repo" / "suite"
    shutil.copytree(FIXTURES / "suite", dest)
    return tmp_path / "repo"


@pytest.fixture
def small_caps():
    from tools.select.common import capabilities

    return capabilities.from_file(FIXTURES / "caps_small.json")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    if "HOME" not in os.environ:
        monkeypatch.setenv("HOME", os.environ.get("TEST_TMPDIR", "/tmp"))
