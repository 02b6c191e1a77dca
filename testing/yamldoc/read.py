"""The one YAML reader: round trip (comments, quotes and key order kept), file:line errors.

Every tool reads YAML (configs, scope records, capability files, the CRCR allowlist) through
``read_yaml``/``parse_yaml``, so a syntax error reads the same everywhere, and dumps with
``round_trip()``'s layout. Pure reading: nothing is validated or interpreted here (the config
contract's ``testing.config.load.load`` validates a test-suite config; writing is
``testing.config.edit``'s).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from testing.yamldoc.locate import unreadable, yaml_syntax_error


def round_trip() -> YAML:
    """The round-trip YAML of every reader and writer: comments and quotes kept; when dumped,
    2-space mappings with '- ' at 2 of 4 (the layout of generated configs)."""
    yaml = YAML(typ="rt")
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 120
    yaml.preserve_quotes = True
    return yaml


def parse_yaml(text: str, source: str) -> Any:
    """The ruamel tree of YAML text; bad YAML -> YamlSyntaxError at `source`:line."""
    try:
        return round_trip().load(text)
    except YAMLError as exc:
        raise yaml_syntax_error(source, exc) from None


def read_yaml(path: str | Path) -> tuple[Any, str]:
    """(ruamel tree, text) of a YAML file; unreadable or bad YAML -> ConfigError (file:line)."""
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise unreadable(path, exc) from None
    return parse_yaml(text, path), text
