"""`workflow.failed_tests_detail`: a JSON array of {name, classname, message, stacktrace, duration}.

Caps (shared/docs/crcr-triage-and-levels.md §a): the relay's callback action keeps
the first 1000 entries; its description and RFC-0054 give `message` 1 KB and
`stacktrace` 4 KB, which no relay or HUD code enforces and whose unit is undefined,
so we count **UTF-8 bytes** (the stricter reading) and cut on a character boundary:
the text stays valid UTF-8 and ends with a marker saying how much was cut. The
whole array is also held under `MAX_TOTAL_BYTES`, since HUD refuses a body over
2 MB (413) and 1000 × 5 KB would pass it: the stacktraces of the last entries go
first, then the entries themselves, each step marked.

No input costs the callback (`from_inline`): the relay's own action fails its step on
a value that is not an array, we leave the field out with one warning line instead;
an element that is not an object with a string `name`, and any value of another type
or outside the documented fields, is left out and counted in that one line.
"""

from __future__ import annotations

import json
import math
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
    if _number(duration) and duration >= 0:
        out["duration"] = round(float(duration), 3)
    return out


def _size(entry: dict) -> int:
    """Bytes on the wire (json.dumps escapes non-ASCII, as the relay's re-encoding does)."""
    return len(json.dumps(entry).encode())


def _total(sizes: Sequence[int]) -> int:
    return 2 + sum(sizes) + 2 * max(0, len(sizes) - 1)  # "[", "]" and ", " between entries


def capped(entries: Iterable[dict], failures: int) -> Detail:
    """At most MAX_ENTRIES entries and MAX_TOTAL_BYTES in all, with a note per cut."""
    kept = list(entries)[:MAX_ENTRIES]
    notes = []
    if failures > len(kept):
        notes.append(f"failed-tests-detail: {failures} failed tests, the first {len(kept)} sent")
    sizes = [_size(e) for e in kept]
    if _total(sizes) > MAX_TOTAL_BYTES:
        for i in range(len(kept) - 1, -1, -1):
            kept[i] = {k: v for k, v in kept[i].items() if k != "stacktrace"}
            sizes[i] = _size(kept[i])
            if _total(sizes) <= MAX_TOTAL_BYTES:
                break
        notes.append(
            f"failed-tests-detail: stacktraces left out from the end to stay under {MAX_TOTAL_BYTES} bytes"
        )
        while kept and _total(sizes) > MAX_TOTAL_BYTES:
            kept.pop()
            sizes.pop()
    return Detail(tuple(kept), failures, tuple(notes))


def _number(value: Any) -> bool:
    """A finite JSON number (never NaN/Infinity: json.dumps would send them, invalid JSON)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an int past float range
        return False


def _inline_entry(item: dict) -> tuple[dict, int]:
    """(entry, how many of the item's values were left out): documented fields of their type only."""
    kept: dict = {}
    left = 0
    for key, value in item.items():
        if value is None or key == "name":
            continue
        if key in ("classname", "message", "stacktrace") and isinstance(value, str):
            kept[key] = value
        elif key == "duration" and _number(value) and value >= 0:
            kept[key] = value
        else:
            left += 1
    text = [kept.get(k, "") for k in ("classname", "message", "stacktrace")]
    return entry(item["name"], *text, kept.get("duration")), left


def from_inline(value: Any, source: str) -> Detail:
    """Any JSON value given whole (the action's `failed-tests-detail` input): an array keeps its
    first 1000 elements as the action does, each cut to the documented shape; anything else is
    left out. Never raises: what is left out is said in one note."""
    if not isinstance(value, list):
        return Detail((), 0, (f"{source} left out: not a JSON array",))
    entries, dropped, left = [], 0, 0
    for item in value[:MAX_ENTRIES]:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            dropped += 1
            continue
        out, n = _inline_entry(item)
        entries.append(out)
        left += n
    detail = capped(entries, len(value) - dropped)
    if dropped or left:
        note = (
            f"{source}: left out {dropped} entries (not an object with a string name) "
            f"and {left} values (unknown field or wrong type)"
        )
        detail = Detail(detail.entries, detail.failures, (note, *detail.notes))
    return detail
