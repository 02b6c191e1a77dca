"""Model-op cases: the torch calls a real model makes, with their exact input tensors.

Torch Spyre writes them two ways, and both load unchanged (configs/README.md, "Model-op
cases"):

* inside a ``test_suite_config``: ``edits.ops.include[]`` items carrying
  ``sample_inputs_func: {args, kwargs}`` on the entry naming the model-op test;
* a document with a top-level ``cases:`` list (their older ``tests/resource/models``
  files: ``model``, ``defaults``, ``cases[].op/inputs/attrs/kwmap/marks``), read here as
  the same thing (``suite_from_cases``).

This module is the format (pydantic models for tensor specs and arguments), the load hook
(``adapt``: their test path and class name become our suite's, a ``cases:`` document
becomes a suite config, each case remembers its line) and the pure checks (``problems``:
impossible specs, unknown inits and dtypes, unknown keys; each a warning with file:line,
and the case then skips with the same reason). No torch: resolving callables and building
tensors is the plugin's (testing/plugin/modelops.py).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import re
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from testing.config.dtypes import canonical

# Their test and ours: a config naming theirs runs ours (the device comes from the run).
SUITE_PATH = "${REPO_ROOT}/testing/suites/test_model_ops.py"
SUITE_TEST = "TestModelOps::test_model_ops_db"
_THEIR_PATHS = (
    "${TORCH_DEVICE_ROOT}/tests/models/test_model_ops_v2.py",
    "${TORCH_DEVICE_ROOT}/tests/models/test_model_ops.py",
)
_THEIR_CLASS = "TestSpyreModelOps"

INITS = ("rand", "randn", "zeros", "ones", "randint", "arange", "eye", "full", "xavier", "file")
ARG_KINDS = ("tensor", "tensor_list", "value", "py")

# torch dtype names (torch is not imported here) and the short spellings their files use.
DTYPES = frozenset(
    "float16 float32 float64 bfloat16 complex32 complex64 complex128 int8 int16 int32 int64 "
    "uint8 uint16 uint32 uint64 bool float8_e4m3fn float8_e5m2 half float double long int short".split()
)
DTYPE_ALIASES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"}


def dtype_name(text: str) -> str:
    """'torch.float16' / 'fp16' / 'half' -> torch's name of the dtype ('float16')."""
    bare = canonical(text)
    return DTYPE_ALIASES.get(bare.lower(), bare)


class _Lenient(BaseModel):
    # Their format grows: a key we do not know is a warning (problems()), never an error.
    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)


class InitArgs(_Lenient):
    low: Optional[float] = None
    high: Optional[float] = None
    fill_value: Optional[float] = None
    path: Optional[str] = None
    key: Optional[str] = None


class TensorSpec(_Lenient):
    """One input tensor: built on CPU, exactly this layout (as_strided over a sized storage)."""

    shape: list[int]
    stride: Optional[list[int]] = None
    storage_offset: int = 0
    storage_size: Optional[int] = Field(
        default=None, description="Elements in the backing storage (an addition; default: just enough)."
    )
    dtype: Optional[str] = None
    device: Optional[str] = Field(
        default=None, description="cuda:0, spyre, ...: the run's device; cpu stays cpu."
    )
    init: str = "rand"
    init_args: InitArgs = Field(default_factory=InitArgs)

    @property
    def strides(self) -> list[int]:
        """Explicit strides, else contiguous ones."""
        if self.stride is not None:
            return list(self.stride)
        out, step = [], 1
        for size in reversed(self.shape):
            out.insert(0, step)
            step *= max(size, 1)
        return out

    def needed_storage(self) -> int:
        """Elements the view reaches: offset + the farthest element + 1 (offset alone when empty)."""
        if any(s == 0 for s in self.shape):
            return self.storage_offset
        return self.storage_offset + sum((s - 1) * st for s, st in zip(self.shape, self.strides)) + 1


class ArgSpec(_Lenient):
    """One argument: exactly one of tensor, tensor_list, value (any YAML value) or py (a literal)."""

    tensor: Optional[TensorSpec] = None
    tensor_list: Optional[list[TensorSpec]] = None
    value: Any = None
    py: Optional[str] = None

    @model_validator(mode="after")
    def _one_kind(self) -> "ArgSpec":
        kinds = [k for k in ARG_KINDS if k in self.model_fields_set]
        if len(kinds) != 1:
            raise ValueError(
                f"an argument needs exactly one of {', '.join(ARG_KINDS)} (got {kinds or 'none'})"
            )
        return self

    @property
    def kind(self) -> str:
        return next(k for k in ARG_KINDS if k in self.model_fields_set)

    def tensors(self) -> list[TensorSpec]:
        return [self.tensor] if self.tensor is not None else list(self.tensor_list or ())


