"""//crcr:client_wheel is a self-contained client: installable by pip, runnable without Bazel."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from testing.tests.clean_venv import install_into


@pytest.fixture
def wheel():
    path = os.environ.get("CRCR_WHEEL")
    if not path:
        pytest.skip("CRCR_WHEEL not set: run under `tools/bazel test //crcr:test_wheel`")
    return Path(path)


def test_wheel_contents(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = z.read(meta).decode()
        entry_points = z.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert {
        "crcr/callback_client/__main__.py",
        "crcr/callback_client/client.py",
        "crcr/callback_client/outbox.py",
        "crcr/callback_client/oidc.py",
    } <= names
    assert not [n for n in names if n.startswith(("crcr/relay/", "crcr/handler/", "crcr/tests/"))]
    assert "Name: crcr-callback" in metadata and "Requires-Dist: pydantic>=2,<3" in metadata
    assert "Requires-Dist: oot-ci-results>=0.1.0,<0.2" in metadata
    assert not [n for n in names if n.startswith("testing/")]  # the shared wheel ships results
    assert "crcr-callback = crcr.callback_client.__main__:main" in entry_points


def test_pip_install_and_run_without_bazel(wheel, tmp_path):
    target = tmp_path / "site"
    install_into(target, wheel, Path(os.environ["RESULTS_WHEEL"]))
    script = target / "bin" / "crcr-callback"
    assert script.exists()
    # deps only from the pip site dirs; crcr itself only from the installed wheel
    deps = [p for p in sys.path if p and Path(p).is_dir() and not (Path(p) / "crcr").exists()]
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(target), *deps]), CRCR_STATE_DIR=str(tmp_path / "s")
    )
    r = subprocess.run(
        [sys.executable, str(script), "completed", "--help"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "--conclusion" in r.stdout, r.stderr
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import crcr.callback_client.__main__, crcr.callback_client.client; print(crcr.callback_client.__main__.__file__)",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.stdout.strip().startswith(str(target))
