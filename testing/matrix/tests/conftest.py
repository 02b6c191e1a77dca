import pytest

from testing.matrix import plugin


@pytest.fixture(autouse=True)
def _no_outer_sharding(monkeypatch):
    """A test sets the sharding environment itself, never inheriting the surrounding run's
    (Bazel's own sharding)."""
    for var in plugin.ENV:
        monkeypatch.delenv(var, raising=False)