class SampleInputs(_Lenient):
    """sample_inputs_func: the call's positional and keyword arguments."""

    args: list[ArgSpec] = Field(default_factory=list)
    kwargs: dict[str, Any] = Field(default_factory=dict)

    @field_validator("kwargs", mode="before")
    @classmethod
    def _kwarg_specs(cls, v: Any) -> Any:
        # A kwarg written as {tensor: {...}} (or tensor_list/value/py) is an argument spec.
        if isinstance(v, dict):
            return {
                k: ArgSpec.model_validate(x)
                if isinstance(x, dict) and len(x) == 1 and next(iter(x)) in ARG_KINDS
                else x
                for k, x in v.items()
            }
        return v

    def all_args(self) -> list[tuple[str, ArgSpec]]:
        """(where, spec) of every argument spec, keyword ones included."""
        out = [(f"args[{i}]", a) for i, a in enumerate(self.args)]
        return out + [(f"kwargs.{k}", v) for k, v in self.kwargs.items() if isinstance(v, ArgSpec)]

    def tensor_specs(self) -> list[tuple[str, TensorSpec]]:
        return [(where, t) for where, a in self.all_args() for t in a.tensors()]


class CasePrecision(_Lenient):
    atol: float = Field(ge=0)
    rtol: float = Field(default=0.0, ge=0)


# ---------------------------------------------------------------- pure checks


def tensor_problems(t: TensorSpec) -> list[str]:
    """Why this spec cannot be built (empty: it can)."""
    out = []
    if any(s < 0 for s in t.shape):
        out.append(f"negative size in shape {t.shape}")
    if t.stride is not None and len(t.stride) != len(t.shape):
        out.append(f"stride {t.stride} has {len(t.stride)} dims, shape {t.shape} has {len(t.shape)}")
    elif t.stride is not None and any(s < 0 for s in t.stride):
        out.append(f"negative stride {t.stride}")
    if t.storage_offset < 0:
        out.append(f"negative storage_offset {t.storage_offset}")
    if not out and t.storage_size is not None and t.needed_storage() > t.storage_size:
        out.append(
            f"stride {t.strides}/storage_offset {t.storage_offset} reach element {t.needed_storage() - 1}, "
            f"outside the storage of {t.storage_size}"
        )
    if t.init not in INITS:
        out.append(f"unknown init '{t.init}' (known: {', '.join(INITS)})")
    elif t.init == "file":
        out.append("init 'file' is not supported here (inputs are generated from the seed)")
    if t.init == "randint" and t.init_args.high is None:
        out.append("init randint needs init_args.high")
    if t.init == "full" and t.init_args.fill_value is None:
        out.append("init full needs init_args.fill_value")
    if t.dtype is not None and dtype_name(t.dtype) not in DTYPES:
        out.append(f"unknown dtype '{t.dtype}'")
    return out


def problems(inputs: SampleInputs) -> list[str]:
    """Every reason a case cannot run, plus keys read but unknown (those only warn)."""
    out = []
    for where, t in inputs.tensor_specs():
        out += [f"{where}: {p}" for p in tensor_problems(t)]
    return out


def unknown_keys(item: Any, inputs: Optional[SampleInputs]) -> list[str]:
    """Keys no model here knows, for the warning (the case still runs)."""
    found = [f"'{k}'" for k in (getattr(item, "model_extra", None) or {})]
    if inputs is not None:
        found += [f"sample_inputs_func.'{k}'" for k in inputs.model_extra or {}]
        for where, a in inputs.all_args():
            found += [f"{where}.'{k}'" for k in a.model_extra or {}]
            for t in a.tensors():
                found += [f"{where}.'{k}'" for k in t.model_extra or {}]
    return found


# ---------------------------------------------------------------- names and keys


def short_name(callable_path: str) -> str:
    """The op as a mark and OpInfo name: 'torch.nn.functional.linear' -> 'nn.functional.linear',
    'torch.Tensor.view' -> 'view', 'operator.__getitem__' -> 'getitem'."""
    name = re.sub(r"^(torch\.Tensor\.|torch\.|_?operator\.)", "", callable_path)
    return name.strip("_") if name.startswith("__") else name


