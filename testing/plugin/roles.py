"""Which part of an --isolate run this process plays, readable without importing the
supervisor (reporting.py asks on every run; only --isolate runs import isolation.py).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
from typing import Protocol

import pytest

# testing/supervisor/children.py's ENV_FD, spelled out so asking needs no supervisor
# (tests/test_roles.py checks they agree).
EVENTS_FD = "OOT_EVENTS_FD"


class Worker(Protocol):
    """What is asked of a worker's event stream here (isolation.WorkerStream)."""

    skip: set[str]  # node ids its predecessors finished


WORKER = pytest.StashKey[Worker]()  # a spawned or forked worker's event stream


def is_worker(config: pytest.Config) -> bool:
    return WORKER in config.stash


def isolating(config: pytest.Config) -> bool:
    """--isolate, or a worker the supervisor spawned (it inherited the events fd)."""
    return bool(config.option.oot_isolate) or EVENTS_FD in os.environ


def skip_finished(config: pytest.Config, items: list) -> None:
    """A restarted worker leaves out the tests its predecessors finished (its skip set)."""
    stream = config.stash.get(WORKER, None)
    if stream is not None and stream.skip:
        items[:] = [i for i in items if i.nodeid not in stream.skip]
