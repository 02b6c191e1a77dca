"""Stage 4: turn classified run results into config changes, shown as a unified diff.

Pure part: ``propose(case)`` -> Proposal (xfail with reason, precision knob, skip for a
crash or hang, promotion for a strict pass). Glue: apply proposals to the ruamel round-trip
tree of each config (testing/config/edit.py: read, find the file entry, dump; existing
comments stay), render the diff, write only on request.
"""

from __future__ import annotations

import math
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from testing.base.atomic import write_text
from testing.base.errors import ConfigError
from testing.config import edit
from testing.config.load import read_yaml
from testing.config.modes import Mode
from testing.proposals.textedit import unified
from tools.errors import SelectError
from tools.select.common import yamlio
from tools.select.refine.results import CaseResult

MAX_TOLERANCE = 0.1  # beyond this a tolerance hides bugs; propose xfail instead


@dataclass(frozen=True)
class Proposal:
    case: CaseResult
    mode: Mode
    reason: str | None
    rationale: str
    precision: tuple[str, float, float] | None = None  # (dtype, atol, rtol)

    @property
    def key(self) -> str:
        return f"{self.case.cls}::{self.case.variant}"


def _round_up(value: float) -> float:
    """One significant digit, rounded up: 0.00234 -> 0.003."""
    if value <= 0 or math.isnan(value) or math.isinf(value):
        return value
    exponent = math.floor(math.log10(value))
    return math.ceil(value / 10**exponent) * 10**exponent


def precision_knob(case: CaseResult, max_tolerance: float) -> tuple[str, float, float] | None:
    numerics = case.failure.numerics if case.failure else None
    if numerics is None or not case.dtypes:
        return None
    atol = _round_up((numerics.abs_diff or 0.0) * 1.5) or (numerics.abs_allowed or 0.0)
    rtol = _round_up((numerics.rel_diff or 0.0) * 1.5) or (numerics.rel_allowed or 0.0)
    if not all(map(math.isfinite, (atol, rtol))) or atol > max_tolerance or rtol > max_tolerance:
        return None
    return case.dtypes[0], float(f"{atol:.3g}"), float(f"{rtol:.3g}")


def propose(case: CaseResult, max_tolerance: float = MAX_TOLERANCE) -> Proposal | None:
    bucket, failure = case.bucket or Mode.mandatory_success, case.failure
    if case.outcome in ("xpassed", "xpassed_strict") and bucket in (Mode.xfail, Mode.xfail_strict):
        return Proposal(
            case, Mode.mandatory_success, None, f"promote: passed while expected to fail ({bucket})"
        )
    if failure is None:
        return None
    if failure.kind in ("crash", "timeout"):
        return Proposal(
            case,
            Mode.skip,
            f"{failure.kind}: {failure.summary}"[:200],
            f"{failure.kind} in the run; a {failure.kind} cannot be xfailed safely, so skip",
        )
    if bucket != Mode.mandatory_success:
        return None
    if failure.kind in ("unsupported_op", "unsupported_dtype", "layout"):
        return Proposal(
            case,
            Mode.xfail_strict,
            failure.summary[:200],
            f"{failure.kind.replace('_', ' ')} on the device; strict, so a fix shows up as a promotion",
        )
    if failure.kind == "numerical":
        knob = precision_knob(case, max_tolerance)
        if knob is not None:
            return Proposal(
                case,
                Mode.mandatory_success,
                None,
                f"numerical mismatch ({failure.summary}); tolerance for {knob[0]} set to "
                f"atol={knob[1]:g}, rtol={knob[2]:g}",
                knob,
            )
        return Proposal(
            case,
            Mode.xfail,
            f"numerical mismatch beyond tolerance: {failure.summary}"[:200],
            f"mismatch larger than {max_tolerance:g}: a tolerance would hide real errors",
        )
    return Proposal(
        case,
        Mode.xfail,
        failure.summary[:200] or "fails on the device",
        "failure of no known kind; xfail for review",
    )


# ------------------------------------------------------------------ applying to configs


def _rule_line(case: CaseResult, config: str | Path | None) -> int | None:
    """The config line the plugin says selected the case (its ``rule`` property), when that
    line is in ``config``."""
    path, sep, line = case.properties.get("rule", "").rpartition(":")
    if not sep or not line.isdigit() or config is None:
        return None
    return int(line) if os.path.realpath(path) == os.path.realpath(config) else None