def case_key(name: str, inputs: SampleInputs) -> tuple:
    """What makes two calls the same case: the op, each argument's kind, tensor dtypes, shapes,
    strides and offsets, and every non-tensor value (attrs). Init and description do not count."""

    def arg(a: ArgSpec) -> tuple:
        if a.kind in ("tensor", "tensor_list"):
            return (a.kind,) + tuple(
                (
                    tuple(t.shape),
                    tuple(t.strides),
                    t.storage_offset,
                    t.dtype and dtype_name(t.dtype),
                    t.device,
                )
                for t in a.tensors()
            )
        return (a.kind, repr(a.value if a.kind == "value" else a.py))

    kwargs = tuple(
        sorted((k, arg(v) if isinstance(v, ArgSpec) else repr(v)) for k, v in inputs.kwargs.items())
    )
    return (name, tuple(arg(a) for a in inputs.args), kwargs)


def model_of(tags: list[str], fallback: str) -> str:
    """The model a case belongs to: its entry's model__<name> tag, else the config's name."""
    for tag in tags:
        if tag.startswith("model__"):
            return tag[len("model__") :]
    return fallback


# ---------------------------------------------------------------- the load hook


def is_cases_document(raw: Any) -> bool:
    return isinstance(raw, dict) and "cases" in raw and "test_suite_config" not in raw


def adapt(doc: dict, raw: Any, stem: str) -> dict:
    """The plain document as the models read it: a ``cases:`` document as a suite config, their
    model-op test path/class as ours, and every case's YAML line (``source_line``)."""
    if is_cases_document(doc):
        doc = suite_from_cases(doc, raw, stem)
        return doc
    _fold_cases(doc, raw, stem)
    suite = doc.get("test_suite_config")
    files = suite.get("files") if isinstance(suite, dict) else None
    for f_idx, entry in enumerate(files if isinstance(files, list) else ()):
        if not isinstance(entry, dict):
            continue
        if entry.get("path") in _THEIR_PATHS:
            entry["path"] = SUITE_PATH
            for test in entry.get("tests") or ():
                if isinstance(test, dict):
                    test["names"] = _our_names(test.get("names"))
        for t_idx, test in enumerate(entry.get("tests") or ()):
            include = (
                (((test or {}).get("edits") or {}).get("ops") or {}).get("include")
                if isinstance(test, dict)
                else None
            )
            raw_include = _at(
                raw, "test_suite_config", "files", f_idx, "tests", t_idx, "edits", "ops", "include"
            )
            _mark_lines(include, raw_include)
            _fold_kwargs(include)
    return doc


def _fold_cases(doc: dict, raw: Any, stem: str) -> None:
    """Their newer files end a ``test_suite_config`` with a ``cases:`` list too (empty in every
    file published so far): its cases become one more file entry, read as the older shape."""
    if "cases" not in doc or not isinstance(doc.get("test_suite_config"), dict):
        return
    extra = {k: doc.pop(k) for k in ("cases", "model", "defaults", "default") if k in doc}
    if not extra.get("cases"):
        return
    converted = suite_from_cases(extra, raw, stem)["test_suite_config"]
    suite = doc["test_suite_config"]
    if isinstance(suite.get("files", []), list):
        suite["files"] = list(suite.get("files") or []) + converted["files"]


def _fold_kwargs(items: Any) -> None:
    """A case's ``kwargs`` written beside ``sample_inputs_func`` (as some of their captures do)
    are that call's keyword arguments; one written inside too wins."""
    for item in items if isinstance(items, list) else ():
        inputs = item.get("sample_inputs_func") if isinstance(item, dict) else None
        if isinstance(inputs, dict) and isinstance(item.get("kwargs"), dict):
            inputs["kwargs"] = {**item.pop("kwargs"), **(inputs.get("kwargs") or {})}


