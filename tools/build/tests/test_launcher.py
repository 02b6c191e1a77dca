"""tools/bazel installs Bazel when missing, then runs it; it never installs twice."""

import os
import pathlib
import shutil
import subprocess

import pytest

LAUNCHER = pathlib.Path("tools/bazel").resolve()

FAKE_APT = """#!{bash}
echo "apt-get $*" >> "{log}"
if [ "$1" = install ]; then
  printf '#!{bash}\\necho "fake-bazel $*"\\n' > "{bin}/bazel"
  chmod +x "{bin}/bazel"
fi
"""


@pytest.fixture
def sandbox_bin(tmp_path):
    """A PATH holding only what the launcher needs, and no Bazel."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("id", "cat", "chmod"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    return bin_dir


def launch(bin_dir, *args, **env):
    return subprocess.run(
        [shutil.which("bash"), str(LAUNCHER), *args],
        env={"PATH": str(bin_dir), **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


def add_fake_apt(bin_dir, log):
    apt = bin_dir / "apt-get"
    apt.write_text(FAKE_APT.format(bash=shutil.which("bash"), log=log, bin=bin_dir))
    apt.chmod(0o755)


@pytest.mark.skipif(os.geteuid() != 0, reason="the install path runs apt-get directly only as root")
def test_installs_when_missing_then_runs_with_all_arguments(sandbox_bin, tmp_path):
    log = tmp_path / "apt.log"
    add_fake_apt(sandbox_bin, log)
    first = launch(sandbox_bin, "test", "//...", "--config=remote")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "fake-bazel test //... --config=remote"
    assert "installing bazel-bootstrap" in first.stderr
    assert "apt-get install -y -qq bazel-bootstrap" in log.read_text()

    second = launch(sandbox_bin, "info")
    assert second.stdout.strip() == "fake-bazel info"
    assert log.read_text().count("install") == 1, "idempotent: no second install"


def test_without_apt_get_says_what_to_install(sandbox_bin):
    result = launch(sandbox_bin, "version")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "install Bazel 4.2.3 (bazel-bootstrap on Debian)" in lines[0]


def test_reentry_from_the_debian_wrapper_uses_bazel_real(sandbox_bin, tmp_path):
    real = tmp_path / "bazel-real"
    real.write_text(f'#!{shutil.which("bash")}\necho "real $*"\n')
    real.chmod(0o755)
    result = launch(sandbox_bin, "build", "//x", BAZEL_REAL=str(real))
    assert result.stdout.strip() == "real build //x"
