"""The check's findings as text or JSON, and its exit code. Pure.

Exit codes: 0 nothing fails; 1 a finding fails (an error; under --strict a warning or a
hygiene note too); 2 a bad argument (cli.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from testing.check.check import ERROR, HYGIENE, WARNING, Finding


def fails(finding: Finding, strict: bool) -> bool:
    return finding.severity == ERROR or strict


def exit_code(found: Sequence[Finding], strict: bool) -> int:
    return 1 if any(fails(f, strict) for f in found) else 0


def counts(found: Sequence[Finding]) -> dict[str, int]:
    return {s: sum(f.severity == s for f in found) for s in (ERROR, WARNING, HYGIENE)}


def label(finding: Finding, strict: bool) -> str:
    """What the finding's line says it is: an error when it fails the check."""
    return ERROR if fails(finding, strict) else finding.severity


def text(sets: Sequence[Sequence[Path]], found: Sequence[Finding], strict: bool) -> str:
    """One line per finding (file:line: key: message [label]), then one summary line that
    counts what those lines say (under --strict every finding is an error)."""
    lines = [f"{f} [{label(f, strict)}]" for f in found]
    said = {s: sum(label(f, strict) == s for f in found) for s in (ERROR, WARNING, HYGIENE)}
    promoted = sum(f.severity != ERROR for f in found) if strict else 0
    configs = len({c for s in sets for c in s})
    failed = exit_code(found, strict)
    tally = f"{said[ERROR]} errors, {said[WARNING]} warnings, {said[HYGIENE]} hygiene notes"
    if promoted:
        tally += f" (--strict: {promoted} warnings or hygiene notes counted as errors)"
    lines.append(f"check: {'FAILED' if failed else 'ok'}: {configs} configs in {len(sets)} sets: {tally}")
    return "\n".join(lines) + "\n"


def as_json(sets: Sequence[Sequence[Path]], found: Sequence[Finding], strict: bool) -> str:
    return (
        json.dumps(
            {
                "ok": exit_code(found, strict) == 0,
                "strict": strict,
                "sets": [[str(c) for c in s] for s in sets],
                "counts": counts(found),
                "findings": [dict(f.to_json(), fails=fails(f, strict)) for f in found],
            },
            indent=2,
        )
        + "\n"
    )
