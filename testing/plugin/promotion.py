"""Promotion report (``--oot-promotion PATH``): xfail tests that passed, as JSON plus a
ready-to-apply YAML diff.

Registered by plugin.py only with the option and only where the run's results are written
(the supervising process under --isolate), next to reporting's Recorder, whose summary it
reads. Which edits the candidates propose and the diff they are shown as are the proposals'
(testing/proposals: promotions.py, textedit.py), shared with the skip audit, crcr's warehouse
and tools/select. Paths in the diff are relative to where pytest ran: ``patch -p0 <
PATH.diff`` applies there.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os

import pytest

from testing.base.atomic import write_json, write_text
from testing.config.paths import default_roots
from testing.plugin.plan import load_plan
from testing.plugin.reporting import Recorder
from testing.proposals.promotions import plan_changes
from testing.proposals.textedit import config_diff

NAME = "oot-promotion"


class Promotion:
    """Writes the report when the session ends, from the Recorder's summary and plan."""

    def __init__(self, config: pytest.Config, recorder: Recorder) -> None:
        self.config = config
        self.recorder = recorder

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        write(self.config.option.oot_promotion, self.recorder.summary(), self.config, self.recorder.plan)


def write(path: str, summary: dict, config: pytest.Config, plan=None) -> None:
    """`plan`: the run's own; None in an isolating controller, which has read no config yet."""
    if plan is None:
        plan = load_plan(list(config.option.oot_configs), default_roots(config.option.oot_upstream_root))

    def locate_file(nodeid: str):
        fp = plan.file_plan(os.path.realpath(os.path.join(str(config.rootpath), nodeid.split("::")[0])))
        return (fp.loc.file, fp.loc.line) if fp and fp.loc.line else None

    changes = plan_changes(summary, locate_file)
    diff = config_diff(changes, str(config.invocation_params.dir))
    report = {
        "version": 1,
        "candidates": [
            {"config": cfg, "action": a, "line": line, "test": name, "nodeid": nodeid}
            for cfg, edits in sorted(changes.items())
            for a, line, name, nodeid in edits
        ],
        "diff": path + ".diff",
    }
    write_text(path + ".diff", diff)
    write_json(path, report)
