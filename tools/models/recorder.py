"""Record the torch calls of a forward pass as model-op cases (testing/config/modelops.py).

Why a torch *function* mode and not a dispatch mode: the format names torch callables as a
model's source writes them (``torch.nn.functional.linear``, ``torch.Tensor.view``) and keeps the
model-source line of each call; a ``TorchFunctionMode`` sees exactly those calls, with their
Python arguments, before any decomposition. A ``TorchDispatchMode`` sees aten ops after
autograd and decomposition (``aten::addmm`` for a linear, a handful of views per reshape):
the cases would not name what the model calls, the source lines would point into torch, and
composite ops (layer_norm, scaled_dot_product_attention) would be split. Inside the mode's
handler the mode is off, so a functional's own inner calls are not recorded twice.

A call is recorded when its result holds a tensor and every argument can be written in the
format (tensors, tensor lists, plain values, slices, dtypes, devices); others (``.size()``,
attribute reads, calls taking modules) are only counted as seen.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten

from testing.config import modelops as fmt
from testing.plugin.modelops import resolve
from tools.errors import ToolsError

DEVICE = "cuda:0"  # how captures name the model's device (as Torch Spyre's do); a run maps it to its own


class Unrecordable(ToolsError):
    """An argument the format cannot express."""


@dataclass
class Recording:
    cases: list[dict] = field(default_factory=list)  # include items, in call order, deduplicated
    calls: int = 0  # every torch call the mode saw
    recorded: int = 0  # calls with a tensor result and arguments the format can hold
    _keys: set = field(default_factory=set)


def callable_name(func: Any) -> Optional[str]:
    """The path configs write for a torch callable, or None; resolve(name) gives `func` back."""
    name = getattr(func, "__name__", None)
    if not name:
        return None
    if name == "__getitem__":
        return "torch.getitem"  # Torch Spyre's spelling of indexing
    for path in (f"torch.nn.functional.{name}", f"torch.{name}", f"torch.Tensor.{name}"):
        try:
            if resolve(path) is func:
                return path
        except LookupError:
            continue
    return None


def tensor_spec(t: torch.Tensor) -> dict:
    spec: dict = {
        "shape": list(t.shape),
        "stride": list(t.stride()),
        "storage_offset": t.storage_offset(),
        "dtype": str(t.dtype),
    }
    storage = t.untyped_storage().nbytes() // max(t.element_size(), 1)
    needed = fmt.TensorSpec(shape=spec["shape"], stride=spec["stride"], storage_offset=spec["storage_offset"])
    if storage > needed.needed_storage():
        spec["storage_size"] = storage  # a view into a bigger storage: keep it that way
    if t.dtype == torch.bool:
        return spec
    if t.dtype.is_floating_point or t.dtype.is_complex:
        spec["init"] = "rand"
    elif t.numel():  # indices stay in the range the model used (an embedding must not overflow)
        spec["init"] = "randint"
        spec["init_args"] = {"low": int(t.min()), "high": int(t.max()) + 1}
    else:
        spec.update(init="randint", init_args={"high": 1})
    return spec


def argument(x: Any) -> dict:
    """One argument as an ArgSpec dict (tensor, tensor_list, value or py)."""
    if isinstance(x, torch.Tensor):
        return {"tensor": tensor_spec(x)}
    if isinstance(x, (list, tuple)) and x and all(isinstance(t, torch.Tensor) for t in x):
        return {"tensor_list": [tensor_spec(t) for t in x]}
    return plain(x)


def plain(x: Any) -> dict:
    if isinstance(x, torch.dtype):
        return {"value": str(x)}
    if isinstance(x, torch.device):
        return {"value": DEVICE}  # the model's device
    if isinstance(x, torch.Size):
        return {"value": list(x)}
    if x is None or isinstance(x, (bool, int, float, str)):
        return {"value": x}
    if isinstance(x, (tuple, list)) and all(_literal(v) for v in x):
        if all(isinstance(v, (bool, int, float)) for v in x) and isinstance(x, list):
            return {"value": list(x)}
        return {"py": repr(tuple(x)) if isinstance(x, tuple) else repr(list(x))}
    if isinstance(x, slice) or x is Ellipsis:
        return {"py": repr(x)}
    raise Unrecordable(type(x).__name__)


def _literal(v: Any) -> bool:
    return v is None or v is Ellipsis or isinstance(v, (bool, int, float, slice))


def _kwarg(x: Any) -> Any:
    spec = argument(x)
    return spec if "value" not in spec else spec["value"]


def source_line(roots: tuple[str, ...]) -> Optional[str]:
    """'transformers/models/bert/modeling_bert.py:99 in forward, code: ...' of the innermost
    frame in the model's code (paths from the package's parent on: no machine path is written)."""
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        root = next((r for r in roots if path.startswith(r + os.sep)), None)
        if root is not None:
            import linecache

            code = linecache.getline(path, frame.f_lineno).strip()
            short = os.path.relpath(path, os.path.dirname(root))  # e.g. transformers/models/bert/...
            return f"{short}:{frame.f_lineno} in {frame.f_code.co_name}, code: {code}"
        frame = frame.f_back
    return None


class RecordingMode(TorchFunctionMode):
    """Records every recordable call into `recording` (deduplicated by the format's case key)."""

    def __init__(self, recording: Recording, roots: tuple[str, ...]) -> None:
        super().__init__()
        self.recording, self.roots = recording, roots

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        self.recording.calls += 1
        flat, _ = tree_flatten(result)
        if any(isinstance(t, torch.Tensor) for t in flat):
            self._record(func, args, kwargs)
        return result

    def _record(self, func, args, kwargs) -> None:
        rec = self.recording
        name = callable_name(func)
        try:
            if name is None:
                raise Unrecordable(getattr(func, "__name__", repr(func)))
            item: dict = {
                "name": name,
                "sample_inputs_func": {
                    "args": [argument(a) for a in args],
                    **({"kwargs": {k: _kwarg(v) for k, v in kwargs.items()}} if kwargs else {}),
                },
            }
        except Unrecordable:
            return
        rec.recorded += 1
        key = fmt.case_key(name, fmt.SampleInputs.model_validate(item["sample_inputs_func"]))
        if key in rec._keys:
            return
        rec._keys.add(key)
        where = source_line(self.roots)
        if where:
            item["description"] = where
        rec.cases.append(item)
