"""Stage 3 output: a plugin config whose every entry carries its rationale as a comment.

Entries are grouped per test and bucket (one entry lists the ops sharing a bucket and a
dtype set), the file default is ``skip``, and the comment above each entry says why, op by
op. Writing goes through ruamel.yaml round-trip nodes so later rewrites keep the comments.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from typing import Iterable, Mapping

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from testing.config.modes import Mode
from tools.select.bucket.facts import UnitFacts
from tools.select.bucket.rules import Verdict
from tools.select.common.yamlio import clean

COMMENT_WIDTH = 110
MAX_OP_LINES = 40


def flow(items: Iterable[str]) -> CommentedSeq:
    seq = CommentedSeq(list(items))
    seq.fa.set_flow_style()
    return seq


def _comment(mode: str, lines: list[str]) -> str:
    lines = [clean(ln) for ln in lines]  # CPU error texts carry ANSI colours: never into YAML
    head = f"{mode}: {lines[0]}" if len(lines) == 1 else f"{mode}:"
    body = (
        []
        if len(lines) == 1
        else lines[:MAX_OP_LINES]
        + ([f"... and {len(lines) - MAX_OP_LINES} more"] if len(lines) > MAX_OP_LINES else [])
    )
    wrapped = textwrap.wrap(head, COMMENT_WIDTH) + [
        w for ln in body for w in textwrap.wrap(f"  {ln}", COMMENT_WIDTH, subsequent_indent="    ")
    ]
    return "\n".join(wrapped)


def _group_key(unit: UnitFacts, verdict: Verdict) -> tuple:
    if verdict.mode == Mode.mandatory_success:
        return (unit.cls, unit.test, verdict.mode, verdict.dtypes if unit.dtypes else ())
    return (unit.cls, unit.test, verdict.mode, verdict.short_reason.split(":")[0])


def _generated_dtypes(members: list[tuple[UnitFacts, Verdict]]) -> list[str]:
    names = {d for u, _ in members for _, ds in u.device for d in ds} or {
        d for u, _ in members for d in u.dtypes
    }
    return sorted(names)


def _entry(
    cls: str, test: str, mode: str, members: list[tuple[UnitFacts, Verdict]], specific: bool = False
) -> tuple[CommentedMap, str]:
    entry = CommentedMap()
    entry["names"] = f"{cls}::{test}"
    variants = sorted({u.variant for u, _ in members if u.variant})
    kind = members[0][0].kind
    if variants and kind in ("ops", "modules"):
        entry[kind] = flow(variants)
    dtypes = members[0][1].dtypes
    if mode == Mode.mandatory_success and dtypes and members[0][0].dtypes:
        entry["dtypes"] = flow(dtypes)
    elif specific and _generated_dtypes(members):
        # the base op's mandatory entry selects by ops and dtypes; naming the dtypes here too
        # makes this entry as specific, and written first it decides the variant
        entry["dtypes"] = flow(_generated_dtypes(members))
    entry["mode"] = mode
    if mode != Mode.mandatory_success:
        # one member: its own reason; several: the shared category (details are in the comment)
        reason = members[0][1].short_reason if len(members) == 1 else members[0][1].short_reason.split(":")[0]
        entry["reason"] = clean(reason)[:200]
    if len(members) == 1 or not variants:
        lines = [members[0][1].rationale]
    else:
        lines = [f"{u.variant}: {v.rationale}" for u, v in sorted(members, key=lambda m: m[0].variant)]
    return entry, _comment(mode, lines)


def _is_variant_of_listed(unit: UnitFacts, listed: set[str]) -> bool:
    """``round.decimals_3`` when ``round`` is listed too: the plugin's ``ops: [round]`` names
    every OpInfo variant of round; the most specific entry wins, ties go to the first written."""
    parts = unit.variant.split(".")
    return any(".".join(parts[:i]) in listed for i in range(1, len(parts)))


def file_entries(units: list[UnitFacts], verdicts: Mapping[str, Verdict]) -> CommentedSeq:
    listed: dict[tuple[str, str], set[str]] = defaultdict(set)
    for unit in units:
        listed[(unit.cls, unit.test)].add(unit.variant)
    groups: dict[tuple, list[tuple[UnitFacts, Verdict]]] = defaultdict(list)
    for unit in units:
        verdict = verdicts[unit.unit_id]
        specific = _is_variant_of_listed(unit, listed[(unit.cls, unit.test)])
        groups[_group_key(unit, verdict) + (specific,)].append((unit, verdict))
    tests = CommentedSeq()
    # OpInfo variants whose base op is listed too get entries of their own, written first, so
    # the base op's entry cannot decide them; then mandatory entries, so a reviewer sees what
    # must pass before the skips
    order = sorted(groups, key=lambda k: (k[0], k[1], not k[4], k[2] != Mode.mandatory_success, str(k[3])))
    for key in order:
        entry, comment = _entry(key[0], key[1], key[2], groups[key], specific=key[4])
        tests.append(entry)
        tests.yaml_set_comment_before_after_key(len(tests) - 1, before=comment, indent=8)
    return tests


def build_config(
    units: list[UnitFacts],
    verdicts: Mapping[str, Verdict],
    device: str,
    backend: str | None,
    engine: str,
    header: str = "",
) -> CommentedMap:
    by_file: dict[str, list[UnitFacts]] = defaultdict(list)
    for unit in units:
        by_file[unit.file].append(unit)
    files = CommentedSeq()
    for path in sorted(by_file):
        entry = CommentedMap()
        entry["path"] = path
        entry["unlisted_test_mode"] = Mode.skip
        entry["tests"] = file_entries(by_file[path], verdicts)
        files.append(entry)
    glob = CommentedMap()
    if backend:
        glob["backend"] = backend
        glob["capabilities"] = "backend"
    suite = CommentedMap()
    suite["labels"] = flow(["generated"])
    suite["files"] = files
    suite["global"] = glob
    doc = CommentedMap()
    doc["test_suite_config"] = suite
    counts = defaultdict(int)
    for v in verdicts.values():
        counts[v.mode] += 1
    summary = ", ".join(f"{n} {m}" for m, n in sorted(counts.items()))
    doc.yaml_set_start_comment(
        clean(
            f"Generated by tools/select (stage 3, engine {engine}) for device {device}: {summary}.\n"
            "Each comment says why its entry is in its bucket. Refine with `select refine`."
            + (f"\n{header}" if header else ""),
            one_line=False,
        )
    )
    return doc