def _file_entry(doc, case: CaseResult, config: str | Path | None = None):
    """The ``files:`` entry a case belongs to. JUnit class names carry no usable path for
    files outside pytest's rootdir (``${TORCH_ROOT}/...``: classname ``.TestFooPRIVATEUSE1``),
    so the plugin's rule location comes first, then the path (under its ${ROOT},
    testing/config/edit.py), then the class named in the
    entry's tests."""
    files = list(doc["test_suite_config"].get("files", []))
    line = _rule_line(case, config)
    if line is not None:
        above = [entry for entry in files if entry.lc.line < line]
        if above:
            return above[-1]
    by_path = edit.file_entry_for(doc, case.file) if case.file.strip("/") not in ("", ".py") else None
    if by_path is not None:
        return by_path
    by_class = [entry for entry in files if _names_class(entry, case.cls)]
    return by_class[0] if len(by_class) == 1 else None


def _names_class(entry, cls: str) -> bool:
    for test in entry.get("tests") or []:
        names = test.get("names")
        for name in names if isinstance(names, list) else [names]:
            if str(name).split("::", 1)[0] == cls:
                return True
    return False


def _find(tests: CommentedSeq, name: str) -> int | None:
    for index, entry in enumerate(tests):
        names = entry.get("names")
        if names == name or (isinstance(names, list) and names == [name]):
            return index
    return None


def _new_entry(proposal: Proposal) -> CommentedMap:
    entry = CommentedMap()
    entry["names"] = proposal.key
    entry["mode"] = proposal.mode
    if proposal.reason:
        entry["reason"] = yamlio.clean(proposal.reason)
    if proposal.precision:
        _set_precision(entry, proposal.precision)
    return entry


def _set_precision(entry: CommentedMap, knob: tuple[str, float, float]) -> None:
    dtype, atol, rtol = knob
    spec = CommentedMap(name=dtype, precision=CommentedMap(atol=atol, rtol=rtol))
    entry["edits"] = CommentedMap(dtypes=CommentedMap(include=CommentedSeq([spec])))
    entry["edits"]["dtypes"]["include"].fa.set_flow_style()


def apply(doc, proposal: Proposal, source: str, config: str | Path | None = None) -> bool:
    """Apply one proposal to a loaded config (read from ``config``); False when the config has
    no entry for its file."""
    file_entry = _file_entry(doc, proposal.case, config)
    if file_entry is None:
        return False
    tests = file_entry.setdefault("tests", CommentedSeq())
    index = _find(tests, proposal.key)
    note = yamlio.clean(f"refined from {source}: {proposal.rationale}")
    if index is None:
        tests.append(_new_entry(proposal))
        tests.yaml_set_comment_before_after_key(
            len(tests) - 1, before="\n".join(textwrap.wrap(note, 110)), indent=8
        )
        return True
    entry = tests[index]
    entry["mode"] = proposal.mode
    if proposal.reason:
        entry["reason"] = yamlio.clean(proposal.reason)
    elif "reason" in entry:
        del entry["reason"]
    if proposal.precision:
        _set_precision(entry, proposal.precision)
    entry.yaml_add_eol_comment(note[:200], "mode")
    return True


@dataclass
class Refinement:
    proposals: list[Proposal]
    unmatched: list[Proposal]
    diffs: dict[str, str]  # config path -> unified diff
    texts: dict[str, str]  # config path -> new text

    def write(self) -> None:
        for path, text in self.texts.items():
            write_text(path, text)


def refine(
    configs: list[str | Path], cases: list[CaseResult], source: str, max_tolerance: float = MAX_TOLERANCE
) -> Refinement:
    proposals = [p for p in (propose(c, max_tolerance) for c in cases) if p is not None]
    docs = {}
    for path in configs:
        try:
            doc, _ = read_yaml(path)
        except ConfigError as exc:
            raise SelectError(str(exc)) from exc
        if not isinstance(doc, dict) or "test_suite_config" not in doc:
            raise SelectError(f"{path}:1: not a test_suite_config document")
        docs[str(path)] = (Path(path).read_text(encoding="utf-8"), doc)
    unmatched = []
    for proposal in proposals:
        if not any(apply(doc, proposal, source, path) for path, (_, doc) in docs.items()):
            unmatched.append(proposal)
    diffs, texts = {}, {}
    for path, (old, doc) in docs.items():
        new = edit.dump(doc)
        if new != old:
            texts[path] = new
            diffs[path] = unified(f"a/{path}", old, new, f"b/{path}")
    return Refinement(proposals, unmatched, diffs, texts)
