"""Model-op cases as OpInfos: the torch glue behind the model-op suite.

An op include with ``sample_inputs_func`` (testing/config/modelops.py) is one recorded call.
For the test its entry names (``TestModelOps::test_model_ops_db``), instantiate.py adds one
``ModelOpInfo`` per case to the ``@ops`` list, so the plugin's usual machinery applies per
case: buckets (the owning entry, or a more specific one such as a promoted variant name),
``-m`` at generation time, per-dtype precision, marks, promotion, crash isolation.

A case's inputs are built on CPU from a seeded generator, as a sized 1-D storage viewed with
exactly the recorded shape, stride and storage offset (``as_strided``); the device run gets a
copy of that storage viewed the same way, so both sides see the same values and layout.
Device strings in the file (``cuda:0``, ``spyre``, ``privateuse1``) are the run's device on
the device side and ``cpu`` on the reference side. A case that cannot run (unknown callable,
impossible spec, a dtype the device lacks) still becomes a test that skips with the reason.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

from testing.config import modelops as fmt
from testing.plugin.plan import Loc, Plan, Rule, model_cases
from testing.plugin.problems import Problem
from testing.plugin.selection import Support, dtype_allowed, mark_name

UNSUPPORTED = "unsupported: "  # a skip reason the per-model report counts as unsupported
_DEVICE_STRING = re.compile(r"^(cuda|privateuse1|spyre|xpu|mps|hpu|meta)(:\d+)?$")
_ALIASES = {
    "torch.getitem": operator.getitem,
    "torch.setitem": operator.setitem,
    "_operator.setitem": operator.setitem,
    "torch.truediv": operator.truediv,  # Torch Spyre's names for `a / b` and `~a`
    "torch.invert": operator.invert,
}


# ---------------------------------------------------------------- callables


def resolve(name: str) -> Callable:
    """A callable path as configs write it: torch.nn.functional.linear, torch.Tensor.view,
    operator.__getitem__, torch.ops.aten.index, and Torch Spyre's spellings (torch.to,
    torch.float, torch.new_ones: Tensor methods; torch.getitem, torch.truediv: operators). LookupError when it names nothing."""
    import torch

    if name in _ALIASES:
        return _ALIASES[name]
    if name == "float":
        return torch.Tensor.float
    path = name.replace("torch.aten.", "torch.ops.aten.", 1)
    roots = {"torch": torch, "operator": operator, "_operator": operator, "math": math}
    head, _, rest = path.partition(".")
    found: Any = roots.get(head)
    for part in rest.split(".") if rest and found is not None else ():
        found = getattr(found, part, None)
        if found is None:
            break
    if callable(found) and not isinstance(found, torch.dtype):
        return found
    # Torch Spyre writes some Tensor methods as torch.<method> (torch.to, torch.float, torch.view).
    method = getattr(torch.Tensor, rest, None) if head == "torch" and rest and "." not in rest else None
    if callable(method):
        return method
    raise LookupError(f"unknown callable '{name}'")


def is_inplace(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return (last.endswith("_") and not last.endswith("__")) or last in ("setitem", "__setitem__")


# ---------------------------------------------------------------- values and tensors

_PY_NODES = (
    ast.Expression,
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.Name,
    ast.Call,
    ast.Load,
    ast.UnaryOp,
    ast.USub,
    ast.UAdd,
)
_PY_NAMES = {
    "None": None,
    "Ellipsis": Ellipsis,
    "slice": slice,
    "inf": math.inf,
    "nan": math.nan,
    "True": True,
    "False": False,
}


def py_literal(expr: str) -> Any:
    """A `py:` argument: literals, tuples, lists, None, Ellipsis and slice(...) only."""
    tree = ast.parse(expr, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _PY_NODES):
            raise ValueError(f"py: {type(node).__name__} not allowed in {expr!r}")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id == "slice"):
            raise ValueError(f"py: only slice(...) calls are allowed in {expr!r}")
        if isinstance(node, ast.Name) and node.id not in _PY_NAMES:
            raise ValueError(f"py: name {node.id!r} not allowed in {expr!r}")
    return eval(compile(tree, "<py>", "eval"), {"__builtins__": {}}, dict(_PY_NAMES))  # noqa: S307 (checked above)


def torch_dtype(name: Optional[str]):
    import torch

    dt = getattr(torch, fmt.dtype_name(name or "float32"), None)
    if not isinstance(dt, torch.dtype):
        raise ValueError(f"unknown dtype '{name}'")
    return dt


def value(v: Any, device: str) -> Any:
    """A plain value: device strings become the side's device, dtype strings dtypes, and
    strings that are Python literals ('(384,)') those literals."""
    if not isinstance(v, str):
        return v
    if _DEVICE_STRING.match(v) or v == device:
        return device
    if v.startswith("torch.") and fmt.dtype_name(v) in fmt.DTYPES:
        return torch_dtype(v)
    try:
        return ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return v


def storage(t: fmt.TensorSpec, seed: int):
    """The CPU backing storage (1-D) for one spec, filled per its init from a seeded generator."""
    import torch

    dtype = torch_dtype(t.dtype)
    n = t.storage_size if t.storage_size is not None else t.needed_storage()
    g = torch.Generator().manual_seed(seed)
    a = t.init_args
    if t.init in ("zeros", "ones", "full"):
        fill = {"zeros": 0, "ones": 1}.get(t.init, a.fill_value)
        return torch.full((n,), fill, dtype=dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, (n,), generator=g).bool()
    if not (dtype.is_floating_point or dtype.is_complex):
        low, high = int(a.low or 0), int(a.high if a.high is not None else 10)
        return torch.randint(low, max(high, low + 1), (n,), generator=g, dtype=dtype)
    if t.init == "randn":
        data = torch.randn((n,), generator=g)
    elif t.init == "xavier":
        fan_in = t.shape[-1] if t.shape else 1
        fan_out = t.shape[-2] if len(t.shape) > 1 else fan_in
        bound = math.sqrt(6.0 / max(fan_in + fan_out, 1))
        data = torch.rand((n,), generator=g) * 2 * bound - bound
    else:
        low, high = float(a.low or 0.0), float(a.high if a.high is not None else 1.0)
        data = low + (high - low) * torch.rand((n,), generator=g)
    backing = data.to(dtype)
    if t.init in ("arange", "eye"):
        view = backing.as_strided(t.shape, t.strides, t.storage_offset)
        pattern = (
            torch.arange(view.numel()).reshape(t.shape) if t.init == "arange" else torch.eye(*t.shape[:2])
        )
        if _non_overlapping(t):
            view.copy_(pattern.to(dtype))
    return backing


def _non_overlapping(t: fmt.TensorSpec) -> bool:
    dims = sorted((st, s) for s, st in zip(t.shape, t.strides) if s > 1)
    reach = 1
    for st, s in dims:
        if st < reach:
            return False
        reach = st * s
    return True


def on(backing, t: fmt.TensorSpec, device: str):
    """The spec's view of a copy of `backing` on `device` (a spec saying cpu stays on cpu)."""
    target = "cpu" if (t.device or "").startswith("cpu") else device
    copied = backing.clone() if target == "cpu" else backing.to(target)
    return copied.as_strided(t.shape, t.strides, t.storage_offset)


