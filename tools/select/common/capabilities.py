"""The backend's capability table, read through one adapter.

Sources, in order of preference: ``torch_spyre.capabilities()`` (the device's single source
of truth), or a JSON/YAML file / plain dict with the same shape, so the pipeline can be
tested with fixtures before or without the backend.

Accepted shapes (all normalised to :class:`CapabilityTable`)::

    {"ops": {"add.Tensor": {"dtypes": ["float32", ...], "precision": {...}}, ...},
     "features": {"autograd": false, ...}, "device": "spyre"}
    {"add": ["float32", "float16"], "mul.Tensor": {"float32": {"atol": 1e-3}}}   # bare op map
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from tools.select.common.errors import SelectError

# The minimal kernel set without which no privateuse1 tensor exists at all (PyTorch's
# accelerator docs); a backend that loads has them, listed in its table or not.
HARNESS_OPS = frozenset(
    {
        "empty",
        "empty_strided",
        "as_strided",
        "view",
        "_reshape_alias",
        "resize_",
        "_copy_from",
        "_copy_from_and_resize",
        "_local_scalar_dense",
        "set_",
    }
)


def normalise_op(name: str) -> str:
    """``aten::add.Tensor`` / ``aten.add.Tensor`` / ``add.Tensor`` -> ``add.Tensor``."""
    for prefix in ("aten::", "aten."):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def packet(name: str) -> str:
    """The overload packet of an op name: ``add.Tensor`` -> ``add``."""
    return normalise_op(name).split(".", 1)[0]


@dataclass(frozen=True)
class OpCapability:
    dtypes: frozenset[str]
    precision: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    internal_precision: str = "exact"  # e.g. "float16": computed through a narrower type
    layout: str = "any"  # "contiguous": refuses strided inputs
    group: str = ""  # the table entry it came from
    storage_dtypes: frozenset[str] = frozenset()  # held/moved/filled, not computed in


@dataclass(frozen=True)
class CapabilityTable:
    device: str
    ops: Mapping[str, OpCapability]
    features: Mapping[str, bool] = field(default_factory=dict)

    def lookup(self, op: str) -> OpCapability | None:
        """Exact overload first, then its packet (a table may list ``add`` for all overloads)."""
        op = normalise_op(op)
        base = packet(op)
        # in-place/out forms (uniform_, add_) run the same kernel as their functional base
        return self.ops.get(op) or self.ops.get(base) or self.ops.get(base.rstrip("_"))

    def supports(self, op: str, dtype: str | None = None, storage: bool = False) -> bool:
        """``storage``: a dtype the op only holds or moves (copy of a float64 tensor) counts too."""
        if packet(op) in HARNESS_OPS or packet(op).rstrip("_") in HARNESS_OPS:
            return True
        cap = self.lookup(op)
        if cap is None:
            return False
        return dtype is None or dtype in cap.dtypes or (storage and dtype in cap.storage_dtypes)

    @property
    def dtypes(self) -> frozenset[str]:
        found: set[str] = set()
        for cap in self.ops.values():
            found |= cap.dtypes
        return frozenset(found)

    def precision_for(self, op: str, dtype: str) -> Mapping[str, float] | None:
        cap = self.lookup(op)
        return None if cap is None else cap.precision.get(dtype)

    def to_json(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "features": dict(self.features),
            "ops": {
                name: {
                    "dtypes": sorted(cap.dtypes),
                    "precision": {k: dict(v) for k, v in cap.precision.items()},
                    "internal_precision": cap.internal_precision,
                    "layout": cap.layout,
                    "storage_dtypes": sorted(cap.storage_dtypes),
                }
                for name, cap in sorted(self.ops.items())
            },
        }


def _dtype_name(value: Any) -> str:
    text = str(value)
    return text[len("torch.") :] if text.startswith("torch.") else text


def _op_capability(op: str, value: Any) -> OpCapability:
    if isinstance(value, (list, tuple, set, frozenset)):
        return OpCapability(frozenset(_dtype_name(d) for d in value), group=op)
    if isinstance(value, Mapping):
        if "dtypes" in value:
            inner = value["dtypes"]
            raw_precision = value.get("precision")
            internal = raw_precision if isinstance(raw_precision, str) else "exact"
            precision = dict(raw_precision) if isinstance(raw_precision, Mapping) else {}
            extra = dict(
                internal_precision=internal,
                layout=str(value.get("layout", "any")),
                group=op,
                storage_dtypes=frozenset(_dtype_name(d) for d in value.get("storage_dtypes") or ()),
            )
            if isinstance(inner, Mapping):  # dtype -> precision
                precision.update({_dtype_name(k): dict(v or {}) for k, v in inner.items()})
                return OpCapability(frozenset(_dtype_name(d) for d in inner), precision, **extra)
            return OpCapability(
                frozenset(_dtype_name(d) for d in inner),
                {_dtype_name(k): dict(v) for k, v in precision.items()},
                **extra,
            )
        return OpCapability(
            frozenset(_dtype_name(d) for d in value),
            {_dtype_name(k): dict(v or {}) for k, v in value.items()},
            group=op,
        )
    raise SelectError(f"capabilities: op {op!r} has {type(value).__name__}, expected a dtype list or mapping")


def _aliases(name: str, value: Any) -> list[str]:
    """The table entry's own name plus the aten kernels it covers (torch_spyre's 'aten' list)."""
    aten = value.get("aten") if isinstance(value, Mapping) else None
    return [name] + ([aten] if isinstance(aten, str) else list(aten or []))


def from_mapping(data: Any, source: str = "<dict>") -> CapabilityTable:
    """Normalise any accepted shape into a CapabilityTable."""
    if hasattr(data, "_asdict"):
        data = data._asdict()
    if not isinstance(data, Mapping):
        raise SelectError(f"{source}: capabilities must be a mapping, got {type(data).__name__}")
    ops_raw = data.get("ops", data if "ops" not in data else None)
    if isinstance(ops_raw, Mapping):
        ops_raw = {k: v for k, v in ops_raw.items() if k not in ("device", "features", "version")}
    if not isinstance(ops_raw, Mapping) or not ops_raw:
        raise SelectError(f"{source}: capabilities have no 'ops' mapping")
    ops: dict[str, OpCapability] = {}
    for name, value in ops_raw.items():
        cap = _op_capability(str(name), value)
        for alias in _aliases(str(name), value):
            ops.setdefault(normalise_op(alias), cap)
    features = data.get("features") or {}
    if not isinstance(features, Mapping):
        raise SelectError(f"{source}: 'features' must be a mapping of name -> bool")
    return CapabilityTable(
        str(data.get("device", "privateuse1")), ops, {str(k): bool(v) for k, v in features.items()}
    )


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
        from ruamel.yaml import YAML, YAMLError

        try:
            data = YAML(typ="safe").load(text)
        except YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f":{mark.line + 1}" if mark else ""
            raise SelectError(f"{path}{line}: invalid YAML ({getattr(exc, 'problem', exc)})") from exc
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

        table = CapabilityTable(torch._C._get_privateuse1_backend_name(), table.ops, table.features)
    return table


def load(source: str | None) -> CapabilityTable:
    """``None`` or ``backend:<module>`` asks the backend; anything else is a file path."""
    if source is None:
        return from_backend()
    if source.startswith("backend:"):
        return from_backend(source.split(":", 1)[1])
    return from_file(source)
