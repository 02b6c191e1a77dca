"""//testing:plugin_wheel is what another backend installs: pip install, then `pytest --config`.

The wheel (with the shared //testing:results_wheel it requires) goes into a fresh venv in the test's tmp dir with `pip install --no-index`, whose
resolver must find every Requires-Dist among the pinned packages (reachable through a .pth,
the only thing the venv shares with this process), so no network is used and a wrong or
missing requirement fails the install. The venv's pytest then runs a small upstream-style
suite on CPU without `-p`: the pytest11 entry point loads the plugin.
"""

import ast
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from testing.tests.clean_venv import make_venv

SUITE = Path(__file__).parent / "wheel_suite"
SCHEMA = Path("configs/schema/test_suite_config.schema.json")
# torch.testing._internal imports these without torch declaring them; pytest-timeout
# backs --oot-timeout (the plugin only asks pytest whether it is loaded).
INDIRECT = {"expecttest", "numpy", "pytest-timeout"}
# The installed name of the repository's `testing` (tools/build/defs.bzl WHEEL_RENAMES).
PACKAGE = "oot_ci_testing"
SHARED = {"oot-ci-results"}  # the shared wheel: oot_ci_testing.base, .results, .yamldoc


def results_wheel() -> Path:
    value = os.environ.get("RESULTS_WHEEL")
    if not value:
        pytest.skip("RESULTS_WHEEL is not set (the Bazel target //testing:plugin_wheel_test sets it)")
    return Path(value)


def wheel_path() -> Path:
    value = os.environ.get("PLUGIN_WHEEL")
    if not value:
        pytest.skip("PLUGIN_WHEEL is not set (the Bazel target //testing:plugin_wheel_test sets it)")
    path = Path(value)
    assert path.is_file(), f"PLUGIN_WHEEL={value} does not exist"
    return path


def wheel_text(suffix: str) -> str:
    with zipfile.ZipFile(wheel_path()) as whl:
        return whl.read(next(n for n in whl.namelist() if n.endswith(suffix))).decode()


def requires_dist() -> dict[str, Requirement]:
    reqs = [
        Requirement(line.split(":", 1)[1].strip())
        for line in wheel_text(".dist-info/METADATA").splitlines()
        if line.startswith("Requires-Dist:")
    ]
    return {canonicalize_name(r.name): r for r in reqs}


def third_party_imports(sources: dict[str, str]) -> set[str]:
    """Top-level modules the sources import, minus the stdlib and the package itself."""
    names = set()
    for text in sources.values():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {PACKAGE, "__future__"}


def test_wheel_holds_the_plugin_and_its_schema_only():
    with zipfile.ZipFile(wheel_path()) as whl:
        names = set(whl.namelist())
        packaged_schema = whl.read(f"{PACKAGE}/plugin/test_suite_config.schema.json").decode()
    code = {n for n in names if ".dist-info/" not in n and not n.endswith(".json")}
    # The modules of //testing:plugin (its sources are this test's data) under the installed
    # name, without testing/results and testing/yamldoc (the shared wheel's) and without a
    # package __init__.
    expected = {
        f"{PACKAGE}/{pkg}/{f.name}"
        for pkg in ("changes", "config", "plugin", "plugin/native", "proposals", "supervisor")
        for f in Path("testing", pkg).glob("*.py")
    }
    assert f"{PACKAGE}/plugin/plugin.py" in expected and code == expected, sorted(code ^ expected)
    shared = (f"{PACKAGE}/base/", f"{PACKAGE}/results/", f"{PACKAGE}/yamldoc/")
    assert not [n for n in names if n.startswith(("configs/", "testing/", *shared))]
    assert packaged_schema == SCHEMA.read_text()


