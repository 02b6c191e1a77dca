"""Loaded by the check into a ``pytest --collect-only -p testing.plugin`` over one config set:
writes every config problem the plugin found (warnings and hygiene notes, file:line, closest
names), every file that failed to import and every file that needs a newer harness (harness
drift), as JSON, when the session ends.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import pytest

from testing.base.atomic import write_json
from testing.plugin import reporting


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--check-out", dest="check_out", metavar="PATH", help="where the check's JSON goes")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if not config.option.check_out:
        return
    write_json(
        config.option.check_out,
        {
            "problems": [p.to_json() for p in reporting.problems_found(config)],
            "collection_errors": reporting.collection_errors(config),
            "harness_drift": [d.as_json() for d in reporting.harness_drift(config)],
        },
    )
