"""pytest plugin of a card's batch (devices.py): the health probe's kernel after each test.

    -p tools.shard.cardcheck --card-check FILE --card-check-device spyre:0 [--card-check-module torch_spyre]

After each test's own teardown, in the test's process (a zygote's fork, inside the test's
Begin/End, so a check that hangs is the test's hang), the known kernel runs on the card
(testing/supervisor/health.py ``check``) and one JSON line ``{"test", "state", "detail"}`` is
appended to FILE (``detail``: what was wrong). The pool keeps the results whose check passed (proven good, where a
batch's probe used to vouch for the whole batch) and re-runs only those after the card's last
good check, and a batch whose checks all passed needs no fresh-interpreter probe after it.
"""

from __future__ import annotations

import json
import os

import pytest

from testing.supervisor import health

PLUGIN = __name__  # what the pool passes to `-p`


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("shard", "duration-balanced sharding")
    group.addoption("--card-check", default=None, help="append each test's device check (JSON line) here")
    group.addoption("--card-check-device", default=None, help="the card to check, as torch names it")
    group.addoption("--card-check-module", default=None, help="the backend's package to import first")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem):
    try:
        return (yield)
    finally:
        _check(item)


def _check(item: pytest.Item) -> None:
    option = item.config.option
    if not (option.card_check and option.card_check_device):
        return
    found = health.check(option.card_check_device, option.card_check_module)
    line = json.dumps({"test": item.nodeid, "state": found.state, "detail": found.detail}) + "\n"
    fd = os.open(option.card_check, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())  # one write: a fork's line is never interleaved
    finally:
        os.close(fd)


def read(path) -> dict[str, dict]:
    """Each checked test's line (node id -> {"state", "detail"}); none when no check ran."""
    try:
        text = open(path, encoding="utf-8").read()
    except FileNotFoundError:
        return {}
    found = {}
    for raw in text.splitlines():
        try:
            one = json.loads(raw)
        except ValueError:  # a line cut short by a kill: that test was not checked
            continue
        found[one["test"]] = one
    return found
