"""The config contract's concern: it may import the stdlib, pydantic, ruamel.yaml, itself,
the ground floor testing.base (standard library only: the writer's atomic writes, ConfigError),
testing.results and testing.yamldoc (the one YAML reader) (config/README.md), so every
tool can read configs without torch, pytest or each other."""

import ast
import sys
from pathlib import Path

ALLOWED = {"pydantic", "ruamel", "testing"}


def test_config_imports_only_what_its_readme_allows():
    here = Path(__file__).resolve().parents[1]
    found = {}
    for path in here.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "__future__":
                    continue
                if top not in ALLOWED or (
                    top == "testing"
                    and not name.startswith(
                        ("testing.base", "testing.config", "testing.results", "testing.yamldoc")
                    )
                ):
                    found.setdefault(path.name, []).append(name)
    assert found == {}
