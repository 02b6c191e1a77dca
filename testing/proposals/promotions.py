"""Pure: which config edits promotion candidates propose (tests expected to fail that passed).

For each config entry whose every variant passed, a ``flip`` of its mode to mandatory_success;
when only some variants passed, an ``add`` of one exact-variant entry per passing variant (an
exact variant name is more specific than the entry, so it takes precedence). The plugin reads
one run's summary; crcr's results warehouse builds the same rows from K runs in a row.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Optional

PASSING = ("xpassed", "xpassed_strict")

# (action, config line, "class::variant", nodeid); action "flip" or "add"
Edit = tuple[str, int, str, str]
# nodeid -> (config path, line of its file entry), for a passing test no rule names
LocateFile = Callable[[str], Optional[tuple[str, int]]]


def plan_changes(summary: dict, locate_file: LocateFile) -> dict[str, list[Edit]]:
    """config path -> the edits its candidates propose (summary: {"tests": [...]}, as the
    plugin's --oot-summary writes it)."""
    by_rule: dict[str, list[dict]] = defaultdict(list)
    for t in summary["tests"]:
        if t.get("rule"):
            by_rule[t["rule"]].append(t)
    changes: dict[str, list[Edit]] = defaultdict(list)
    for t in summary["tests"]:
        if t["outcome"] not in PASSING:
            continue
        name = f"{t.get('class', '')}::{t.get('variant', t['nodeid'].split('::')[-1])}"
        if t.get("rule"):
            path, line = t["rule"].rsplit(":", 1)
            siblings = by_rule[t["rule"]]
            action = "flip" if all(s["outcome"] in PASSING for s in siblings) else "add"
            changes[path].append((action, int(line), name, t["nodeid"]))
        else:
            where = locate_file(t["nodeid"])
            if where:
                changes[where[0]].append(("add", where[1], name, t["nodeid"]))
    return changes
