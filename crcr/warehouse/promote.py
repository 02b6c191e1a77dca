"""The ready config diff for promotion candidates, made by the plugin's own promotion code
(testing/proposals: promotions.py, textedit.py) from the warehouse's rows instead of one run's summary.

An entry is flipped to mandatory_success only when every test its rule covers is a
candidate; otherwise exact-variant entries are added for the candidates, as the plugin does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from crcr.warehouse.backends import Backend
from crcr.warehouse.queries import Promotion
from crcr.warehouse.schema import live
from crcr.warehouse.sql import quote_list


def siblings(wh: Backend, rules: Sequence[str]) -> list[tuple[str, str, str, str]]:
    """(test_id, rule, class, variant) of every test the given rules set, latest row each."""
    return wh.query(
        f"""SELECT any(test_id) AS id, argMax(rule, started_at), argMax(class, started_at), argMax(name, started_at)
        FROM {wh.db}.results WHERE {live(wh.db)} AND rule IN {quote_list(list(rules))}
        GROUP BY test_key ORDER BY id"""
    )


def candidate_diff(wh: Backend, candidates: Sequence[Promotion], workspace: Path) -> str:
    """A unified diff against the configs under `workspace` ('' when nothing has a rule line)."""
    rules = sorted({c.rule for c in candidates if c.rule})
    if not rules:
        return ""
    from testing.proposals import promotions, textedit  # ruamel and the config editor: only for this diff

    chosen = {c.test_id for c in candidates}
    tests = [
        {
            "nodeid": test_id,
            "outcome": "xpassed_strict" if test_id in chosen else "xfailed",
            "rule": rule,
            "class": cls,
            "variant": variant,
        }
        for test_id, rule, cls, variant in siblings(wh, rules)
    ]
    changes = promotions.plan_changes({"tests": tests}, lambda _nodeid: None)
    try:
        return textedit.config_diff(changes, str(workspace))
    except OSError as err:
        return f"# no diff: {err.filename}: {err.strerror} (the config moved since these runs)\n"
