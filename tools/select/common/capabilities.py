"""Where the backend's capability table comes from, for the selection pipeline.

Sources, in order of preference: ``torch_spyre.capabilities()`` (the device's single source
of truth), or a JSON/YAML file / plain dict with the same shape, so the pipeline can be
tested with fixtures before or without the backend. Every source goes through the one
adapter the plugin uses too (testing/config/capabilities.py: accepted shapes, the
CapabilityTable); this module only finds the data and turns its errors into SelectError.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

# Re-exported: the pipeline's modules import the table types from here.
from testing.config.capabilities import (  # noqa: F401
    HARNESS_OPS,
    CapabilityError,
    CapabilityTable,
    OpCapability,
    normalise_op,
    packet,
    read_table,
)
from tools.errors import SelectError


def from_mapping(data: Any, source: str = "<dict>") -> CapabilityTable:
    """Normalise any accepted shape into a CapabilityTable (the adapter, SelectError on a bad one)."""
    try:
        return read_table(data, source)
    except CapabilityError as exc:
        raise SelectError(str(exc)) from exc


def from_file(path: str | Path) -> CapabilityTable:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SelectError(f"{path}: cannot read capabilities ({exc.strerror})") from exc
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SelectError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from exc
    else:
        from testing.config.load import parse_yaml
        from testing.yamldoc.locate import YamlSyntaxError

        try:
            data = parse_yaml(text, str(path))
        except YamlSyntaxError as exc:
            raise SelectError(f"{exc.loc}: invalid YAML ({exc.detail})") from exc
    return from_mapping(data, str(path))


def from_backend(module: str = "torch_spyre") -> CapabilityTable:
    """Ask the installed backend package for its table."""
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise SelectError(
            f"backend module {module!r} is not importable ({exc}); pass --capabilities FILE"
        ) from exc
    if not hasattr(mod, "capabilities"):
        raise SelectError(f"backend module {module!r} has no capabilities(); pass --capabilities FILE")
    table = from_mapping(mod.capabilities(), f"{module}.capabilities()")
    if table.device == "privateuse1":
        import torch

        table = table.with_device(torch._C._get_privateuse1_backend_name())
    return table


def load(source: str | None) -> CapabilityTable:
    """``None`` or ``backend:<module>`` asks the backend; anything else is a file path."""
    if source is None:
        return from_backend()
    if source.startswith("backend:"):
        return from_backend(source.split(":", 1)[1])
    return from_file(source)
