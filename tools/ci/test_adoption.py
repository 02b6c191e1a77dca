"""docs/adopting.md followed as a new user would: the wheels Bazel built, a clean venv, no Bazel
and no checkout on sys.path; the blocks of the guide marked `<!-- adoption-test: NAME -->`
run as written (files are written, shell blocks run in bash from the adopter's repository).

The adopter's repository holds the wheels, the guide's configs, an upstream-style test file
and its own device (tools/ci/adoption: C++ built with g++ by the guide's build block). Then
the CPU device and the acme device each run their tests, select by marks, and report a
CRCR cycle to the relay emulator (from its wheel); the HUD page shows both cells green.
"""

import json
import os
import re
import shutil
import subprocess
import urllib.request
from pathlib import Path

import pytest

from testing.tests.clean_venv import make_venv, stop, wheel_from_env
from tools.ci import adoption_guide
from tools.ci.adoption_guide import DEVICE_SOURCES, GUIDE, WANTED_BLOCKS, WORKFLOW

SUITE = Path("testing/tests/wheel_suite/ops_suite.py")  # the upstream-style test file
WHEEL_VARS = ("RESULTS_WHEEL", "PLUGIN_WHEEL", "CLIENT_WHEEL", "EMULATOR_WHEEL")


def guide_blocks() -> dict[str, str]:
    blocks = adoption_guide.guide_blocks(GUIDE.read_text(encoding="utf-8"))
    assert WANTED_BLOCKS <= set(blocks), (
        f"docs/adopting.md lacks the blocks {sorted(WANTED_BLOCKS - set(blocks))}"
    )
    return blocks


@pytest.fixture(scope="module")
def adopter(tmp_path_factory):
    """The adopter's repository and the clean venv its CI job uses."""
    root = tmp_path_factory.mktemp("adoption")
    venv = make_venv(root)
    repo = root / "acme-torch"
    (repo / "ci" / "wheels").mkdir(parents=True)
    for var in WHEEL_VARS:
        shutil.copy(wheel_from_env(var), repo / "ci" / "wheels")
    shutil.copytree(DEVICE_SOURCES, repo, dirs_exist_ok=True)
    (repo / "test").mkdir()
    shutil.copy(SUITE, repo / "test" / "test_acme_ops.py")
    blocks = guide_blocks()
    for name, text in blocks.items():
        if "/" in name or name.endswith((".json", ".yaml")):
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text + "\n")
    return venv, repo, blocks


def bash(venv, repo: Path, script: str, timeout: float = 900, **env) -> subprocess.CompletedProcess:
    # the guide installs from ci/wheels with the adopter's index; here there is none
    return venv.run(
        "bash", "-euo", "pipefail", "-c", script, cwd=repo, timeout=timeout, env={"PIP_NO_INDEX": "1", **env}
    )


