"""Pure: mark names of generated tests and the `-m` analysis that drops variants at generation
time (a variant is dropped only if the expression is false for every value of the names the
plugin does not assign).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import itertools
import re
from typing import Any, Callable, Iterable

from testing.config.modes import Mode

MARK_FAMILIES = ("op__", "dtype__", "module__", "bucket__", "model__")


def mark_name(prefix: str, value: str) -> str:
    """op__div_no_rounding_mode, module__nn_Linear, dtype__float32."""
    return prefix + re.sub(r"\W", "_", value)


def marks_for(v: Any, d: Any) -> list[str]:
    """A selection.Variant's marks; with its Decision (or None), the bucket's too."""
    marks = []
    if v.op:
        marks.append(mark_name("op__", v.op))
    marks.extend(mark_name("dtype__", x) for x in v.dtypes)
    if v.module:
        marks.append(mark_name("module__", v.module))
    marks.extend(t for t in v.tags if t not in marks)
    if d is not None:
        marks.append(mark_name("bucket__", d.mode.value))
        marks.extend(t for t in d.tags if t not in marks)
        if d.mode in (Mode.xfail, Mode.xfail_strict):
            marks.append("xfail")
    return marks


_IDENT = re.compile(r"(?:\w|:|\+|-|\.|\[|\]|\\|/)+")
_KEYWORDS = {"and", "or", "not"}
_CALL = re.compile(r"((?:\w|:|\+|-|\.|\[|\]|\\|/)+)\s*\(")


class MarkFilter:
    """Decides at generation time whether a `-m` expression can still select a variant.

    Names the plugin assigns (op__/dtype__/module__/bucket__, tags, xfail) are
    known per variant; every other name in the expression may be either value,
    so a variant is dropped only if the expression is false for all of them.
    """

    MAX_UNKNOWN = 6

    def __init__(self, expr: str | None, known_names: Callable[[str], bool]) -> None:
        self.compiled = None
        self.unknown: tuple[str, ...] = ()
        self.idents: tuple[str, ...] = ()
        if not expr or any(t not in _KEYWORDS for t in _CALL.findall(expr)):
            return  # no -m, or mark kwargs (name(kw=...)): leave selection to pytest
        from _pytest.mark.expression import Expression  # pytest's own -m grammar

        idents = {t for t in _IDENT.findall(expr) if t not in _KEYWORDS}
        unknown = tuple(sorted(i for i in idents if not known_names(i)))
        if len(unknown) > self.MAX_UNKNOWN:
            return
        self.compiled = Expression.compile(expr)
        self.unknown = unknown
        self.idents = tuple(sorted(idents))

    @property
    def active(self) -> bool:
        return self.compiled is not None

    def may_select(self, marks: Iterable[str], open_prefixes: tuple[str, ...] = ()) -> bool:
        """open_prefixes: mark families not yet known (e.g. dtype__ while filtering ops)."""
        if self.compiled is None:
            return True
        have = set(marks)
        unknown = (
            self.unknown + tuple(n for n in self.idents if n.startswith(open_prefixes) and n not in have)
            if open_prefixes
            else self.unknown
        )
        if len(unknown) > self.MAX_UNKNOWN + 4:
            return True
        for values in itertools.product((False, True), repeat=len(unknown)):
            extra = {n for n, on in zip(unknown, values) if on}
            if self.compiled.evaluate(lambda name, **kw: name in have or name in extra):
                return True
        return False


def is_plugin_mark(name: str, tags: Iterable[str] = ()) -> bool:
    return name.startswith(MARK_FAMILIES) or name == "xfail" or name in set(tags)
