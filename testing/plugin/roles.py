"""Which part of an --isolate run this process plays, readable without importing the
supervisor (reporting.py asks on every run; only --isolate runs import isolation.py).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import pytest

WORKER = pytest.StashKey["object"]()  # isolation.WorkerStream of a spawned or forked worker


def is_worker(config: pytest.Config) -> bool:
    return WORKER in config.stash
