"""Which part of an --isolate run this process plays, readable without importing the
supervisor (reporting.py asks on every run; only --isolate runs import isolation.py).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the supervisor loads only in --isolate runs
    from testing.plugin.isolation import WorkerStream

# testing/supervisor/children.py's ENV_FD, spelled out so asking needs no supervisor
# (test_isolation_unit.py checks they agree).
EVENTS_FD = "OOT_EVENTS_FD"

WORKER = pytest.StashKey["WorkerStream"]()  # a spawned or forked worker's event stream


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
