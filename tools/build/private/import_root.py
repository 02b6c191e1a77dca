"""Rename top-level import roots in Python sources at wheel build time (like pip's `vendoring`).

    import_root.py --rename testing=oot_ci_testing --out-dir DIR SRC=DEST ...

The monorepo keeps its folders and its imports (`from testing.results import junit`); a
wheel installs them under a name unique to this project (`oot_ci_testing`), so no package
called `testing` lands in site-packages. Each SRC is copied to DIR/DEST; DEST's first path
part is renamed too, and a .py file is rewritten token by token (layout and comments kept):

* import statements: the root of every dotted name after `import` / `from` (and after
  the commas of an `import a, b` statement);
* the bare name in expressions of a module that binds it with `import testing.x` (no `as`);
* strings and comments that spell a module path, `testing.<name>` (`-p testing.plugin`,
  "testing.supervisor.zygote", an entry point's module), never `torch.testing._internal`.

Any other file is copied unchanged. A source that does not parse is an error naming it.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from pathlib import Path

Edit = tuple[int, int, str]  # (start offset, end offset, replacement)


class RenameError(ValueError):
    pass


def _offsets(source: str) -> list[int]:
    """Start offset of each line (1-based rows, as tokenize counts them)."""
    starts, total = [0, 0], 0
    for line in source.splitlines(keepends=True):
        total += len(line)
        starts.append(total)
    return starts


def _bound_names(tree: ast.AST, old: str) -> set[tuple[int, int]]:
    """(row, col) of every Name `old` when the module binds it with `import old...`."""
    binds = any(
        isinstance(n, ast.Import) and any(a.asname is None and a.name.split(".")[0] == old for a in n.names)
        for n in ast.walk(tree)
    )
    if not binds:
        return set()
    return {(n.lineno, n.col_offset) for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == old}


def _module_path(old: str) -> re.Pattern[str]:
    # `old.<identifier>`, not preceded by a name character or a dot (torch.testing stays)
    return re.compile(rf"(?<![\w.]){re.escape(old)}(?=\.[A-Za-z_])")


def rename_source(source: str, renames: dict[str, str], path: str = "<source>") -> str:
    """`source` with every import root in `renames` replaced (see the module docstring)."""
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as err:
        raise RenameError(f"{path}:{err.lineno}: not Python ({err.msg})") from None
    bound = {pos: new for old, new in renames.items() for pos in _bound_names(tree, old)}
    patterns = [(_module_path(old), new) for old, new in renames.items()]
    starts = _offsets(source)
    edits: list[Edit] = []
    state, expect_root, previous = None, False, ""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        begin = starts[tok.start[0]] + tok.start[1]
        at_start = previous in ("", ";", ":") or tok.line[: tok.start[1]].strip() == ""
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER) or tok.string == ";":
            state, expect_root = None, False
        elif tok.type == tokenize.NAME and tok.string == "import" and state == "from":
            state, expect_root = "from-import", False  # `from x import name`: names, not roots
        elif tok.type == tokenize.NAME and tok.string in ("import", "from") and at_start:
            state, expect_root = tok.string, True
        elif tok.type == tokenize.NAME and expect_root:
            if tok.string in renames:
                edits.append((begin, begin + len(tok.string), renames[tok.string]))
            expect_root = False
        elif tok.type == tokenize.OP and tok.string == "," and state == "import":
            expect_root = True
        if tok.type == tokenize.NAME and tok.start in bound:
            edits.append((begin, begin + len(tok.string), bound[tok.start]))
        elif tok.type in (tokenize.STRING, tokenize.COMMENT):
            text = tok.string
            for pattern, new in patterns:
                text = pattern.sub(new, text)
            if text != tok.string:
                edits.append((begin, begin + len(tok.string), text))
        if tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            previous = "" if tok.type == tokenize.NEWLINE else tok.string
    out = source
    for begin, end, text in sorted(edits, reverse=True):
        out = out[:begin] + text + out[end:]
    return out


def rename_path(dest: str, renames: dict[str, str]) -> str:
    first, sep, rest = dest.partition("/")
    return renames.get(first, first) + sep + rest


def parse_renames(specs: list[str]) -> dict[str, str]:
    renames = {}
    for spec in specs:
        old, sep, new = spec.partition("=")
        if not (sep and old.isidentifier() and new.isidentifier()):
            raise RenameError(f"--rename {spec!r}: expected OLD=NEW, two identifiers")
        renames[old] = new
    return renames


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rename", action="append", default=[], metavar="OLD=NEW")
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("files", nargs="*", metavar="SRC=DEST")
    args = parser.parse_args(argv)
    try:
        renames = parse_renames(args.rename)
        for spec in args.files:
            src, _, dest = spec.partition("=")
            target = args.out_dir / rename_path(dest, renames)
            target.parent.mkdir(parents=True, exist_ok=True)
            if src.endswith(".py"):
                text = Path(src).read_text(encoding="utf-8")
                target.write_text(rename_source(text, renames, src), encoding="utf-8")
            else:
                target.write_bytes(Path(src).read_bytes())
    except RenameError as err:
        print(f"import_root: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
