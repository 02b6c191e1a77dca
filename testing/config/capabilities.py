"""The backend's capability table, read through one adapter.

``<backend>.capabilities()`` (for spyre ``torch_spyre.capabilities()``) is the device's single
source of truth; the plugin (``global.capabilities: backend``) and tools/select both read it
here, so both accept the same shapes::

    {"ops": {"add": {"aten": ["add.Tensor"], "dtypes": ["float32", ...],
                     "precision": "float16" | {dtype: {atol, rtol}},
                     "storage_dtypes": [...], "layout": "contiguous"}, ...},
     "features": {"autograd": false}, "device": "spyre"}
    {"add": ["float32", "float16"], "mul.Tensor": {"float32": {"atol": 1e-3}}}   # bare op map

An op's dtypes may be a list or a mapping dtype -> precision; a precision is
``{atol, rtol}`` or ``{"precision": {atol, rtol}}``. Dtype names lose a ``torch.`` prefix,
op names an ``aten::``/``aten.`` prefix. Pure: no torch.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from testing.base.errors import OotError

Precision = Mapping[str, float]  # {"atol": ..., "rtol": ...}
Caps = dict[str, dict[str, Optional[tuple[float, float]]]]  # aten key -> dtype -> (atol, rtol)

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


class CapabilityError(OotError, ValueError):
    """A table of a shape this adapter does not accept (one line, naming the source)."""


def normalise_op(name: str) -> str:
    """``aten::add.Tensor`` / ``aten.add.Tensor`` / ``add.Tensor`` -> ``add.Tensor``."""
    for prefix in ("aten::", "aten."):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def packet(name: str) -> str:
    """The overload packet of an op name: ``add.Tensor`` -> ``add``."""
    return normalise_op(name).split(".", 1)[0]


def aten_key(name: str) -> str:
    """'aten::add.Tensor' / 'add.Tensor' / 'add' -> 'add' (the plugin's capability key)."""
    return name.removeprefix("aten::").split(".", 1)[0]


@dataclass(frozen=True)
class OpCapability:
    dtypes: frozenset[str]
    precision: Mapping[str, Precision] = field(default_factory=dict)
    internal_precision: str = "exact"  # e.g. "float16": computed through a narrower type
    layout: str = "any"  # "contiguous": refuses strided inputs
    group: str = ""  # the table entry it came from
    storage_dtypes: frozenset[str] = frozenset()  # held/moved/filled, not computed in
    aliases: tuple[str, ...] = ()  # the entry's name and the aten kernels it covers, as written

    def tolerance(self, dtype: str) -> Optional[tuple[float, float]]:
        """(atol, rtol) the table gives for a dtype, None when it gives none."""
        p = self.precision.get(dtype)
        if isinstance(p, Mapping) and ("atol" in p or "rtol" in p):
            return float(p.get("atol", 0.0)), float(p.get("rtol", 0.0))
        return None


@dataclass(frozen=True)
class CapabilityTable:
    device: str
    ops: Mapping[str, OpCapability]  # normalised op name (entry name or aten alias) -> capability
    features: Mapping[str, bool] = field(default_factory=dict)
    entries: tuple[OpCapability, ...] = ()  # one per table entry, in table order

    def with_device(self, device: str) -> CapabilityTable:
        return CapabilityTable(device, self.ops, self.features, self.entries)

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

    def precision_for(self, op: str, dtype: str) -> Precision | None:
        cap = self.lookup(op)
        return None if cap is None else cap.precision.get(dtype)

    def _entries(self) -> tuple[OpCapability, ...]:
        return self.entries or tuple({id(c): c for c in self.ops.values()}.values())

    def by_aten(self) -> Caps:
        """The plugin's view: aten key -> dtype -> (atol, rtol) | None; the first entry naming
        a key (by its name or an aten alias) owns it."""
        caps: Caps = {}
        for cap in self._entries():
            dtypes = {d: cap.tolerance(d) for d in sorted(cap.dtypes)}
            for key in cap.aliases:
                caps.setdefault(aten_key(key), dtypes)
        return caps

    def groups(self) -> dict[str, frozenset[str]]:
        """Every aten key of the table (entry name or kernel) -> the aten keys of its entry,
        so 'clamp_min' or 'copy' resolve to the ops of their whole group."""
        groups: dict[str, frozenset[str]] = {}
        for cap in self._entries():
            members = frozenset(aten_key(k) for k in cap.aliases)
            for key in members:
                groups[key] = groups.get(key, frozenset()) | members
        return groups

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
    return str(value).removeprefix("torch.")


def _precision(value: Any) -> dict[str, float]:
    """{atol, rtol}, also when wrapped as {"precision": {atol, rtol}}; anything else: {}."""
    if isinstance(value, Mapping) and isinstance(value.get("precision"), Mapping):
        value = value["precision"]
    return dict(value) if isinstance(value, Mapping) else {}


def _aliases(name: str, value: Any) -> tuple[str, ...]:
    """The table entry's own name plus the aten kernels it covers (torch_spyre's 'aten' list)."""
    aten = value.get("aten") if isinstance(value, Mapping) else None
    return (name,) + ((aten,) if isinstance(aten, str) else tuple(aten or ()))


def _op_capability(op: str, value: Any, source: str) -> OpCapability:
    aliases = _aliases(op, value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return OpCapability(frozenset(_dtype_name(d) for d in value), group=op, aliases=aliases)
    if not isinstance(value, Mapping):
        raise CapabilityError(
            f"{source}: op {op!r} has {type(value).__name__}, expected a dtype list or mapping"
        )
    if "dtypes" not in value:  # dtype -> precision
        return OpCapability(
            frozenset(_dtype_name(d) for d in value),
            {_dtype_name(k): _precision(v) for k, v in value.items()},
            group=op,
            aliases=aliases,
        )
    inner = value["dtypes"]
    raw_precision = value.get("precision")
    precision = (
        {_dtype_name(k): _precision(v) for k, v in raw_precision.items()}
        if isinstance(raw_precision, Mapping)
        else {}
    )
    if isinstance(inner, Mapping):
        precision.update({_dtype_name(k): _precision(v) for k, v in inner.items()})
    return OpCapability(
        frozenset(_dtype_name(d) for d in inner),
        precision,
        internal_precision=raw_precision if isinstance(raw_precision, str) else "exact",
        layout=str(value.get("layout", "any")),
        group=op,
        storage_dtypes=frozenset(_dtype_name(d) for d in value.get("storage_dtypes") or ()),
        aliases=aliases,
    )


def read_table(data: Any, source: str = "<dict>", allow_empty: bool = False) -> CapabilityTable:
    """Normalise any accepted shape into a CapabilityTable (CapabilityError naming `source`)."""
    if hasattr(data, "_asdict"):
        data = data._asdict()
    if not isinstance(data, Mapping):
        raise CapabilityError(f"{source}: capabilities must be a mapping, got {type(data).__name__}")
    ops_raw = data["ops"] if isinstance(data.get("ops"), Mapping) else data
    if "ops" in data and not isinstance(data.get("ops"), Mapping):
        ops_raw = None
    if isinstance(ops_raw, Mapping):
        ops_raw = {k: v for k, v in ops_raw.items() if k not in ("device", "features", "version")}
    if not isinstance(ops_raw, Mapping) or (not ops_raw and not allow_empty):
        raise CapabilityError(f"{source}: capabilities have no 'ops' mapping")
    ops: dict[str, OpCapability] = {}
    entries = []
    for name, value in ops_raw.items():
        cap = _op_capability(str(name), value, source)
        entries.append(cap)
        for alias in cap.aliases:
            ops.setdefault(normalise_op(alias), cap)
    features = data.get("features") or {}
    if not isinstance(features, Mapping):
        raise CapabilityError(f"{source}: 'features' must be a mapping of name -> bool")
    return CapabilityTable(
        str(data.get("device", "privateuse1")),
        ops,
        {str(k): bool(v) for k, v in features.items()},
        tuple(entries),
    )
