"""Seeded mutations of triage verdicts and failed-tests details (test_mutations.py): random JSON
values of every type in every field, wrong types, huge strings, deep nesting, missing and
extra keys, and values just either side of the relay's cut lengths and caps."""

from __future__ import annotations

import random
import string
from typing import Any

from crcr.callback_client.verdict_rules import (
    ANALYZER_FIELDS,
    CATEGORIES,
    CONFIDENCES,
    EVIDENCE_FIELDS,
    REASON_CHARS,
    SHORT_CHARS,
    SUMMARY_CHARS,
    URL_CHARS,
)

TOP = (
    "schema_version",
    "category",
    "confidence",
    "summary",
    "suspected_upstream",
    "evidence",
    "reproduced_on_retry",
    "analyzer",
    "analyzed_at",
)
DETAIL_FIELDS = ("name", "classname", "message", "stacktrace", "duration")
ODD_CHARS = " \t\n\r\x00\x1f\x7f\x85\u00a0\u2028\u3000é漢😀\ud800"  # whitespace, controls, non-ASCII, a lone surrogate


_CHARS = string.ascii_letters + string.digits + ODD_CHARS
_POOL = "".join(random.Random(0).choices(_CHARS, k=1 << 15))  # texts are slices of it: quick


def text(rng: random.Random, n: int | None = None) -> str:
    n = rng.choice((0, 1, 5, 40, 199, 200, 201, 999, 1000, 1001, 5000)) if n is None else n
    if n > len(_POOL) // 2:
        return (_POOL * (n // len(_POOL) + 1))[:n]
    start = rng.randrange(len(_POOL) - n)
    return _POOL[start : start + n]


def edge_text(rng: random.Random, limit: int) -> str:
    """Text around a cut length, sometimes with whitespace exactly at the cut."""
    n = limit + rng.choice((-1, 0, 1, 2, 50))
    body = list("w" * n)
    if rng.random() < 0.5 and 1 < limit < n:
        for i in range(limit - rng.choice((1, 2)), min(n - 1, limit + rng.choice((0, 1, 3)))):
            body[i] = rng.choice(" \t\u3000")
    pad = rng.choice(("", " ", "\n  "))
    return pad + "".join(body) + pad


def scalar(rng: random.Random) -> Any:
    return (
        rng.choice(
            (
                None,
                True,
                False,
                0,
                1,
                -1,
                2,
                10**30,
                -(10**30),
                1.0,
                0.8,
                -0.0,
                1e308,
                float("nan"),
                float("inf"),
                "",
                " ",
                "1",
                " 1 ",
                "²",
                "true",
                "upstream",
                " upstream ",
                "Upstream",
                "high",
                "https://ci.example/x",
                "2026-05-04T20:48:28Z",
                "0123456789abcdef",
            )
        )
        if rng.random() < 0.7
        else text(rng)
    )


def any_json(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.55:
        return scalar(rng)
    if roll < 0.75:
        return [any_json(rng, depth + 1) for _ in range(rng.randrange(0, 6))]
    if roll < 0.97:
        keys = rng.sample(TOP + DETAIL_FIELDS + ("pr", "commit", "reason", "job", "log_url", "x"), 3)
        return {k: any_json(rng, depth + 1) for k in keys[: rng.randrange(0, 4)]}
    deep: Any = rng.choice(([], {}))
    for _ in range(rng.choice((50, 400))):
        deep = [deep] if rng.random() < 0.5 else {"d": deep}
    return deep


def url(rng: random.Random) -> Any:
    return rng.choice(
        (
            "https://ci.example/run/1",
            "http://h/" + "a" * (URL_CHARS + rng.choice((-20, 0, 1, 100))),
            "https://h/" + "a" * (URL_CHARS - 12) + " tail",  # the whitespace falls past the cut
            "https://user@h/x",
            "javascript:alert(1)",
            "ftp://h/x",
            "https:///nohost",
            "http://[::1",
            "https://h/a b",
            " https://h/x ",
            "https://h/\x7f",
            "https://h/\x85",
        )
    )


def valid_verdict(rng: random.Random) -> dict:
    category = rng.choice(CATEGORIES)
    v: dict = {
        "schema_version": rng.choice((1, "1", " 1 ")),
        "category": category,
        "confidence": rng.choice(CONFIDENCES),
        "summary": edge_text(rng, SUMMARY_CHARS)
        if rng.random() < 0.3
        else text(rng, rng.randrange(1, 80)) + "s",
    }
    if category == "upstream" and rng.random() < 0.6:
        v["suspected_upstream"] = {"pr": rng.randrange(1, 10**6), "reason": edge_text(rng, REASON_CHARS)}
    if rng.random() < 0.7:
        v["evidence"] = [
            {
                "job": edge_text(rng, SHORT_CHARS) if rng.random() < 0.2 else "test-nn",
                "test": "test_x",
                "excerpt": edge_text(rng, dict(EVIDENCE_FIELDS)["excerpt"]),
                "log_url": url(rng) if rng.random() < 0.3 else "https://ci.example/run/1",
            }
            for _ in range(rng.choice((0, 1, 3, 10, 11, 14)))
        ]
    if rng.random() < 0.4:
        v["analyzer"] = {k: edge_text(rng, SHORT_CHARS) for k in rng.sample(ANALYZER_FIELDS, 2)}
    if rng.random() < 0.3:
        v["analyzed_at"] = rng.choice(
            ("2026-05-04T20:48:28Z", "2026-05-04", "yesterday", " 2026-05-04T20:48 ")
        )
    if rng.random() < 0.3:
        v["reproduced_on_retry"] = rng.choice((True, False))
    return v


def _mutate_one(rng: random.Random, v: dict) -> None:
    roll = rng.random()
    if roll < 0.15:
        v.pop(rng.choice(TOP), None)
    elif roll < 0.45:
        v[rng.choice(TOP)] = any_json(rng)
    elif roll < 0.55:
        v[rng.choice(("future", "notes", "x" * 40))] = any_json(rng)
    elif roll < 0.65:
        v["suspected_upstream"] = {
            k: rng.choice(
                (scalar(rng), rng.randrange(-2, 5), "a" * rng.choice((6, 7, 40, 41)), any_json(rng))
            )
            for k in rng.sample(("pr", "commit", "reason", "x"), rng.randrange(0, 4))
        }
    elif roll < 0.8:
        evidence = v.setdefault("evidence", [])
        if not isinstance(evidence, list):
            return
        item: Any = {
            k: rng.choice((url(rng), any_json(rng)))
            for k in rng.sample(("job", "test", "excerpt", "log_url", "x"), 2)
        }
        if rng.random() < 0.3:
            item = any_json(rng)  # a non-object entry
        evidence.insert(rng.randrange(0, len(evidence) + 1), item)
    elif roll < 0.9:
        v["analyzer"] = rng.choice(
            (any_json(rng), {k: any_json(rng) for k in rng.sample(ANALYZER_FIELDS, 2)})
        )
    else:
        v["summary"] = rng.choice((text(rng, 17000), text(rng), edge_text(rng, SUMMARY_CHARS)))


def verdict(rng: random.Random) -> Any:
    if rng.random() < 0.07:
        return any_json(rng)  # not even an object
    v = valid_verdict(rng)
    for _ in range(rng.choice((0, 1, 1, 2, 4))):
        _mutate_one(rng, v)
    return v


def detail(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.1:
        return any_json(rng)
    n = rng.choice((0, 1, 3, 20)) if roll < 0.99 else rng.choice((1001, 1200))
    out: list = []
    for i in range(n):
        if rng.random() < 0.05:
            out.append(any_json(rng))
            continue
        item: dict = {"name": f"t{i}", "classname": "C", "message": "m"}
        if rng.random() < 0.3:
            for key in rng.sample(DETAIL_FIELDS + ("extra",), 2):
                item[key] = rng.choice((any_json(rng), text(rng), rng.uniform(-1, 100)))
        out.append(item)
    return out
