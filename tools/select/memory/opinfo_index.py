"""Static index of OpInfo definitions in a ``torch/testing/_internal`` tree (via ``ast``).

Used twice: to key traces by the definition of the op a test variant exercises (so a changed
sample-input function re-traces exactly the affected variants), and to diff two PyTorch
versions field by field without importing the newer one.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

# Files that define op_db / python_ref_db entries, relative to torch/testing/_internal.
SOURCES = ("common_methods_invocations.py", "opinfo/definitions")
# Files that only contribute helper functions (sample-input generators live here too).
HELPER_SOURCES = ("opinfo",)

# Keyword arguments that only concern devices a privateuse1 backend never is.
FOREIGN_DEVICE_FIELDS = frozenset(
    {
        "dtypesIfCUDA",
        "dtypesIfROCM",
        "dtypesIfXPU",
        "dtypesIfMPS",
        "dtypesIfHpu",
        "backward_dtypesIfCUDA",
        "backward_dtypesIfROCM",
        "backward_dtypesIfXPU",
        "backward_dtypesIfHpu",
        "backward_dtypesIfMPS",
    }
)
DECORATOR_FIELDS = ("skips", "decorators")
SAMPLE_FIELDS = (
    "sample_inputs_func",
    "reference_inputs_func",
    "error_inputs_func",
    "sample_inputs_sparse_coo_func",
    "ref",
)


class Source:
    """Source text with line offsets, so segments are O(1) (ast.get_source_segment re-splits
    the whole 27k-line file on every call)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.offsets = [0]
        for line in self.lines:
            self.offsets.append(self.offsets[-1] + len(line.encode("utf-8")))
        self.data = text.encode("utf-8")

    def segment(self, node: ast.AST | None) -> str | None:
        if node is None or getattr(node, "end_lineno", None) is None:
            return None
        start = self.offsets[node.lineno - 1] + node.col_offset
        end = self.offsets[node.end_lineno - 1] + node.end_col_offset
        return self.data[start:end].decode("utf-8")


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Decoration:
    """One DecorateInfo: what it does and where it applies."""

    action: str  # source of the decorator(s), e.g. "unittest.expectedFailure"
    cls_name: str | None
    test_name: str | None
    device_type: tuple[str, ...] | None
    dtypes: str | None  # source of the dtypes argument
    active_if: str | None

    def applies_to(self, cls_name: str, test_name: str, device_types: tuple[str, ...]) -> bool:
        if self.cls_name and self.cls_name != cls_name:
            return False
        if self.test_name and self.test_name != test_name:
            return False
        return self.device_type is None or any(d in self.device_type for d in device_types)

    @property
    def kind(self) -> str:
        text = self.action
        if "expectedFailure" in text or "xfail" in text:
            return "xfail"
        if "skip" in text.lower():
            return "skip"
        if "toleranceOverride" in text or "precisionOverride" in text:
            return "tolerance"
        return "other"


@dataclass(frozen=True)
class OpDef:
    full_name: str
    file: str
    lineno: int
    source_hash: str
    fields: dict[str, str]  # kwarg -> hash of its source
    samples: dict[str, str]  # sample/reference function name -> hash of its code
    decorations: tuple[Decoration, ...] = field(default=())
    dtype_sources: dict[str, str] = field(default_factory=dict)  # dtypes-like kwarg -> source

    @property
    def definition_hash(self) -> str:
        """Covers the call and the code of its sample functions: what a trace depends on."""
        return _hash(self.source_hash + "".join(f"{k}{v}" for k, v in sorted(self.samples.items())))


