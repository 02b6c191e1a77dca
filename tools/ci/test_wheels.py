"""Every wheel of this repository, as Bazel builds it, in one clean venv.

All of them install together with `pip install --no-index` and `pip check` is clean; every
installed file belongs to exactly one of them; no top-level `testing` reaches site-packages.
Each carries the repository's LICENSE and declares it (PEP 639).
Then each is uninstalled in turn: the wheels that do not require it still import and run,
the ones that name it in their Requires-Dist are exactly those `pip check` names, and they
stop working (the requirement is real); reinstalling it makes everything whole again.
"""

import json
import re
import subprocess
import urllib.request
import zipfile
from pathlib import Path

import pytest

from testing.tests.clean_venv import make_venv, stop, wheel_from_env

WHEEL_VARS = ("RESULTS_WHEEL", "PLUGIN_WHEEL", "CLIENT_WHEEL", "EMULATOR_WHEEL", "SPYRE_WHEEL")
TINY_SUITE = "import pytest\n\ndef test_ok():\n    pass\n\n@pytest.mark.xfail(strict=True)\ndef test_fixed():\n    pass\n"


def metadata(wheel: Path) -> dict:
    with zipfile.ZipFile(wheel) as whl:
        text = whl.read(next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    fields: dict = {}
    for line in text.splitlines():
        key, _, value = line.partition(": ")
        fields.setdefault(key, []).append(value)
    return fields


@pytest.fixture(scope="module")
def wheels() -> dict[str, Path]:
    found = {}
    for var in WHEEL_VARS:
        path = wheel_from_env(var)
        found[metadata(path)["Name"][0]] = path
    return found


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheels):
    env = make_venv(tmp_path_factory.mktemp("wheels"))
    installed = env.pip("install", "--no-index", "--no-compile", *wheels.values())
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return env


def direct_requires(wheels: dict[str, Path]) -> dict[str, set[str]]:
    """Which of these wheels each one names in its Requires-Dist."""
    return {
        name: {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0] for r in metadata(path).get("Requires-Dist", [])}
        & set(wheels)
        for name, path in wheels.items()
    }


def requires_of(wheels: dict[str, Path]) -> dict[str, set[str]]:
    """Which of these wheels each one requires, directly or not."""
    closed = {name: set(reqs) for name, reqs in direct_requires(wheels).items()}
    for _ in wheels:
        for name in closed:
            closed[name] |= {d for r in closed[name] for d in closed[r]}
    return closed


def smoke(venv, name: str) -> subprocess.CompletedProcess:
    """Import and run what the wheel `name` ships; returncode 0 when it works."""
    work = venv.root / f"smoke-{name}"
    work.mkdir(exist_ok=True)
    if name == "oot-ci-results":
        code = (
            "from oot_ci_testing.base import atomic, command, errors\n"
            "from oot_ci_testing.results import junit, outcomes\n"
            "from oot_ci_testing.yamldoc import read\n"
            "assert outcomes.tally('xpassed_strict') == 'passed'\n"
            "assert read.parse_yaml('a: [1, 2]\\n', 'x.yml')['a'] == [1, 2]\n"
        )
        return venv.py("-c", code, cwd=work)
    if name == "oot-ci-testing":
        (work / "test_tiny.py").write_text(TINY_SUITE)
        result = venv.py(
            "-m", "pytest", "-p", "no:cacheprovider", "--oot-summary=s.json", "test_tiny.py", cwd=work
        )
        if result.returncode in (0, 1) and (work / "s.json").is_file():
            summary = json.loads((work / "s.json").read_text())
            ok = summary["promotion_candidates"] == ["test_tiny.py::test_fixed"]
            return subprocess.CompletedProcess(result.args, 0 if ok else 3, result.stdout, result.stderr)
        return result
    if name == "crcr-callback":
        return venv.run("crcr-callback", "completed", "--help", cwd=work)
    if name == "crcr-relay-emulator":
        return run_emulator(venv, work)
    if name == "torch-spyre":
        code = "import torch\nx = torch.ones(3, device='spyre') + 1\nassert x.cpu().tolist() == [2.0] * 3\n"
        return venv.py("-c", code, cwd=work)
    raise AssertionError(f"no smoke test for {name}")


def run_emulator(venv, work: Path) -> subprocess.CompletedProcess:
    """Start the emulator on a free port, fetch its HUD page, stop it by its PID."""
    proc = subprocess.Popen(
        ["crcr-relay-emulator", "--port", "0"],
        env=venv.env,
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"HUD: (http://127\.0\.0\.1:\d+)/hud", line)
        if not match:
            proc.kill()
            return subprocess.CompletedProcess(proc.args, 1, line, proc.stderr.read())
        with urllib.request.urlopen(f"{match.group(1)}/hud", timeout=30) as page:
            html = page.read().decode()
        return subprocess.CompletedProcess(proc.args, 0 if "<html" in html.lower() else 4, html, "")
    finally:
        stop(proc)


