"""Extractive summaries: pick existing sentences and code lines, never generate text.

A summary is the docstring's first sentence (if any), the parametrisation, and the few
source lines that say most about what the test does (asserts and torch calls), so a reviewer
and the embedding model see the same short description.
"""

from __future__ import annotations

import re

from tools.select.scope.symbols import FileSymbols, TestSymbol

_SENTENCE = re.compile(r"(.+?[.!?])(\s|$)", re.S)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_LINES = 3


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    match = _SENTENCE.match(text)
    return (match.group(1) if match else text)[:200]


def _salience(line: str) -> int:
    score = len(set(_IDENT.findall(line)))
    if "assert" in line:
        score += 5
    if "torch." in line:
        score += 3
    return score


def salient_lines(source: str, limit: int = MAX_LINES) -> list[str]:
    body = [ln.strip() for ln in source.splitlines()[1:]]
    body = [ln for ln in body if ln and not ln.startswith(("#", "@", '"""', "'''", "def "))]
    ranked = sorted(range(len(body)), key=lambda i: (-_salience(body[i]), i))[:limit]
    return [body[i] for i in sorted(ranked)]


def summarise_test(test: TestSymbol) -> str:
    parts = []
    if test.docstring:
        parts.append(first_sentence(test.docstring))
    param = {
        "ops": f"over ops {test.op_list}",
        "modules": f"over modules {test.op_list}",
        "dtypes": "over dtypes " + ",".join(test.dtypes),
        "parametrize": "parametrized",
        "plain": "single case",
    }[test.kind]
    parts.append(f"{test.cls}.{test.name}, {param}.")
    if test.features:
        parts.append("Touches " + ", ".join(test.features) + ".")
    parts.extend(salient_lines(test.source))
    return " ".join(parts)


def summarise_file(symbols: FileSymbols) -> str:
    head = first_sentence(symbols.docstring) if symbols.docstring else f"{symbols.path}."
    classes = ", ".join(f"{c.name} ({len(c.tests)} tests)" for c in symbols.classes)
    return f"{head} Classes: {classes or 'none'}."


def embedding_text(test: TestSymbol, summary: str) -> str:
    """What is embedded: the summary plus the head of the source (MiniLM reads ~256 tokens)."""
    return f"{summary}\n{test.source[:1200]}"