# ---------------------------------------------------------------- one case


@dataclass(frozen=True)
class Case:
    """One recorded call, resolved: what the OpInfo and the report need."""

    name: str  # the callable path as written
    model: str
    index: int  # 1-based among the entry's cases of the same callable
    owner: Loc  # the entry that wrote it
    loc: Loc  # its own line
    inputs: fmt.SampleInputs
    tags: tuple[str, ...]
    description: Optional[str]
    precision: Optional[tuple[float, float]]
    seed: int

    @property
    def short(self) -> str:
        return fmt.short_name(self.name)

    @property
    def variant(self) -> str:
        return f"{re.sub(r'[^0-9A-Za-z]', '_', self.model)}_{self.index}"

    @property
    def full_name(self) -> str:
        return f"{self.short}.{self.variant}"

    @property
    def dtype(self) -> str:
        """The case's dtype (marks, precision): its first floating tensor's, else its first tensor's."""
        names = [fmt.dtype_name(t.dtype or "float32") for _, t in self.inputs.tensor_specs()]
        names = [str(torch_dtype(n)).removeprefix("torch.") for n in names if n in fmt.DTYPES]
        floating = [n for n in names if n.startswith(("float", "bfloat", "complex"))]
        return (floating or names or ["float32"])[0]

    @property
    def marks(self) -> tuple[str, ...]:
        return (mark_name("model__", self.model), mark_name("op__", self.short), *self.tags)

    def sample(self, device: str):
        """(args, kwargs) of the call on one side: 'cpu' (reference) or the device."""

        def arg(spec: fmt.ArgSpec, slot: int) -> Any:
            if spec.kind == "tensor":
                return on(storage(spec.tensor, self.seed + 1000 * slot), spec.tensor, device)
            if spec.kind == "tensor_list":
                return [
                    on(storage(t, self.seed + 1000 * slot + j), t, device)
                    for j, t in enumerate(spec.tensor_list)
                ]
            if spec.kind == "py":
                return py_literal(spec.py)
            return value(spec.value, device)

        args = [arg(a, i) for i, a in enumerate(self.inputs.args)]
        kwargs = {}
        for k, (key, v) in enumerate(self.inputs.kwargs.items()):
            kwargs[key] = arg(v, len(args) + k) if isinstance(v, fmt.ArgSpec) else value(v, device)
        if self.short in ("getitem", "setitem") and len(args) > 1 and isinstance(args[1], list):
            args[1] = tuple(args[1])  # x[a, b] records its index as a tensor_list; a list index means else
        if self.short.endswith("dropout") and "training" not in kwargs and len(args) < 3:
            kwargs["training"] = False  # the model ran in eval mode; random masks never compare
        return args, kwargs