def test_all_install_together_and_pip_check_is_clean(venv, wheels):
    checked = venv.pip("check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for name in wheels:
        result = smoke(venv, name)
        assert result.returncode == 0, f"{name}: {result.stdout[-2000:]}{result.stderr[-2000:]}"


def test_every_file_ships_in_exactly_one_wheel(venv, wheels):
    owners: dict[str, list[str]] = {}
    for name, path in wheels.items():
        with zipfile.ZipFile(path) as whl:
            for member in whl.namelist():
                if ".dist-info/" not in member:
                    owners.setdefault(member, []).append(name)
    shared = {member: names for member, names in owners.items() if len(names) > 1}
    assert not shared, shared
    top = {member.split("/")[0] for member in owners}
    assert top == {"oot_ci_testing", "crcr", "torch_spyre"}, top
    assert not (venv.site / "testing").exists()
    assert not (venv.site / "oot_ci_testing" / "__init__.py").exists()  # a namespace package


def test_metadata_is_complete(wheels):
    for name, path in wheels.items():
        meta = metadata(path)
        assert meta["Version"] == ["0.1.0"] and meta["Metadata-Version"] == ["2.4"], name
        assert meta["License-Expression"] == ["BSD-3-Clause"] and meta["License-File"] == ["LICENSE"], name
        assert meta.get("Summary") and meta.get("Requires-Python") == [">=3.11"], name
        for req in meta.get("Requires-Dist", []):
            assert re.search(r"(<|==)", req), f"{name}: {req} has no upper bound"
    required = requires_of(wheels)
    # the YAML readers take the shared wheel with its yaml extra (testing/yamldoc's ruamel.yaml)
    for name in ("oot-ci-testing", "crcr-relay-emulator"):
        assert any(r.startswith("oot-ci-results[yaml]") for r in metadata(wheels[name])["Requires-Dist"]), (
            name
        )
    assert metadata(wheels["oot-ci-results"])["Provides-Extra"] == ["yaml"]
    assert required["oot-ci-testing"] == {"oot-ci-results"}
    assert required["crcr-callback"] == {"oot-ci-results"}
    assert required["crcr-relay-emulator"] == {"crcr-callback", "oot-ci-results"}


def test_every_wheel_ships_the_repository_license(venv, wheels):
    """The text of LICENSE (runfiles: //:LICENSE) in each wheel and each installed .dist-info,
    and it is the license the metadata declares."""
    text = Path("LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License\n") and "the oot-ci authors" in text
    for name, path in wheels.items():
        dist_info = f"{name.replace('-', '_')}-0.1.0.dist-info"
        with zipfile.ZipFile(path) as whl:
            assert whl.read(f"{dist_info}/licenses/LICENSE").decode() == text, name
        assert (venv.site / dist_info / "licenses" / "LICENSE").read_text() == text, name


@pytest.mark.parametrize(
    "removed", ["oot-ci-results", "oot-ci-testing", "crcr-callback", "crcr-relay-emulator", "torch-spyre"]
)
def test_uninstalling_one_leaves_the_others_working(venv, wheels, removed):
    assert removed in wheels
    required = requires_of(wheels)
    dependents = {name for name, reqs in required.items() if removed in reqs}
    gone = venv.pip("uninstall", "-y", removed)
    assert gone.returncode == 0, gone.stderr
    try:
        checked = venv.pip("check")
        named = re.findall(r"^(\S+) [\d.]+ requires (\S+), which is not installed", checked.stdout, re.M)
        direct = {name for name, reqs in direct_requires(wheels).items() if removed in reqs}
        assert {(n.lower(), r.lower()) for n, r in named} == {(n, removed) for n in direct}, checked.stdout
        assert (checked.returncode == 0) == (not dependents), checked.stdout
        for name in set(wheels) - {removed}:
            result = smoke(venv, name)
            if name in direct:
                assert result.returncode != 0, (
                    f"{name} still works without {removed}: its Requires-Dist is not real"
                )
            elif name not in dependents:  # (a dependent through another wheel may or may not use it)
                assert result.returncode == 0, f"{name} broke without {removed}: {result.stderr[-2000:]}"
    finally:
        back = venv.pip("install", "--no-index", "--no-deps", "--no-compile", wheels[removed])
        assert back.returncode == 0, back.stderr
    assert venv.pip("check").returncode == 0
