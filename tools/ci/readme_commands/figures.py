"""Figures the READMEs state in prose that the tree itself determines, checked against it.

A README sentence such as "Five wheels" or "~160 op targets" drifted silently when a wheel or
a config was added. Each `Figure` names the sentence (its `{n}` is the figure, as written:
a digit string, or a word for `words`), what in the tree decides it and how to count it; the
check renders the sentence with the count and looks for it in the README. A figure that is
measured rather than counted (a time, a ratio, a run's test total) is not listed here: its
paragraph says `Measured` and carries the date it was measured (`undated` finds one that
does not), so a reader can tell a record from a claim about today's tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tools.ci import adoption_guide

WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


@dataclass(frozen=True)
class Figure:
    file: str  # the README, repo-relative
    text: str  # the words around the figure, `{n}` where it stands
    source: str  # what decides it (said in the problem)
    count: Callable[[Path], int]
    words: bool = False  # written as a word ("five"), else as digits
    nearest: int = 1  # a rounded figure ("~160"): the count rounded to this

    def rendered(self, n: int) -> str:
        n = round(n / self.nearest) * self.nearest
        return self.text.format(n=WORDS[n] if self.words else n)


def _list_items(text: str, name: str) -> int:
    """Entries of a Starlark list `NAME = [...]` (one quoted label each)."""
    body = re.search(rf"^{name} = \[(.*?)^\]", text, re.S | re.M)
    return len(re.findall(r'^\s*"[^"]+",', body.group(1), re.M)) if body else -1


def wheels(root: Path) -> int:
    return _list_items((root / "tools/ci/BUILD.bazel").read_text(encoding="utf-8"), "WHEELS")


def released_wheels(root: Path) -> int:
    from ruamel.yaml import YAML

    release = YAML(typ="safe").load((root / adoption_guide.RELEASE).read_text(encoding="utf-8"))
    assets, _ = adoption_guide.collected(adoption_guide.collect_script(release))
    return sum(a.endswith(".whl") for a in assets)


def lines_of(path: str) -> Callable[[Path], int]:
    return lambda root: len((root / path).read_text(encoding="utf-8").splitlines())


def op_targets(root: Path) -> int:
    text = (root / "testing/targets/configs.bzl").read_text(encoding="utf-8")
    return len(set(re.findall(r'"(op_\w+)"', text)))


def files_in(path: str) -> Callable[[Path], int]:
    return lambda root: sum(1 for f in (root / path).iterdir() if f.is_file())


def shards_of(target: str) -> Callable[[Path], int]:
    def count(root: Path) -> int:
        found = re.search(rf'"{target}": (\d+)', (root / "testing/BUILD.bazel").read_text(encoding="utf-8"))
        return int(found.group(1)) if found else 1

    return count


FIGURES = (
    Figure(
        "README.md",
        "{n} wheels, each file in exactly one",
        "WHEELS in tools/ci/BUILD.bazel",
        wheels,
        words=True,
    ),
    Figure(
        "tools/ci/README.md",
        "the {n} wheels as Bazel builds them",
        "WHEELS in tools/ci/BUILD.bazel",
        wheels,
        words=True,
    ),
    Figure(
        "docs/adopting.md",
        "You take {n} wheels from this",
        "release.yml's collected wheels",
        released_wheels,
        words=True,
    ),
    Figure(
        "docs/adopting.md",
        "attaches the {n} wheels",
        "release.yml's collected wheels",
        released_wheels,
        words=True,
    ),
    Figure(
        "docs/adopting.md",
        "(a {n}-line C++ backend",
        "tools/ci/adoption/csrc/acme.cc",
        lines_of("tools/ci/adoption/csrc/acme.cc"),
        nearest=10,
    ),
    Figure(
        "testing/targets/README.md", "~{n} op targets", "op_* targets in configs.bzl", op_targets, nearest=10
    ),
    Figure(
        "testing/targets/README.md",
        "Only `op_add` ({n} Bazel shards",
        "shard_count of op_add in testing/BUILD.bazel",
        shards_of("op_add"),
        words=True,
    ),
    Figure(
        "crcr/README.md",
        "at commit 1 in {n} files under `test/nn/`",
        "the generated upstream's base, crcr/upstream/fixture/base/test/nn",
        files_in("crcr/upstream/fixture/base/test/nn"),
        words=True,
    ),
)


MEASURED = re.compile(r"\bMeasured\b")
DATED = re.compile(r"\b20\d\d-\d\d-\d\d\b")
FENCE = re.compile(r"^\s*(```|~~~)")


def paragraphs(markdown: str) -> list[tuple[int, str]]:
    """(first line, text) of each prose paragraph; fenced blocks are not prose."""
    out, start, lines, fenced = [], 0, [], False
    for number, line in enumerate(markdown.splitlines() + [""], 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.strip():
            start = start or number
            lines.append(line)
            continue
        if lines:
            out.append((start, "\n".join(lines)))
        start, lines = 0, []
    return out


def undated(root: Path, documents: list[Path]) -> list[str]:
    """Paragraphs that say `Measured` without the date of the measurement."""
    return [
        f"{path.relative_to(root).as_posix()}:{line}: a measured figure without its date (YYYY-MM-DD)"
        for path in documents
        for line, text in paragraphs(path.read_text(encoding="utf-8"))
        if MEASURED.search(text) and not DATED.search(text)
    ]


def _flat(text: str) -> str:
    """Prose as one line, case folded: a figure may start a sentence or wrap."""
    return " ".join(text.split()).lower()


def problems(root: Path, figures: tuple[Figure, ...] = FIGURES) -> list[str]:
    found = []
    for figure in figures:
        n = figure.count(root)
        want = figure.rendered(n)
        if _flat(want) not in _flat((root / figure.file).read_text(encoding="utf-8")):
            found.append(
                f"{figure.file}: should say {want!r} ({figure.source}: {n}); "
                "fix the figure, or its entry in tools/ci/readme_commands/figures.py if the sentence changed"
            )
    return found
