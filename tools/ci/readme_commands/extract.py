"""The commands the READMEs show: every shell block of README.md, each directory's
README.md and docs/adopting.md, cut into the commands a reader would paste.

A fenced block is a command block when its info string is empty or a shell (sh, bash,
shell, console); blocks of anything else (text, yaml, python, json, ...) are not run.
Inside a block: blank lines and whole-line comments are skipped, a trailing backslash
joins the next line, a heredoc (``<<'PY'`` ... ``PY``) belongs to its command.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

SHELLS = {"", "sh", "bash", "shell", "console"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
OPENS = re.compile(r"^\s*(for|while|until|if|case)\b")  # a compound command spans lines
CLOSES = re.compile(r"^\s*(done|fi|esac)\b")
# docs/adopting.md's blocks marked for //tools/ci:adoption_test, which runs them as written
ADOPTION_MARK = re.compile(r"^\s*<!-- adoption-test: \S+ -->\s*$")
TRAILING_COMMENT = re.compile(r"\s+#(\s.*)?$")  # `cmd   # what it does`; `a#b` is an argument
SKIPPED_DIRS = {".git", "node_modules"}


@dataclass(frozen=True)
class Command:
    file: str  # repo-relative
    line: int  # 1-based line of the command's first line
    text: str  # exactly as written (continuations and heredoc included)
    tested_by: str = ""  # another test target that runs this block as written

    @property
    def key(self) -> str:
        """What an entry names: the command with its comments and spacing normalised."""
        lines = [
            TRAILING_COMMENT.sub("", line).rstrip().removesuffix("\\") for line in self.text.splitlines()
        ]
        return " ".join(" ".join(lines).split())

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def documents(root: Path) -> list[Path]:
    """README.md at the top and in every directory of the tree, plus docs/adopting.md."""
    found = [root / "README.md", root / "docs" / "adopting.md"]
    readmes = []
    for here, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not _outside_the_tree(Path(here, d), root)]
        readmes += [Path(here, "README.md")] if "README.md" in files else []
    found += [p for p in sorted(readmes) if p not in found]
    return [p for p in found if p.is_file()]


def _outside_the_tree(path: Path, root: Path) -> bool:
    """Not this repository's own: Bazel's output links, hidden directories (.git, the
    README's .venv), the outputs under out/, and any virtual environment, whose installed
    packages bring READMEs of their own (a `.venv` made by README.md's "Outside Bazel"
    once filled the command list with site-packages' commands)."""
    name = path.name
    return (
        name.startswith((".", "bazel-"))
        or name in SKIPPED_DIRS
        or (name == "out" and path.parent == root)
        or (path / "pyvenv.cfg").exists()
    )


def commands(root: Path) -> list[Command]:
    out: list[Command] = []
    for path in documents(root):
        out += commands_in(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())
    return out


def commands_in(markdown: str, name: str) -> list[Command]:
    out: list[Command] = []
    for start, body, tested_by in shell_blocks(markdown):
        out += split_block(body, start, name, tested_by)
    return out


def shell_blocks(markdown: str) -> list[tuple[int, list[str], str]]:
    """(line number of the block's first line, its lines without the fence's indent, the
    target that runs it when it is marked for one)."""
    blocks, lines, i = [], markdown.splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.groups()
        body, j = [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        if info.lower() in SHELLS:
            marked = i > 0 and ADOPTION_MARK.match(lines[i - 1])
            blocks.append((i + 2, body, "//tools/ci:adoption_test" if marked else ""))
        i = j + 1
    return blocks


def split_block(body: list[str], first_line: int, name: str, tested_by: str = "") -> list[Command]:
    out, i = [], 0
    while i < len(body):
        line = body[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        start, parts = i, [line]
        while parts[-1].rstrip().endswith("\\") and i + 1 < len(body):
            i += 1
            parts.append(body[i])
        heredoc = HEREDOC.search(" ".join(parts))
        if heredoc:
            end = heredoc.group(2)
            while i + 1 < len(body) and body[i].strip() != end:
                i += 1
                parts.append(body[i])
        depth = 1 if OPENS.match(line) else 0
        while depth and i + 1 < len(body):
            i += 1
            parts.append(body[i])
            depth += bool(OPENS.match(body[i])) - bool(CLOSES.match(body[i]))
        out.append(Command(name, first_line + start, "\n".join(parts), tested_by))
        i += 1
    return out