def _const_str(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _kw(call: ast.Call, name: str, position: int | None = None) -> ast.AST | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    if position is not None and len(call.args) > position:
        return call.args[position]
    return None


def _callee(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _decoration(call: ast.Call, text: "Source") -> Decoration:
    seg = text.segment
    device = _kw(call, "device_type", 3)
    devices = None
    if device is not None:
        if isinstance(device, (ast.Tuple, ast.List)):
            devices = tuple(filter(None, (_const_str(e) for e in device.elts)))
        elif _const_str(device) is not None:
            devices = (_const_str(device),)
        else:
            devices = ("<dynamic>",)
    return Decoration(
        action=seg(call.args[0]) if call.args else "",
        cls_name=_const_str(_kw(call, "cls_name", 1)),
        test_name=_const_str(_kw(call, "test_name", 2)),
        device_type=devices,
        dtypes=seg(_kw(call, "dtypes", 4)),
        active_if=seg(_kw(call, "active_if")),
    )


def _decorations(call: ast.Call, text: "Source") -> tuple[Decoration, ...]:
    found = []
    for name in DECORATOR_FIELDS:
        value = _kw(call, name)
        if value is None:
            continue
        for sub in ast.walk(value):
            if isinstance(sub, ast.Call) and _callee(sub.func) == "DecorateInfo":
                found.append(_decoration(sub, text))
    return tuple(found)


def _function_index(trees: list[tuple[str, ast.Module, "Source"]]) -> dict[str, str]:
    """Module-level function name -> hash of its code and of the module functions it calls."""
    bodies: dict[str, tuple[str, set[str]]] = {}
    for _, tree, text in trees:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                refs = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                bodies[node.name] = (text.segment(node) or "", refs)
    return {
        name: _hash(src + "".join(sorted(bodies[r][0] for r in refs if r in bodies and r != name)))
        for name, (src, refs) in bodies.items()
    }


def _entry(call: ast.Call, rel: str, text: "Source", functions: dict[str, str]) -> OpDef | None:
    name = _const_str(call.args[0]) if call.args else _const_str(_kw(call, "name"))
    if name is None:
        return None
    variant_node = _kw(call, "variant_test_name")
    # Generated families (f-string variant names) are keyed "<name>.*"; see lookup().
    variant = (
        "*"
        if variant_node is not None and _const_str(variant_node) is None
        else _const_str(variant_node) or ""
    )
    full = f"{name}.{variant}" if variant else name
    fields = {kw.arg: _hash(ast.dump(kw.value)) for kw in call.keywords if kw.arg}
    samples = {}
    for sample_field in SAMPLE_FIELDS:
        value = _kw(call, sample_field)
        for sub in ast.walk(value) if value is not None else ():
            if isinstance(sub, ast.Name) and sub.id in functions:
                samples[sub.id] = functions[sub.id]
    dtype_sources = {
        kw.arg: text.segment(kw.value) or "" for kw in call.keywords if kw.arg and "dtypes" in kw.arg
    }
    return OpDef(
        full,
        rel,
        call.lineno,
        _hash(ast.dump(call)),
        fields,
        samples,
        _decorations(call, text),
        dtype_sources,
    )


def _op_db_lists(tree: ast.Module):
    """The list literals assigned (or +=) to a module-level name ``op_db``."""
    for node in tree.body:
        target = getattr(node, "target", None) or (node.targets[0] if isinstance(node, ast.Assign) else None)
        if (
            isinstance(target, ast.Name)
            and target.id == "op_db"
            and isinstance(node.value, (ast.List, ast.Tuple))
        ):
            yield node.value


def _top_level_infos(tree: ast.Module):
    """*Info(...) entries of op_db lists (not nested DecorateInfo, not other databases)."""
    for literal in _op_db_lists(tree):
        for elt in literal.elts:
            target = elt.value if isinstance(elt, ast.Starred) else elt
            for sub in ast.walk(target):  # starred generators hold the call one level down
                if (
                    isinstance(sub, ast.Call)
                    and _callee(sub.func).endswith("Info")
                    and _callee(sub.func) != "DecorateInfo"
                ):
                    yield sub
                    break


def source_files(internal: Path, entries=SOURCES) -> list[Path]:
    files = []
    for entry in entries:
        path = internal / entry
        files.extend(sorted(path.glob("*.py")) if path.is_dir() else [path] if path.exists() else [])
    return files


def build_index(internal: Path) -> dict[str, OpDef]:
    """full_name -> OpDef for every statically named entry (python refs keep their '_refs.' names)."""
    trees, helpers = [], []
    for path in source_files(internal) + source_files(internal, HELPER_SOURCES):
        rel = str(path.relative_to(internal))
        text = path.read_text(encoding="utf-8")
        (helpers if any(rel == t[0] for t in trees) else trees).append((rel, ast.parse(text), Source(text)))
    functions = _function_index(helpers + trees)
    index: dict[str, OpDef] = {}
    for rel, tree, text in trees:
        for call in _top_level_infos(tree):
            entry = _entry(call, rel, text, functions)
            if (
                entry is not None
                and "PythonRef" not in _callee(call.func)
                and not entry.full_name.startswith("_refs")
            ):
                index.setdefault(entry.full_name, entry)
    return index


def installed_internal() -> Path:
    import torch.testing._internal as internal

    return Path(internal.__file__).parent


def lookup(index: dict[str, OpDef], full_name: str) -> OpDef | None:
    """Exact entry, else the generated family it belongs to (``polygamma.polygamma_n_1`` ->
    ``polygamma.*``), else None (names built by helper functions are not statically known)."""
    if full_name in index:
        return index[full_name]
    head = full_name.split(".", 1)[0]
    return index.get(f"{head}.*")
