"""Coverage contexts folded onto lines (pure: a source text and its contexts, no coverage run)."""

from __future__ import annotations

from tools.select.changes.build import fold_file

SOURCE = """\
import functools

LIMIT = 3


@functools.lru_cache(maxsize=8)
def scale(x, factor=2):
    if x > LIMIT:
        return x * factor
    return helper(
        x,
        factor,
    )


def helper(x, f):
    return x + f
"""


def test_lines_count_for_their_statement_signature_for_callers_and_import_apart():
    contexts = {
        1: [""],
        3: [""],
        6: [""],
        7: [""],
        8: ["a", "b"],
        9: ["a"],
        10: ["b"],  # the call's first line only: its continuation lines count with it
        16: [""],
        17: ["b"],
    }
    lines, imports, defs = fold_file(SOURCE, contexts, {"a": 1, "b": 1})
    assert lines[9] == {"a"} and lines[8] == {"a", "b"}
    assert lines[11] == lines[12] == lines[13] == {"b"}  # `x,`, `factor,`, `)` of the call
    assert lines[7] == {"a", "b"}  # the def line (defaults): the tests that called scale
    assert imports == {1, 3, 6}  # module level and the decorator; def lines are signatures
    assert 17 in lines and lines[16] == {"b"}  # helper's signature: its caller
    assert ("scale", 6, 13, True) in defs and ("helper", 16, 17, True) in defs


def test_a_def_only_imported_is_not_tested():
    lines, imports, defs = fold_file(SOURCE, {6: [""], 7: [""], 16: [""]}, {})
    assert not lines and imports == {6} and defs == []
