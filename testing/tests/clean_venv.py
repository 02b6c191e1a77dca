"""A clean venv for the wheels as built by Bazel, installed with pip and no index.

Nothing of this repository is importable in it: the pinned third-party packages (torch,
pytest, ...) reach it through one .pth line, so `pip install --no-index` resolves every
Requires-Dist among them, and a missing or wrong requirement fails the install or
`pip check`. Used by the plugin wheel test, backend's and crcr's wheel tests, tools/ci's
wheels and adoption tests and its README command runner (the documented venv).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

# Top-level names this repository's checkout would add to sys.path; none may leak in.
CHECKOUT_ROOTS = ("testing", "crcr", "tools", "backend", "torch_spyre", "oot_ci_testing")


@dataclass(frozen=True)
class Venv:
    root: Path
    python: Path
    site: Path
    env: dict

    def run(self, *args, cwd: Path | None = None, timeout: float = 600, **kw) -> subprocess.CompletedProcess:
        """A command in the venv (the venv's bin first on PATH), text output captured."""
        return subprocess.run(
            [str(a) for a in args],
            env={**self.env, **kw.pop("env", {})},
            cwd=cwd or self.root,
            capture_output=True,
            text=True,
            timeout=timeout,
            **kw,
        )

    def py(self, *args, **kw) -> subprocess.CompletedProcess:
        return self.run(self.python, *args, **kw)

    def pip(self, *args, **kw) -> subprocess.CompletedProcess:
        return self.py("-m", "pip", *args, **kw)


def pinned_site() -> Path:
    """The directory of the pinned third-party packages (@pydeps' site dir, or the venv's)."""
    return Path(pytest.__file__).resolve().parent.parent


def bare_venv(env_dir: Path) -> tuple[Path, Path]:
    """(python, site-packages) of a new venv without pip at `env_dir` whose site reaches the
    pinned packages through one .pth line (none of this repository's packages)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    python = env_dir / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    pinned = pinned_site()
    leaked = [name for name in CHECKOUT_ROOTS if (pinned / name).exists()]
    assert not leaked, f"{pinned} holds {leaked}: not a clean set of third-party packages"
    (site / "pinned_packages.pth").write_text(f"{pinned}\n")
    return python, site


def install_into(target: Path, *wheels: Path) -> None:
    """pip install the wheels into the directory `target` (no index, no dependencies): what a
    site-packages holds after an install, without a venv."""
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--no-compile"]
        + ["--disable-pip-version-check", "--target", str(target), *map(str, wheels)],
        check=True,
        timeout=300,
    )


def make_venv(root: Path) -> Venv:
    env_dir = root / "venv"
    python, site = bare_venv(env_dir)
    home = root / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "TMPDIR": os.environ.get("TEST_TMPDIR", str(root)),
        "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        # No machine pip configuration (index, find-links, constraints): --no-index only.
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INPUT": "1",
    }
    return Venv(root, python, site, env)


def wheel_from_env(var: str) -> Path:
    """A wheel Bazel built, named by an environment variable of the test target."""
    value = os.environ.get(var)
    if not value:
        pytest.skip(f"{var} is not set: run this test through its Bazel target (tools/ci/BUILD.bazel)")
    path = Path(value).resolve()
    assert path.is_file(), f"{var}={value} does not exist"
    return path


def stop(proc: subprocess.Popen) -> None:
    """End a server this test started, by its PID: SIGINT first (a clean shutdown), then kill."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
