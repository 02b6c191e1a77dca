"""`workflow.failed_tests_detail`: a JSON array of {name, classname, message, stacktrace, duration}.

Caps (shared/docs/crcr-triage-and-levels.md §a): the relay's callback action keeps
the first 1000 entries; its description and RFC-0054 give `message` 1 KB and
`stacktrace` 4 KB, which no relay or HUD code enforces and whose unit is undefined,
so we count **UTF-8 bytes** (the stricter reading) and cut on a character boundary:
the text stays valid UTF-8 and ends with a marker saying how much was cut. The
whole array is also held under `MAX_TOTAL_BYTES`, since HUD refuses a body over
2 MB (413) and 1000 × 5 KB would pass it: the stacktraces of the last entries go
first, then the entries themselves, each step marked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

MAX_ENTRIES = 1000
MESSAGE_BYTES = 1024
STACKTRACE_BYTES = 4096
MAX_TOTAL_BYTES = 1_500_000  # room for the rest of the body under HUD's 2 MB
MARK = "… [truncated {n} bytes]"
FIELDS = ("name", "classname", "message", "stacktrace", "duration")


def cut_utf8(text: str, limit: int) -> str:
    """`text` within `limit` UTF-8 bytes, marked when cut; never a split character."""
    raw = text.encode("utf-8", "replace")
    if len(raw) <= limit:
        return text
    mark = MARK.format(n=len(raw))
    keep = max(0, limit - len(mark.encode()) - 8)  # 8: the cut count's digits may grow
    head = raw[:keep].decode("utf-8", "ignore")  # drops a partial trailing character
    return head + MARK.format(n=len(raw) - len(head.encode()))


def clean(text: Any) -> str:
    """A string that encodes as UTF-8 (lone surrogates from odd decoders become U+FFFD)."""
    return str(text).encode("utf-8", "replace").decode("utf-8")


@dataclass(frozen=True)
class Detail:
    entries: tuple[dict, ...]
    failures: int  # how many failed tests there were before the cap
    notes: tuple[str, ...] = ()

    def as_json(self) -> list[dict]:
        return list(self.entries)


def entry(name: str, classname: str, message: str, stacktrace: str, duration: Any) -> dict:
    out = {"name": clean(name)[:512], "classname": clean(classname)[:512]}
    if message:
        out["message"] = cut_utf8(clean(message), MESSAGE_BYTES)
    if stacktrace:
        out["stacktrace"] = cut_utf8(clean(stacktrace), STACKTRACE_BYTES)
    if isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration >= 0:
        out["duration"] = round(float(duration), 3)
    return out


def _size(entries: Sequence[dict]) -> int:
    return len(json.dumps(list(entries), ensure_ascii=False).encode())


def capped(entries: Iterable[dict], failures: int) -> Detail:
    """At most MAX_ENTRIES entries and MAX_TOTAL_BYTES in all, with a note per cut."""
    kept = list(entries)[:MAX_ENTRIES]
    notes = []
    if failures > len(kept):
        notes.append(f"failed-tests-detail: {failures} failed tests, the first {len(kept)} sent")
    if _size(kept) > MAX_TOTAL_BYTES:
        for i in range(len(kept) - 1, -1, -1):
            kept[i] = {k: v for k, v in kept[i].items() if k != "stacktrace"}
            if _size(kept) <= MAX_TOTAL_BYTES:
                break
        notes.append(
            f"failed-tests-detail: stacktraces left out from the end to stay under {MAX_TOTAL_BYTES} bytes"
        )
        while kept and _size(kept) > MAX_TOTAL_BYTES:
            kept.pop()
    return Detail(tuple(kept), failures, tuple(notes))


def from_inline(value: Any, source: str) -> Detail:
    """An array given whole (the action's `failed-tests-detail` input): the action keeps
    the first 1000 without looking inside; we also cap each entry's text."""
    if not isinstance(value, list):
        raise ValueError(f"{source} must be a JSON array")
    entries = []
    for item in value[:MAX_ENTRIES]:
        if not isinstance(item, dict):
            raise ValueError(f"{source}: every element must be an object with at least 'name'")
        entries.append(
            entry(
                item.get("name", ""),
                item.get("classname", ""),
                item.get("message") or "",
                item.get("stacktrace") or "",
                item.get("duration"),
            )
        )
    return capped(entries, len(value))