@pytest.fixture(scope="module")
def installed(adopter):
    venv, repo, blocks = adopter
    result = bash(venv, repo, blocks["install"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "oot-ci-testing-0.1.0" in result.stdout
    assert not (venv.site / "testing").exists()
    return result


@pytest.fixture(scope="module")
def built(adopter, installed):
    venv, repo, blocks = adopter
    result = bash(venv, repo, blocks["build"])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "tensor([2., 2.])" in result.stdout
    return result


@pytest.fixture(scope="module")
def ran(adopter, built):
    venv, repo, blocks = adopter
    return bash(venv, repo, blocks["run"])


def test_the_acme_device_runs_its_configured_tests(adopter, ran):
    _, repo, _ = adopter
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "oot: device=acme configs=2" in ran.stdout
    summary = json.loads((repo / "out" / "summary.json").read_text())
    tests = {t["nodeid"]: t for t in summary["tests"]}
    assert all(n.endswith(("_acme_float32", "_acme_int64")) for n in tests), sorted(tests)
    assert summary["by_bucket"]["mandatory_success"] == {"passed": 6}
    assert {t["outcome"] for t in tests.values() if t["bucket"] == "xfail"} == {"xpassed"}


def test_the_cpu_device_runs_the_same_tests(adopter, ran):
    _, repo, _ = adopter
    assert "oot: device=cpu configs=2" in ran.stdout
    cases = list(
        re.finditer(
            r'<testcase classname="[^"]*" name="([^"]+)"', (repo / "out" / "junit-cpu.xml").read_text()
        )
    )
    assert len(cases) == 8 and all(m.group(1).endswith(("_cpu_float32", "_cpu_int64")) for m in cases)


def test_marks_select_before_generation(ran):
    listed = [line for line in ran.stdout.splitlines() if line.startswith("test/test_acme_ops.py::")]
    assert listed and all("_add_acme_float32" in line for line in listed), listed
    assert "deselected" not in ran.stdout


@pytest.fixture(scope="module")
def emulator(adopter, installed):
    """The guide's emulator block, run in the background on a free port (stopped by PID)."""
    venv, repo, blocks = adopter
    install, start = blocks["emulator"].splitlines()
    assert bash(venv, repo, install).returncode == 0
    proc = subprocess.Popen(
        ["bash", "-c", "exec " + start.replace("--port 8787", "--port 0")],
        cwd=repo,
        env={**venv.env, "PIP_NO_INDEX": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = re.search(r"HUD: (http://127\.0\.0\.1:\d+)/hud", proc.stdout.readline()).group(1)
        said = proc.stdout.readline()
        # the guide's second shell reads the token from the file the emulator wrote; never printed
        assert (
            said.rstrip().endswith("/out/emulator-token") and "request token for acme/acme-torch: in " in said
        ), said
        token = (repo / "out" / "emulator-token").read_text().strip()
        assert len(token) > 8 and token not in said
        yield url
    finally:
        stop(proc)


def test_a_crcr_cycle_reaches_the_hud(adopter, built, emulator):
    venv, repo, blocks = adopter
    url = emulator
    script = blocks["cycle"].replace("http://127.0.0.1:8787", url)
    assert "<" not in script, "the cycle block runs as written: no placeholder to fill in by hand"
    result = bash(venv, repo, script)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stderr.count("delivered (HTTP 200") + result.stdout.count("delivered (HTTP 200") == 4
    with urllib.request.urlopen(f"{url}/api/crcr/results", timeout=30) as answer:
        rows = json.loads(answer.read())
    rows = rows.get("rows", rows) if isinstance(rows, dict) else rows
    cells = {r["job_name"]: r for r in rows if r["downstream_repo"] == "acme/acme-torch"}
    assert set(cells) == {"test-acme-ops", "test-cpu-ops"}, rows
    for cell in cells.values():
        assert (cell["status"], cell["conclusion"]) == ("completed", "success"), cell
        # 6 mandatory passes and 2 xfail entries that pass (promotion candidates): 8 passed
        assert (cell["tests_passed"], cell["tests_failed"], cell["tests_skipped"]) == (8, 0, 0), cell
    with urllib.request.urlopen(f"{url}/crcr/acme/acme-torch", timeout=30) as page:
        html = page.read().decode()
    assert (
        "test-acme-ops" in html and "test-cpu-ops" in html and 'class="sq success"' in html
    )  # a green square per job


def workflow_steps(repo: Path) -> list[tuple[str, str, dict]]:
    from ruamel.yaml import YAML

    steps = adoption_guide.workflow_steps(YAML(typ="safe").load((repo / WORKFLOW).read_text()))
    assert all("${{" not in script for _, script, _ in steps), steps  # dispatch data never in a script
    return steps


def test_the_guide_workflow_runs_as_written(adopter, installed, tmp_path):
    # Its section once installed a backend it never packaged, with no torch or Python step.
    venv, repo, _ = adopter
    filled = {
        "${{ vars.TORCH_INDEX_URL }}": "",  # offline: pip resolves against the pinned packages
        "${{ matrix.feature }}": "ops",
        "${{ github.workspace }}": str(repo),
    }
    steps = workflow_steps(repo)
    assert [name for name, _, _ in steps] == [
        "Install torch (CPU) and the plugin",
        "Build the backend against that torch",
        "Test",
    ]
    for name, script, env in steps:
        env = {k: filled.get(v, v) for k, v in env.items()}
        result = bash(venv, repo, script, RUNNER_TEMP=str(tmp_path), **env)
        assert result.returncode == 0, (name, result.stdout[-3000:] + result.stderr[-3000:])
    cases = re.findall(r"<testcase ", (tmp_path / "junit.xml").read_text())
    assert len(cases) == 8


def test_nothing_of_the_checkout_was_imported(adopter, installed):
    venv, repo, _ = adopter
    probe = "import oot_ci_testing.plugin, crcr, sys; print(oot_ci_testing.plugin.__path__[0]); print(crcr.__file__)"
    result = venv.py("-c", probe, cwd=repo)
    assert result.returncode == 0, result.stderr
    assert all(Path(line).is_relative_to(venv.site) for line in result.stdout.split()), result.stdout
    assert os.environ.get("TEST_SRCDIR") is None or str(venv.site) not in os.environ.get("PYTHONPATH", "")
