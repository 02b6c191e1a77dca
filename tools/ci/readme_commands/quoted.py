"""Output the READMEs quote (```text blocks), checked like their commands.

Prose quoted what a command printed, and the figures drifted (legs, suspects, commit
numbers) with nothing to tell. Every ```text block now says what it is, on the line above:

    <!-- output: checked by testing/check/tests/test_check.py -->   a test compares a real run
    <!-- output: example (measured 2026-11-30, load 7-9) -->         a record, may differ
    <!-- output: not output (a diagram) -->                          a drawing or a listing

`checked by FILE` holds only when FILE (a test, repo-relative) contains every quoted line
that is not elided (`...`) or a `$ command` line, so an edit of either side shows. A block
without a mark, or a check that does not hold, is a problem of //tools/ci:doc_commands_test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MARK = re.compile(r"^\s*<!-- output: (checked by (?P<test>\S+)|example\b.*|not output\b.*) -->\s*$")
FENCE = re.compile(r"^\s*```text\s*$")


@dataclass(frozen=True)
class Quote:
    file: str
    line: int  # the fence's line, 1-based
    mark: str  # the mark line's text ('' when there is none)
    body: tuple[str, ...]


def quotes_in(markdown: str, name: str) -> list[Quote]:
    lines, out, i = markdown.splitlines(), [], 0
    while i < len(lines):
        if not FENCE.match(lines[i]):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith("```"):
            j += 1
        mark = lines[i - 1].strip() if i > 0 and MARK.match(lines[i - 1]) else ""
        out.append(Quote(name, i + 1, mark, tuple(lines[i + 1 : j])))
        i = j + 1
    return out


def problems(root: Path, documents: list[Path]) -> list[str]:
    found = []
    for path in documents:
        name = path.relative_to(root).as_posix()
        for quote in quotes_in(path.read_text(encoding="utf-8"), name):
            found += _check(root, quote)
    return found


def _check(root: Path, quote: Quote) -> list[str]:
    where = f"{quote.file}:{quote.line}"
    if not quote.mark:
        return [
            f"{where}: a ```text block without `<!-- output: checked by TEST | example ... | not output ... -->` "
            "on the line above (quoted output must be compared with a real run or marked an example)"
        ]
    test = MARK.match(quote.mark).group("test")
    if not test:
        return []
    try:
        text = (root / test).read_text(encoding="utf-8")
    except OSError:
        return [f"{where}: checked by {test}: no such file"]
    quoted = [x.strip() for x in quote.body if x.strip() and x.strip() != "..." and not x.startswith("$ ")]
    missing = [x for x in quoted if x not in text]
    return [f"{where}: checked by {test}, which does not hold the quoted line: {x}" for x in missing]
