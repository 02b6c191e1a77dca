"""pytest plugin for the generator: after collection, write each test's
op__/dtype__/model__ marks as JSON ({node id: [mark, ...]}) and stop.

    python -m pytest --collect-only -q -p testing.plugin --config ... \
        -p testing.targets.collect --collect-marks-out marks.json <suites>
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

PREFIXES = ("op__", "dtype__", "model__")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--collect-marks-out", default=None, help="write {node id: [op__/dtype__/model__ marks]} here"
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    out = config.option.collect_marks_out
    if not out:
        return
    marks = {
        item.nodeid: sorted({m.name for m in item.iter_markers() if m.name.startswith(PREFIXES)})
        for item in items
    }
    Path(out).write_text(json.dumps(marks, indent=0, sort_keys=True), encoding="utf-8")
