"""A nightly wheel index (`--core-index`): which nightly torch wheels exist, and which upstream
`main` commit each was built from.

Two kinds of index, read the same way:
- a PEP 503 simple index URL: its `torch/` page lists the wheels, each link ending in a
  `#sha256=<hex>` fragment;
- a find-links directory: the wheels themselves, side by side.

Either carries a map file, `nightly-map.json`, naming each wheel's source `main` commit
(a nightly wheel's own git_version is a commit of the `nightly` branch, whose subject names
that source commit, downstream-practice.md §1; the map saves downloading every wheel to
learn it):

    {"format": "oot-nightly-map/1",
     "nightlies": [{"file": "torch-...whl", "source": "<40 hex>", "sha256": "<64 hex>"}]}

`sha256` in the map is required for a wheel the index page gives no hash for (a find-links
directory); where both give one they must agree. Anything else is one line (IndexUnusable),
and the caller falls back to the next source.

Without a map, a wheel is paired with its source through the `nightly` branch alone
(`pair`): its version's date (`2.15.0.dev20261205`) names the nightly commit of that day,
whose subject names the source commit in parentheses (`2026-12-05 nightly release
(<40 hex>)`), as pytorch's tools/nightly.py follows the chain; the downloaded wheel's
git_version must then be that nightly commit (nightly.py checks). A find-links directory's
wheels are hashed where they lie (no map gives their hash); an index page must give it.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterable, Optional, Sequence

from packaging.tags import Tag, sys_tags
from packaging.utils import InvalidWheelFilename, parse_wheel_filename

from testing.base.errors import OotError

MAP_FILE = "nightly-map.json"
MAP_FORMAT = "oot-nightly-map/1"
PROJECT = "torch"
TIMEOUT = 30.0  # seconds for one index page
HEX40, HEX64 = re.compile(r"[0-9a-f]{40}"), re.compile(r"[0-9a-f]{64}")


class IndexUnusable(OotError):
    """The index cannot be used for this SHA (one line); the caller falls back."""


@dataclass(frozen=True)
class Nightly:
    file: str  # the wheel's file name
    location: str  # an http(s)/file URL, or a local path
    sha256: str  # 64 hex: what the download must hash to
    source: str  # the upstream main commit it was built from
    version: str  # e.g. 2.15.0.dev20261205+cpu
    tags: frozenset[Tag] = frozenset()


def is_url(spec: str) -> bool:
    return urllib.parse.urlsplit(spec).scheme in ("http", "https", "file")


def shown(spec: str) -> str:
    """The index for a message: a long one by its last part, so the reason stays in the line."""
    return f"--core-index {spec if len(spec) <= 100 else '...' + spec[-60:]}"


def read_url(url: str, missing_ok: bool = False) -> Optional[bytes]:
    """The page's bytes; None for a 404 when `missing_ok` (an index without a map file)."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:  # noqa: S310 (checked scheme)
            return resp.read()
    except urllib.error.HTTPError as err:
        if missing_ok and err.code == 404:
            return None
        raise IndexUnusable(f"{url}: unreachable ({err.reason})") from None
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", None) or err
        raise IndexUnusable(f"{url}: unreachable ({reason})") from None


class _Links(HTMLParser):
    """The anchors of a PEP 503 project page: (href, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.links.append(href)


def page_wheels(page_url: str, html: str) -> dict[str, tuple[str, str]]:
    """{file name: (absolute URL, sha256 or "")} of the wheels a simple-index page lists."""
    parser = _Links()
    parser.feed(html)
    found = {}
    for href in parser.links:
        url, _, fragment = urllib.parse.urljoin(page_url, href).partition("#")
        name = urllib.parse.unquote(url.rsplit("/", 1)[-1])
        if name.endswith(".whl"):
            algo, _, digest = fragment.partition("=")
            found[name] = (url, digest.lower() if algo == "sha256" else "")
    return found


def dir_wheels(root: Path) -> dict[str, tuple[str, str]]:
    return {p.name: (str(p), "") for p in sorted(root.glob("*.whl")) if p.is_file()}


def parse_map(text: str) -> dict[str, dict]:
    """{file: {"source", "sha256"}} from the map file's text; IndexUnusable on any defect."""
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise IndexUnusable(f"malformed {MAP_FILE} ({err})") from None
    if (
        not isinstance(doc, dict)
        or doc.get("format") != MAP_FORMAT
        or not isinstance(doc.get("nightlies"), list)
    ):
        raise IndexUnusable(f"{MAP_FILE} is not {MAP_FORMAT} (a 'nightlies' list)")
    entries = {}
    for i, e in enumerate(doc["nightlies"]):
        if not (
            isinstance(e, dict) and isinstance(e.get("file"), str) and HEX40.fullmatch(str(e.get("source")))
        ):
            raise IndexUnusable(f"{MAP_FILE} nightlies[{i}] needs a file and a 40-hex source")
        digest = str(e.get("sha256", "")).lower()
        if digest and not HEX64.fullmatch(digest):
            raise IndexUnusable(f"{MAP_FILE} nightlies[{i}] sha256 is not 64 hex")
        entries[e["file"]] = {"source": e["source"], "sha256": digest}
    return entries


