"""PyTorch's `.github/allowlist.yml` (protocol §4): parse, look up, render.

Shapes: L1, L2, L4 are lists of `owner/repo` or one-key maps
`owner/repo: oncall1, oncall2`; L3 maps a device to `{owner/repo: [oncalls]}`.
A repo may appear once. Matching is exact and case-sensitive, like the relay.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from crcr.callback_client.errors import ConfigError

# The one YAML reader (testing/yamldoc): in oot-ci-results, which the relay emulator's wheel
# requires with its `yaml` extra; never the plugin's wheel (tools/ci/test_wheels.py).
from testing.yamldoc.locate import YamlSyntaxError, at
from testing.yamldoc.read import parse_yaml

LEVELS = ("L1", "L2", "L3", "L4")
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_DEVICE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_HANDLE = re.compile(r"^@?[A-Za-z0-9][A-Za-z0-9-]*(/[A-Za-z0-9_.-]+)?$")


@dataclass(frozen=True)
class Entry:
    repo: str
    level: str
    oncalls: tuple[str, ...] = ()
    device: Optional[str] = None

    @property
    def rank(self) -> int:
        return LEVELS.index(self.level) + 1


def _oncalls(value: Any, where: str) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else None
    if items is None:
        raise ConfigError(f"{where}: oncalls must be a comma-separated string or a list")
    handles = tuple(str(h).strip() for h in items if str(h).strip())
    for h in handles:
        if not _HANDLE.match(h):
            raise ConfigError(f"{where}: bad oncall handle {h!r}")
    return handles


def _list_level(level: str, items: Any, source: str, node: Any) -> list[Entry]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise ConfigError(f"{at(source, node, level)}: {level} must be a list")
    out = []
    for i, item in enumerate(items):
        where = at(source, items, i)
        if isinstance(item, str):
            out.append(Entry(item, level))
        elif isinstance(item, dict) and len(item) == 1:
            ((repo, oncalls),) = item.items()
            out.append(Entry(str(repo), level, _oncalls(oncalls, where)))
        else:
            raise ConfigError(f"{where}: {level} items are `owner/repo` or `owner/repo: oncalls`")
    return out


def _l3(items: Any, source: str, node: Any) -> list[Entry]:
    if items is None:
        return []
    if not isinstance(items, dict):
        raise ConfigError(f"{at(source, node, 'L3')}: L3 must map device -> {{owner/repo: [oncalls]}}")
    out = []
    for device, repos in items.items():
        where = at(source, items, device)
        if not _DEVICE.match(str(device)):
            raise ConfigError(f"{where}: bad L3 device name {device!r}")
        if not isinstance(repos, dict) or not repos:
            raise ConfigError(f"{where}: L3 device {device!r} must map owner/repo -> [oncalls]")
        for repo, oncalls in repos.items():
            out.append(Entry(str(repo), "L3", _oncalls(oncalls, at(source, repos, repo)), str(device)))
    return out


def parse_allowlist(text: str, source: str = "allowlist.yml") -> dict[str, Entry]:
    """repo -> Entry; ConfigError naming file:line on any problem."""
    try:
        doc = parse_yaml(text, source)
    except YamlSyntaxError as err:
        raise ConfigError(f"{err.loc}: YAML error: {err.detail}") from None
    doc = doc or {}
    if not isinstance(doc, dict):
        raise ConfigError(f"{source}: top level must be a mapping of L1..L4")
    unknown = [k for k in doc if k not in LEVELS]
    if unknown:
        raise ConfigError(f"{at(source, doc, unknown[0])}: unknown key {unknown[0]!r} (expected L1..L4)")
    entries: dict[str, Entry] = {}
    for level in LEVELS:
        found = (
            _l3(doc.get(level), source, doc)
            if level == "L3"
            else _list_level(level, doc.get(level), source, doc)
        )
        for e in found:
            if not _REPO.match(e.repo):
                raise ConfigError(f"{at(source, doc, level)}: bad repo name {e.repo!r} under {level}")
            if e.repo in entries:
                raise ConfigError(
                    f"{at(source, doc, level)}: {e.repo} listed twice ({entries[e.repo].level} and {level})"
                )
            entries[e.repo] = e
    return entries


def level_of(entries: dict[str, Entry], repo: str) -> int:
    """0 for unlisted, else 1..4 (exact, case-sensitive match)."""
    e = entries.get(repo)
    return e.rank if e else 0


def render_entry(repo: str, level: str, oncalls: tuple[str, ...] = (), device: Optional[str] = None) -> str:
    """The YAML to paste under `level` in pytorch/pytorch's .github/allowlist.yml."""
    if level not in LEVELS:
        raise ConfigError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if not _REPO.match(repo):
        raise ConfigError(f"bad repo name {repo!r} (want owner/repo)")
    for h in oncalls:
        if not _HANDLE.match(h):
            raise ConfigError(f"bad oncall handle {h!r}")
    if level == "L3":
        if not device or not _DEVICE.match(device):
            raise ConfigError("L3 needs --device (lower-case device name, e.g. spyre)")
        listed = ", ".join(oncalls)
        return f"L3:\n  {device}:\n    {repo}: [{listed}]\n"
    if device:
        raise ConfigError("--device only applies to L3")
    item = f"{repo}: {', '.join(oncalls)}" if oncalls else repo
    return f"{level}:\n  - {item}\n"
