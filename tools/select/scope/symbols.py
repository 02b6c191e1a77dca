"""Static symbols of a test file, read with ``ast`` (nothing is imported or executed).

For each test: class, name, line, decorators, how it is parametrised (ops / modules / dtypes /
plain), the op list expression, literal dtypes, the features its body touches, and a content
hash covering the code that decides its behaviour.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from tools.errors import SelectError

# Feature detection: a name or attribute seen in the code -> the feature it implies.
FEATURE_MARKERS: dict[str, str] = {
    "backward": "autograd",
    "requires_grad": "autograd",
    "gradcheck": "autograd",
    "gradgradcheck": "autograd",
    "grad": "autograd",
    "supports_autograd": "autograd",
    "compile": "compile",
    "_dynamo": "compile",
    "_inductor": "compile",
    "make_fx": "compile",
    "distributed": "distributed",
    "DistributedTestBase": "distributed",
    "MultiProcessTestCase": "distributed",
    "to_sparse": "sparse",
    "sparse_coo_tensor": "sparse",
    "sparse_csr_tensor": "sparse",
    "quantize_per_tensor": "quantized",
    "quantized": "quantized",
    "jit": "jit",
    "script": "jit",
    "cuda": "cuda_specific",
    "onlyCUDA": "cuda_specific",
    "complex64": "complex",
    "complex128": "complex",
}

PARAMETRIZERS = {
    "ops": "ops",
    "modules": "modules",
    "dtypes": "dtypes",
    "dtypesIfCPU": "dtypes",
    "dtypesIfPRIVATEUSE1": "dtypes",
    "parametrize": "parametrize",
}


@dataclass(frozen=True)
class TestSymbol:
    file: str
    cls: str
    name: str
    lineno: int
    decorators: tuple[str, ...]
    kind: str  # ops | modules | dtypes | parametrize | plain
    op_list: str  # source of the @ops/@modules first argument, '' otherwise
    dtypes: tuple[str, ...]  # literal dtypes from @dtypes(...)
    features: tuple[str, ...]
    docstring: str
    source: str
    content_hash: str

    @property
    def test_id(self) -> str:
        return f"{self.file}::{self.cls}::{self.name}"


@dataclass(frozen=True)
class ClassSymbol:
    file: str
    name: str
    lineno: int
    bases: tuple[str, ...]
    device_generic: bool  # passed to instantiate_device_type_tests
    features: tuple[str, ...]
    tests: tuple[TestSymbol, ...] = field(default=())


@dataclass(frozen=True)
class FileSymbols:
    path: str
    content_hash: str
    imports: tuple[str, ...]
    features: tuple[str, ...]
    classes: tuple[ClassSymbol, ...]
    docstring: str

    @property
    def tests(self) -> list[TestSymbol]:
        return [t for c in self.classes for t in c.tests]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


def _features(node: ast.AST) -> set[str]:
    """Features the code uses. Decorators are not looked at: ``@dtypes(torch.complex64, ...)``
    generates complex variants among others, it does not make the whole test complex."""
    found = set()
    roots = node.body if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else [node]
    for sub in (n for root in roots for n in ast.walk(root)):
        word = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else None
        if word in FEATURE_MARKERS:
            found.add(FEATURE_MARKERS[word])
        if (
            isinstance(sub, ast.keyword)
            and sub.arg == "requires_grad"
            and not (isinstance(sub.value, ast.Constant) and sub.value.value is False)
        ):
            found.add("autograd")
    return found


def _dtype_literals(call: ast.Call) -> list[str]:
    names = []
    for arg in call.args:
        for sub in ast.walk(arg):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "torch":
                names.append(sub.attr)
    return names


def _parametrisation(func: ast.FunctionDef, text: str) -> tuple[str, str, list[str]]:
    kind, op_list, dtypes = "plain", "", []
    for dec in func.decorator_list:
        base = _dotted(dec).rsplit(".", 1)[-1]
        if base not in PARAMETRIZERS:
            continue
        role = PARAMETRIZERS[base]
        if role in ("ops", "modules") and isinstance(dec, ast.Call) and dec.args:
            kind, op_list = role, ast.get_source_segment(text, dec.args[0]) or ""
        elif role == "dtypes" and isinstance(dec, ast.Call):
            dtypes.extend(_dtype_literals(dec))
            kind = kind if kind in ("ops", "modules") else "dtypes"
        elif role == "parametrize" and kind == "plain":
            kind = "parametrize"
    return kind, op_list, sorted(set(dtypes))


def _module_functions(tree: ast.Module, text: str) -> dict[str, str]:
    return {
        n.name: ast.get_source_segment(text, n) or ""
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _referenced_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _loop_names(tree: ast.Module) -> dict[str, set[str]]:
    """``for c in (TestA, TestB): instantiate...(c, ...)``: loop variable -> class names."""
    loops: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.For)
            and isinstance(node.target, ast.Name)
            and isinstance(node.iter, (ast.Tuple, ast.List))
        ):
            loops.setdefault(node.target.id, set()).update(
                e.id for e in node.iter.elts if isinstance(e, ast.Name)
            )
    return loops


def _instantiated_classes(tree: ast.Module) -> set[str]:
    found, loops = set(), _loop_names(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and _dotted(node.func).endswith("instantiate_device_type_tests")
            and node.args
        ):
            if isinstance(node.args[0], ast.Name):
                found.add(node.args[0].id)
                found |= loops.get(node.args[0].id, set())
    return found


def _segment_with_decorators(text: str, node: ast.FunctionDef) -> str:
    lines = text.splitlines()
    start = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
    return "\n".join(lines[start : node.end_lineno])


def _test_symbol(
    rel: str, cls: ast.ClassDef, func: ast.FunctionDef, text: str, helpers: str, module_funcs: dict[str, str]
) -> TestSymbol:
    source = _segment_with_decorators(text, func)
    # The hash covers what decides behaviour: the test, its class's helpers and the
    # module-level functions it calls by name (one level), but not unrelated tests.
    called = sorted(_referenced_names(func) & module_funcs.keys())
    hashed = "\n".join([source, helpers] + [module_funcs[n] for n in called])
    kind, op_list, dtypes = _parametrisation(func, text)
    return TestSymbol(
        file=rel,
        cls=cls.name,
        name=func.name,
        lineno=func.lineno,
        decorators=tuple(ast.get_source_segment(text, d) or "" for d in func.decorator_list),
        kind=kind,
        op_list=op_list,
        dtypes=tuple(dtypes),
        features=tuple(sorted(_features(func))),
        docstring=ast.get_docstring(func) or "",
        source=source,
        content_hash=sha256(hashed),
    )


def _is_test_class(node: ast.ClassDef) -> bool:
    return any(_dotted(b).endswith(("TestCase", "TestBase")) for b in node.bases) or node.name.startswith(
        "Test"
    )


def parse_source(text: str, rel: str) -> FileSymbols:
    try:
        tree = ast.parse(text, filename=rel)
    except SyntaxError as exc:
        raise SelectError(f"{rel}:{exc.lineno}: cannot parse test file ({exc.msg})") from exc
    module_funcs = _module_functions(tree, text)
    instantiated = _instantiated_classes(tree)
    imports = sorted(
        {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        | {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    )
    classes = []
    for node in tree.body:
        if not (isinstance(node, ast.ClassDef) and _is_test_class(node)):
            continue
        methods = [m for m in node.body if isinstance(m, ast.FunctionDef)]
        helpers = "\n".join(
            ast.get_source_segment(text, m) or "" for m in methods if not m.name.startswith("test")
        )
        tests = tuple(
            _test_symbol(rel, node, m, text, helpers, module_funcs)
            for m in methods
            if m.name.startswith("test")
        )
        classes.append(
            ClassSymbol(
                file=rel,
                name=node.name,
                lineno=node.lineno,
                bases=tuple(_dotted(b) for b in node.bases),
                device_generic=node.name in instantiated,
                features=tuple(sorted(_features(node))),
                tests=tests,
            )
        )
    file_features = set()
    for name in imports:
        for word, feature in FEATURE_MARKERS.items():
            if word in name.split("."):
                file_features.add(feature)
    return FileSymbols(
        rel,
        sha256(text),
        tuple(imports),
        tuple(sorted(file_features)),
        tuple(classes),
        ast.get_docstring(tree) or "",
    )


def parse_file(path: Path, rel: str) -> FileSymbols:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SelectError(f"{path}: cannot read test file ({exc})") from exc
    return parse_source(text, rel)