def read_index(spec: str) -> list[Nightly]:
    """The torch nightlies an index lists, each with its source commit and hash."""
    try:
        return list(_nightlies(*_listing(spec)))
    except IndexUnusable as err:
        raise IndexUnusable(f"{shown(spec)}: {err}") from None


def _listing(spec: str) -> tuple[dict, Optional[dict]]:
    """(wheels listed, the map's entries or None: no map) of an index URL or a find-links directory."""
    if is_url(spec):
        base = spec.rstrip("/") + "/"
        page = base + PROJECT + "/"
        listed = page_wheels(page, (read_url(page) or b"").decode("utf-8", "replace"))
        text = read_url(base + MAP_FILE, missing_ok=True)
        return listed, None if text is None else parse_map(text.decode("utf-8", "replace"))
    root = Path(spec)
    if not root.is_dir():
        raise IndexUnusable("not a directory nor an http(s) URL")
    if not (root / MAP_FILE).exists():
        return {
            name: (where, _file_sha256(Path(where))) for name, (where, _) in dir_wheels(root).items()
        }, None
    try:
        text = (root / MAP_FILE).read_text()
    except OSError as err:
        raise IndexUnusable(f"cannot read {MAP_FILE} ({err.strerror})") from None
    return dir_wheels(root), parse_map(text)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _nightlies(listed: dict, mapping: Optional[dict]) -> Iterable[Nightly]:
    for name, (location, page_hash) in sorted(listed.items()):
        try:
            project, version, _, tags = parse_wheel_filename(name)
        except InvalidWheelFilename:
            continue  # not a wheel name: an index may hold other files
        if project == PROJECT and mapping is None:  # to be paired through the nightly branch
            if not HEX64.fullmatch(page_hash):
                raise IndexUnusable(f"{name}: no sha256 (no #sha256= link, and no {MAP_FILE})")
            yield Nightly(name, location, page_hash, "", str(version), frozenset(tags))
            continue
        entry = (mapping or {}).get(name)
        if project != PROJECT or entry is None:
            continue  # a wheel the map does not place cannot be paired with a commit
        if page_hash and entry["sha256"] and page_hash != entry["sha256"]:
            raise IndexUnusable(f"{name}: the index page and {MAP_FILE} give different sha256")
        digest = page_hash or entry["sha256"]
        if not HEX64.fullmatch(digest):
            raise IndexUnusable(f"{name}: no sha256 (neither a #sha256= link nor the map's)")
        yield Nightly(name, location, digest, entry["source"], str(version), frozenset(tags))


# A `nightly` branch commit's subject: its day and the source main commit it was built from.
NIGHTLY_SUBJECT = re.compile(r"^(\d{4}-\d{2}-\d{2}) nightly release \(([0-9a-f]{40})\)$")
DEV_DATE = re.compile(r"\.dev(\d{4})(\d{2})(\d{2})")


def nightly_sources(subjects: Iterable[str]) -> dict[str, str]:
    """{day: source commit} from the `nightly` branch's subjects (newest first; the newest of a day wins)."""
    found: dict[str, str] = {}
    for subject in subjects:
        m = NIGHTLY_SUBJECT.match(subject.strip())
        if m:
            found.setdefault(m.group(1), m.group(2))
    return found


def pair(nightlies: Sequence[Nightly], sources: dict[str, str]) -> list[Nightly]:
    """Each wheel without a source paired through its version's day (`sources`: nightly_sources);
    one the branch does not name is left out (it cannot be placed on main)."""
    out = []
    for n in nightlies:
        day = DEV_DATE.search(n.version)
        source = n.source or (sources.get("-".join(day.groups())) if day else None)
        if source:
            out.append(n if n.source else replace(n, source=source))
    return out


def installable(nightlies: Sequence[Nightly], supported: Optional[Sequence[Tag]] = None) -> list[Nightly]:
    """The nightlies this interpreter could install (any wheel tag it supports)."""
    ok = set(supported if supported is not None else sys_tags())
    return [n for n in nightlies if n.tags & ok]


def nearest(nightlies: Sequence[Nightly], first_parents: Sequence[str]) -> Optional[Nightly]:
    """The nightly built from the nearest commit of `first_parents` (the SHA first, then its
    first parent, ...): the mainline the SHA sits on, never a side branch merged into it."""
    by_source: dict[str, Nightly] = {}
    for n in nightlies:
        by_source.setdefault(n.source, n)
    return next((by_source[c] for c in first_parents if c in by_source), None)