def as_tree(data: Any, line: int = 0) -> Any:
    """A converted ``cases:`` document as a ruamel tree (what readers of lines and comments
    walk): every node on line `line`, each case on its own line (``source_line``)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(data, dict):
        node = CommentedMap()
        own = (data.get("source_line") or line + 1) - 1 if "sample_inputs_func" in data else line
        for k, v in data.items():
            node[k] = as_tree(v, own)
            node.lc.add_kv_line_col(k, [own, 0, own, 0])
        return node
    if isinstance(data, list):
        seq = CommentedSeq()
        for i, v in enumerate(data):
            seq.append(as_tree(v, line))
            own = (
                (v.get("source_line") or line + 1) - 1
                if isinstance(v, dict) and "sample_inputs_func" in v
                else line
            )
            seq.lc.add_idx_line_col(i, [own, 0])
        return seq
    return data


def _our_names(names: Any) -> Any:
    fix = lambda n: n.replace(f"{_THEIR_CLASS}::", "TestModelOps::") if isinstance(n, str) else n  # noqa: E731
    return [fix(n) for n in names] if isinstance(names, list) else fix(names)


def _at(node: Any, *path: Any) -> Any:
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _mark_lines(items: Any, raw_items: Any) -> None:
    """Each case dict gets the 1-based line it is written on (for file:line warnings)."""
    lc = getattr(raw_items, "lc", None)
    for k, item in enumerate(items if isinstance(items, list) else ()):
        if isinstance(item, dict) and "sample_inputs_func" in item and lc is not None:
            item["source_line"] = lc.item(k)[0] + 1


def suite_from_cases(doc: dict, raw: Any, stem: str) -> dict:
    """Their older shape (model, defaults, cases[].op/inputs/attrs/kwmap/marks/atol/rtol/dtype/seed)
    as one suite-config entry on our model-op test; the defaults' dtype fills tensor specs without
    one, their atol/rtol become each case's precision."""
    defaults = dict(doc.get("defaults") or doc.get("default") or {})
    model = str(doc.get("model") or stem)
    include = []
    lc = getattr(_at(raw, "cases"), "lc", None)
    for k, case in enumerate(doc.get("cases") or ()):
        if not isinstance(case, dict):
            include.append(case)  # the model's validation names the problem
            continue
        include.append(_case_item(case, defaults, lc.item(k)[0] + 1 if lc is not None else None))
    seed = defaults.get("seed")
    suite: dict = {
        "files": [
            {
                "path": SUITE_PATH,
                "tests": [
                    {
                        "names": [SUITE_TEST],
                        "tags": [f"model__{model}"],
                        "edits": {"ops": {"include": include}},
                    }
                ],
            }
        ]
    }
    if seed is not None:
        suite["global"] = {"input_config": {"seed": seed}}
    return {"test_suite_config": suite}


_CASE_KEYS = {
    "name",
    "op",
    "inputs",
    "attrs",
    "kwmap",
    "description",
    "marks",
    "atol",
    "rtol",
    "dtype",
    "seed",
}


def _case_item(case: dict, defaults: dict, line: Optional[int]) -> dict:
    default_dtype = case.get("dtype", defaults.get("dtype"))
    inputs = [_with_dtype(i, default_dtype) for i in case.get("inputs") or ()]
    marks = case.get("marks")
    tags = [marks] if isinstance(marks, str) else list(marks or ())
    item: dict = {
        "name": case.get("op"),
        "sample_inputs_func": {
            "args": inputs,
            "kwargs": {**(case.get("attrs") or {}), **(case.get("kwmap") or {})},
        },
        "tags": [str(t) for t in tags] + ([str(case["name"])] if case.get("name") else []),
    }
    if case.get("description"):
        item["description"] = str(case["description"]).strip()
    atol, rtol = case.get("atol", defaults.get("atol")), case.get("rtol", defaults.get("rtol"))
    if atol is not None:
        item["precision"] = {"atol": float(atol), "rtol": float(rtol or 0.0)}
    item.update({k: v for k, v in case.items() if k not in _CASE_KEYS})  # unknown: warned about
    if line is not None:
        item["source_line"] = line
    return item


def _with_dtype(arg: Any, dtype: Any) -> Any:
    if dtype is None or not isinstance(arg, dict):
        return arg
    fill = lambda t: {**t, "dtype": t.get("dtype", dtype)} if isinstance(t, dict) else t  # noqa: E731
    if isinstance(arg.get("tensor"), dict):
        return {**arg, "tensor": fill(arg["tensor"])}
    if isinstance(arg.get("tensor_list"), list):
        return {**arg, "tensor_list": [fill(t) for t in arg["tensor_list"]]}
    return arg


SourceLine = SkipJsonSchema[Optional[int]]  # set by adapt(), never written by hand