def cases_of(rule: Rule, seed: int) -> list[Case]:
    """The model-op cases an entry writes, numbered per callable (torch.add -> add.<model>_1, _2...)."""
    model = fmt.model_of(list(rule.entry.tags), _stem(rule.loc.file))
    seen: dict[str, int] = {}
    out = []
    for item in model_cases(rule.entry):
        short = fmt.short_name(item.name)
        seen[short] = seen.get(short, 0) + 1
        prec = (item.precision.atol, item.precision.rtol) if item.precision else None
        out.append(
            Case(
                item.name,
                model,
                seen[short],
                rule.loc,
                Loc(rule.loc.file, item.source_line or rule.loc.line),
                item.sample_inputs_func,
                tuple(item.tags),
                item.description,
                prec,
                seed,
            )
        )
    return out


def _stem(path: str) -> str:
    import os

    return os.path.splitext(os.path.basename(path))[0]


def plan_seed(plan: Plan) -> int:
    ic = plan.setting("input_config")
    return ic.seed if ic is not None and ic.seed is not None else 0


def all_cases(plan: Plan) -> list[Case]:
    seed = plan_seed(plan)
    return [c for fp in plan.files for rule in fp.rules for c in cases_of(rule, seed)]


# ---------------------------------------------------------------- configure time


def callable_problems(plan: Plan) -> list[Problem]:
    """Cases naming no callable: a warning with file:line (the case skips with the same reason)."""
    out = []
    for case in all_cases(plan):
        try:
            resolve(case.name)
        except LookupError as exc:
            out.append(Problem(case.loc, "edits.ops.include", f"{exc}: the case skips"))
    return out


def mark_lines(plan: Plan) -> list[str]:
    """Marker registrations for every case's marks (so -W error::PytestUnknownMarkWarning holds)."""
    names: set[str] = set()
    for case in all_cases(plan):
        names.add(mark_name("op__", case.full_name))
        names.update(case.marks)
    return [f"{n}: model-op case mark" for n in sorted(names)]


# ---------------------------------------------------------------- generation time


