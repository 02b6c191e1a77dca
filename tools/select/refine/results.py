"""Stage 4 input: JUnit XML (+ optional logs) from a real run, failures classified.

Classification is pure text matching over the failure message and body, in order of
certainty: crash, timeout, unsupported op, unsupported dtype, layout, numerical mismatch
(parsing torch.testing's "Greatest absolute/relative difference" lines), other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from testing.results import junit
from testing.results.outcomes import BAD
from tools.errors import SelectError

_UNSUPPORTED_OP = re.compile(
    r"aten::([\w.]+) is not supported|(?:Could not run|not implemented for) '?aten::([\w.]+)"
)
_UNSUPPORTED_DTYPE = re.compile(
    r"aten::([\w.]+) does not support dtype (\w+)|\"(\w+)\" not implemented for '(\w+)'"
)
_LAYOUT = re.compile(r"aten::([\w.]+) requires contiguous")
_GREATEST = re.compile(
    r"Greatest (absolute|relative) difference: ([-+\w.]+) at index \(([^)]*)\) \(up to ([-+\w.]+) allowed\)"
)
_SCALAR = re.compile(r"^\s*(Absolute|Relative) difference: ([-+\w.]+) \(up to ([-+\w.]+) allowed\)", re.M)
_MISMATCH = re.compile(r"Mismatched elements: (\d+) / (\d+)")
_TIMEOUT = re.compile(r"Timeout|timed out|TimeoutError", re.I)


@dataclass(frozen=True)
class Numerics:
    abs_diff: float | None = None
    abs_allowed: float | None = None
    rel_diff: float | None = None
    rel_allowed: float | None = None
    index: str = ""
    mismatched: str = ""

    def describe(self) -> str:
        parts = []
        if self.abs_diff is not None:
            parts.append(f"greatest absolute difference {self.abs_diff:.3g} (allowed {self.abs_allowed:.3g})")
        if self.rel_diff is not None:
            parts.append(f"greatest relative difference {self.rel_diff:.3g} (allowed {self.rel_allowed:.3g})")
        if self.mismatched:
            parts.append(f"{self.mismatched} elements mismatched")
        return ", ".join(parts)


@dataclass(frozen=True)
class Failure:
    kind: str  # crash | timeout | unsupported_op | unsupported_dtype | layout | numerical | other
    summary: str
    op: str | None = None
    dtype: str | None = None
    numerics: Numerics | None = None


@dataclass(frozen=True)
class CaseResult:
    nodeid: str
    file: str  # module path as a file, e.g. testing/suites/test_x.py
    cls: str  # generic class (from the properties, else classname)
    test: str  # generic test name
    variant: str  # generated method name
    outcome: str  # an Outcome's value
    bucket: str | None
    op: str | None
    dtypes: tuple[str, ...]
    text: str = ""
    failure: Failure | None = None
    properties: dict = field(default_factory=dict)


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def parse_numerics(text: str) -> Numerics | None:
    values: dict[str, tuple[float | None, float | None, str]] = {}
    for kind, diff, index, allowed in _GREATEST.findall(text):
        values.setdefault(kind.lower(), (_float(diff), _float(allowed), index))
    for kind, diff, allowed in _SCALAR.findall(text):
        values.setdefault(kind.lower(), (_float(diff), _float(allowed), ""))
    if not values:
        return None
    absolute = values.get("absolute", (None, None, ""))
    relative = values.get("relative", (None, None, ""))
    mismatch = _MISMATCH.search(text)
    return Numerics(
        absolute[0],
        absolute[1],
        relative[0],
        relative[1],
        absolute[2] or relative[2],
        f"{mismatch.group(1)}/{mismatch.group(2)}" if mismatch else "",
    )


def _first_line(text: str) -> str:
    for line in text.strip().splitlines():
        line = line.strip()
        if line.startswith("E "):
            line = line[2:].strip()
        if line and not line.startswith(("Traceback", "File ", "self.", "return ", "~", "^")):
            return line[:200]
    return text.strip()[:200]


def classify(outcome: str, text: str) -> Failure:
    if outcome == "crashed" or junit.CRASH_TEXT.search(text) and outcome == "error":
        return Failure("crash", _first_line(text) or "the test process died")
    if match := _UNSUPPORTED_OP.search(text):
        return Failure("unsupported_op", match.group(0), op=match.group(1) or match.group(2))
    if match := _UNSUPPORTED_DTYPE.search(text):
        op, dtype = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        return Failure("unsupported_dtype", match.group(0), op=op, dtype=dtype.removeprefix("torch."))
    if match := _LAYOUT.search(text):
        return Failure("layout", match.group(0), op=match.group(1))
    numerics = parse_numerics(text)
    if numerics is not None:
        return Failure("numerical", numerics.describe(), numerics=numerics)
    if _TIMEOUT.search(text):
        return Failure("timeout", _first_line(text))
    return Failure("other", _first_line(text))


def _module_file(classname: str) -> str:
    parts = classname.split(".")
    return "/".join(parts[:-1]) + ".py" if len(parts) > 1 else classname


def _case(case: junit.Case) -> CaseResult:
    props, classname, name = case.properties, case.classname, case.name
    cls = props.get("class") or re.sub(r"(CPU|PRIVATEUSE1|[A-Z0-9]+)$", "", classname.rsplit(".", 1)[-1])
    result = CaseResult(
        nodeid=f"{_module_file(classname)}::{classname.rsplit('.', 1)[-1]}::{name}",
        file=_module_file(classname),
        cls=cls,
        test=props.get("test") or name,
        variant=props.get("variant") or name,
        outcome=case.outcome.value,  # a plain str: it reaches YAML
        bucket=props.get("bucket"),
        op=props.get("op"),
        dtypes=tuple(filter(None, props.get("dtype", "").split(","))),
        text=case.text,
        properties=props,
    )
    if case.outcome in BAD:
        return CaseResult(**{**result.__dict__, "failure": classify(case.outcome, case.text)})
    return result


def read_junit(path: str | Path) -> list[CaseResult]:
    try:
        cases = junit.read(path)
    except junit.JunitError as exc:
        raise SelectError(f"{path}: cannot read JUnit XML ({exc.detail})") from exc
    return [_case(c) for c in cases]


def enrich_from_logs(cases: list[CaseResult], logs: list[str | Path]) -> list[CaseResult]:
    """Failures whose XML text says nothing useful get the log lines that name them."""
    texts = []
    for log in logs:
        try:
            texts.append(Path(log).read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            raise SelectError(f"{log}: cannot read log ({exc.strerror})") from exc
    if not texts:
        return cases
    joined = "\n".join(texts)
    out = []
    for case in cases:
        if case.failure is not None and case.failure.kind == "other" and case.variant in joined:
            start = joined.index(case.variant)
            window = joined[start : start + 4000]
            out.append(
                CaseResult(**{**case.__dict__, "failure": classify(case.outcome, case.text + "\n" + window)})
            )
        else:
            out.append(case)
    return out
