"""The plugin's modules import each other without a cycle (promotion <-> reporting was one)."""

import ast
from pathlib import Path

PLUGIN = Path(__file__).resolve().parents[1]


def imports_of(path: Path) -> set[str]:
    """Plugin modules `path` imports at module level or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "testing.plugin":
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("testing.plugin."):
            out.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[2] for a in node.names if a.name.startswith("testing.plugin.")}
    return out


def test_no_import_cycle_among_plugin_modules():
    graph = {p.stem: imports_of(p) & {q.stem for q in PLUGIN.glob("*.py")} for p in PLUGIN.glob("*.py")}
    graph.pop("__init__")  # the entry point re-exports plugin.py's hooks
    state: dict[str, str] = {}
    cycles = []

    def visit(node, path):
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == "open":
                cycles.append(path[path.index(dep) :] + [dep])
            elif dep not in state:
                visit(dep, path + [dep])
        state[node] = "done"

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert cycles == []