def test_metadata_declares_the_entry_point_and_every_runtime_dependency():
    entry_points = wheel_text(".dist-info/entry_points.txt")
    assert f"[pytest11]\n{PACKAGE}.plugin = {PACKAGE}.plugin\n" in entry_points
    with zipfile.ZipFile(wheel_path()) as whl:
        sources = {n: whl.read(n).decode() for n in whl.namelist() if n.endswith(".py")}
    dists = metadata.packages_distributions()
    imported = {canonicalize_name(d) for m in third_party_imports(sources) for d in dists.get(m, [m])}
    declared = set(requires_dist())
    assert imported <= declared, f"imported but not in Requires-Dist: {sorted(imported - declared)}"
    assert declared - imported == INDIRECT | SHARED
    assert any(f"from {PACKAGE}.results" in text for text in sources.values())
    # every requirement has both bounds
    assert all(r.specifier and any(s.operator == "<" for s in r.specifier) for r in requires_dist().values())


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A clean venv with nothing but the two wheels installed; pinned packages via one .pth."""
    env = make_venv(tmp_path_factory.mktemp("wheel"))
    wheels = (wheel_path().resolve(), results_wheel().resolve())  # pip runs in the venv dir
    install = env.pip("install", "--no-index", "--no-compile", *wheels, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    return env.python, env.env, env.root


def run_in(venv, *args, cwd) -> subprocess.CompletedProcess:
    python, env, _ = venv
    return subprocess.run([str(python), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_pip_sees_every_requirement_satisfied(venv):
    _, _, root = venv
    checked = run_in(venv, "-m", "pip", "check", cwd=root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    shown = run_in(venv, "-m", "pip", "show", "oot-ci-testing", cwd=root)
    assert "Name: oot-ci-testing" in shown.stdout and str(root / "venv") in shown.stdout


def test_the_packaged_schema_validates_an_adopter_config(venv):
    _, _, root = venv
    probe = (
        "import importlib.resources, json, jsonschema, oot_ci_testing.plugin, sys\n"
        "from ruamel.yaml import YAML\n"
        "schema = json.loads(importlib.resources.files('oot_ci_testing.plugin').joinpath('test_suite_config.schema.json').read_text())\n"
        "for path in sys.argv[1:]:\n"
        "    jsonschema.Draft202012Validator(schema).validate(YAML(typ='safe').load(open(path)))\n"
        "print(oot_ci_testing.plugin.__file__)\n"
    )
    result = run_in(venv, "-c", probe, str(SUITE / "device.yaml"), str(SUITE / "ops.yaml"), cwd=root)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).is_relative_to(root / "venv")


@pytest.fixture(scope="module")
def suite_run(venv):
    """An adopter's checkout: its backend module, a device config, a feature config and an
    upstream-style test file; pytest runs in the venv with no -p and no repo on sys.path."""
    _, _, root = venv
    work = root / "adopter"
    work.mkdir()
    for name in ("acme_backend.py", "device.yaml", "ops.yaml"):
        (work / name).write_text((SUITE / name).read_text())
    (work / "test_ops_suite.py").write_text((SUITE / "ops_suite.py").read_text())
    result = run_in(
        venv,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-rA",
        "-W",
        "error::pytest.PytestUnknownMarkWarning",
        "--config",
        "device.yaml",
        "--config",
        "ops.yaml",
        "--oot-summary",
        "out/summary.json",
        "--junitxml",
        "out/junit.xml",
        "test_ops_suite.py",
        cwd=work,
    )
    return result, work


def test_pytest_loads_the_plugin_from_the_entry_point(suite_run):
    result, _ = suite_run
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "oot: device=cpu configs=2" in result.stdout
    assert re.search(r"^plugins: .*\boot-ci-testing-0\.1\.0\b", result.stdout, re.M), result.stdout[:2000]


def test_the_config_decides_what_is_generated(suite_run):
    result, work = suite_run
    summary = json.loads((work / "out" / "summary.json").read_text())
    tests = {t["nodeid"]: t for t in summary["tests"]}
    # acme_backend's table x supported_dtypes only: neg, float64 and the unlisted test never exist.
    assert {t.get("op") for t in tests.values()} == {"add", "mul", "abs", None}
    assert {t.get("dtype") for t in tests.values()} == {"float32", "int64"}
    assert not [n for n in tests if "not_in_any_config" in n or "neg" in n or "float64" in n]
    assert summary["by_bucket"]["mandatory_success"]["passed"] == 6
    assert {t["outcome"] for t in tests.values() if t["bucket"] == "xfail"} == {"xpassed"}
    assert set(summary["promotion_candidates"]) == {n for n, t in tests.items() if t["bucket"] == "xfail"}


def test_junit_carries_the_plugin_marks(suite_run):
    _, work = suite_run
    cases = ET.parse(work / "out" / "junit.xml").getroot().iter("testcase")
    props = [{p.get("name"): p.get("value") for p in case.iter("property")} for case in cases]
    add = [p for p in props if p.get("op") == "add"]
    assert add and all(
        re.search(r"\bop__add\b", p["marks"]) and "bucket__mandatory_success" in p["marks"] for p in add
    )
    assert len(props) == 8 and all(re.search(r"ops\.yaml:\d+$", p["rule"]) for p in props), props


def test_mark_expressions_filter_at_generation_time_and_p_stays_harmless(venv, suite_run):
    _, work = suite_run
    # -p oot_ci_testing.plugin as well: the entry point registers under that name, so it is not loaded twice.
    result = run_in(
        venv,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        f"{PACKAGE}.plugin",
        "-q",
        "--co",
        "--config",
        "device.yaml",
        "--config",
        "ops.yaml",
        "-m",
        "op__mul",
        "test_ops_suite.py",
        cwd=work,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    collected = [line for line in result.stdout.splitlines() if "::" in line]
    assert collected and all("_mul_" in line for line in collected)
    assert "deselected" not in result.stdout


UNCONFIGURED = """import sys


def test_the_entry_point_loaded_nothing_but_the_hooks():
    # the hooks module and its option declarations (pytest only): no config, torch or device code
    assert "oot_ci_testing.plugin.plugin" in sys.modules
    hooks = ("oot_ci_testing.plugin.plugin", "oot_ci_testing.plugin.addoption")
    loaded = sorted(m for m in sys.modules if m.startswith("oot_ci_testing.") and m not in hooks)
    assert loaded == ["oot_ci_testing.plugin"], loaded
    assert "torch" not in sys.modules
"""


def test_without_its_options_the_entry_point_plugin_stays_inactive(venv):
    # Every pytest run in a venv that has the wheel loads the entry point: with no --config
    # (nor any other option of the plugin) it must cost an import of its hooks module only.
    _, _, root = venv
    work = root / "unconfigured"
    work.mkdir()
    (work / "test_unconfigured.py").write_text(UNCONFIGURED)
    result = run_in(venv, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "test_unconfigured.py", cwd=work)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "1 passed" in result.stdout and "oot:" not in result.stdout
    assert re.search(r"^plugins: .*\boot-ci-testing-0\.1\.0\b", result.stdout, re.M)
