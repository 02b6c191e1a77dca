import os
from pathlib import Path

import pytest

import tools.shard
from testing.matrix import plugin

REPO_ROOT = Path(tools.shard.__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _importable_in_children(monkeypatch):
    """pytest subprocesses (pytester, the runner) must import tools.shard too,
    and must not inherit this process's own shard settings."""
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(REPO_ROOT), path) if p))
    for var in (*plugin.ENV, "XML_OUTPUT_FILE"):
        monkeypatch.delenv(var, raising=False)