def skip_reason(case: Case, rule: Rule, support: Support, device: str) -> Optional[str]:
    """Why the case cannot run here (None: it can)."""
    problems = fmt.problems(case.inputs)
    if problems:
        return f"bad case ({case.loc}): {problems[0]}"
    try:
        resolve(case.name)
    except LookupError as exc:
        return f"bad case ({case.loc}): {exc}"
    for where, t in case.inputs.tensor_specs():
        if (t.device or "").startswith("cpu"):
            continue
        name = str(torch_dtype(t.dtype)).removeprefix("torch.")
        if not dtype_allowed(support, rule, None, name):
            return f"{UNSUPPORTED}{device} lacks dtype {name} ({where})"
    return None


def op_infos(rules: Iterable[Rule], support: Support, device: str, seed: int) -> list:
    """One ModelOpInfo per case the rules write (the rules naming the test being generated)."""
    return [
        _op_info(case, skip_reason(case, rule, support, device))
        for rule in rules
        for case in cases_of(rule, seed)
    ]


def _op_info(case: Case, reason: Optional[str]):
    import unittest

    from torch.testing._internal.opinfo.core import DecorateInfo, OpInfo

    try:
        fn = resolve(case.name)
    except LookupError:
        fn = _unresolved(case.name)

    def sample_inputs(op, device, dtype, requires_grad, **kwargs):
        from torch.testing._internal.opinfo.core import SampleInput

        args, kw = case.sample(str(device))
        yield SampleInput(args[0] if args else None, args=tuple(args[1:]), kwargs=kw)

    info = OpInfo(
        case.short,
        variant_test_name=case.variant,
        op=fn,
        aten_name=case.name,
        dtypes=(torch_dtype(case.dtype),),
        sample_inputs_func=sample_inputs,
        supports_out=False,
        supports_autograd=False,
        decorators=(DecorateInfo(unittest.skip(reason)),) if reason else (),
    )
    info.oot_case = case
    info.oot_inplace = is_inplace(case.name)
    return info


def _unresolved(name: str) -> Callable:
    def call(*args, **kwargs):
        raise LookupError(f"unknown callable '{name}'")

    return call


def variant_fields(op: Any) -> dict:
    """The Variant fields a model-op case carries (selection.Variant: owner, tags, recorded)."""
    case = getattr(op, "oot_case", None)
    if case is None:
        return {}
    return {"owner": case.owner, "tags": case.marks, "recorded": True}


# ---------------------------------------------------------------- run time


def case_outcome(exc: Optional[BaseException], case: str = "", dtype: str = "") -> list[tuple[str, Any]]:
    """JUnit properties of one case's call: its kind (testing/results/models.py) and, for a
    numerical mismatch, the largest errors. A device refusal (NotImplementedError, or an error
    saying the device does not support an op or dtype) and a skip saying so are `unsupported`,
    with `case_reason` naming the refused op and dtype (refusal())."""
    if exc is None:
        return [("case_outcome", "passed")]
    while exc.__cause__ is not None and type(exc) is Exception:  # torch's "Caused by sample input" wrapper
        exc = exc.__cause__
    text = str(exc)
    if type(exc).__name__ in ("Skipped", "SkipTest"):
        if not text.startswith(UNSUPPORTED):
            return [("case_outcome", "skipped")]
        return [
            ("case_outcome", "unsupported"),
            ("case_reason", refusal(text[len(UNSUPPORTED) :], case, dtype)),
        ]
    mismatch = getattr(exc, "oot_mismatch", None)
    if mismatch:
        return [("case_outcome", "mismatched"), *((k, f"{v:.6g}") for k, v in mismatch.items())]
    if isinstance(exc, NotImplementedError) or re.search(r"(not supported|does not support)", text):
        return [("case_outcome", "unsupported"), ("case_reason", refusal(text, case, dtype))]
    return [("case_outcome", "failed")]


_ATEN_OP = re.compile(r"aten::[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?")


def refusal(text: str, case: str, dtype: str) -> str:
    """'unsupported: aten::<op> (<dtype>): <the device's first line>': the op the device refused
    (the aten op its message names, else the case) and the case's dtype, for every surface."""
    found = _ATEN_OP.search(text)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")[:200]
    return f"{UNSUPPORTED}{found.group(0) if found else case} ({dtype or '?'}): {first}"
