"""tools/ci/fresh-check clones a commit and runs its .ci/run with a new HOME and output root.

The repository cloned here is a tiny real git repo whose .ci/run records what it was given
(HOME, PIP_CONFIG_FILE, ~/.bazelrc, the checked-out commit) and prints a Bazel-style summary.
"""

import os
import pathlib
import shutil
import subprocess

import pytest

SCRIPT = pathlib.Path("tools/ci/fresh-check").resolve()

FAKE_CI_RUN = """#!/usr/bin/env bash
set -euo pipefail
out="$FAKE_OUT"
echo "$HOME" > "$out/home"
echo "${PIP_CONFIG_FILE:-}" > "$out/pip"
echo "${XDG_CACHE_HOME:-unset}" > "$out/xdg"
cat "$HOME/.bazelrc" > "$out/bazelrc"
ls -A "$HOME" > "$out/home_listing"
git rev-parse HEAD > "$out/head"
pwd > "$out/pwd"
echo "$*" > "$out/args"
echo "INFO: Build completed, 1 test FAILED, 9 total actions"
echo "Executed 2 out of 2 tests: 1 test passes and 1 fails locally."
exit "${FAKE_STATUS:-0}"
"""


def git(repo, *args, env):
    return subprocess.run(
        ["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def world(tmp_path):
    """A user HOME with a pip config, and a source repo with two commits."""
    home = tmp_path / "userhome"
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".config" / "pip" / "pip.conf").write_text("[global]\nno-cache-dir = true\n")
    out = tmp_path / "out"
    out.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(tmp_path),
        "FAKE_OUT": str(out),
        "XDG_CACHE_HOME": str(home / ".cache"),
        # No host git configuration: identity and defaults come from here.
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    git(repo, "init", "--quiet", "--initial-branch=main", env=env)
    (repo / ".ci" / "run").write_text(FAKE_CI_RUN)
    git(repo, "add", ".", env=env)
    git(repo, "commit", "--quiet", "-m", "first", env=env)
    first = git(repo, "rev-parse", "HEAD", env=env)
    (repo / "README").write_text("second\n")
    git(repo, "add", ".", env=env)
    git(repo, "commit", "--quiet", "-m", "second", env=env)
    return {"env": env, "repo": repo, "out": out, "first": first, "tmp": tmp_path}


def fresh_check(world, *args, **env):
    return subprocess.run(
        ["bash", str(SCRIPT), "--source", str(world["repo"]), *args],
        env={**world["env"], **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def recorded(world, name):
    return (world["out"] / name).read_text().strip()


def test_runs_ci_in_a_clone_with_a_new_home_and_output_root(world):
    result = fresh_check(world, "--ref", world["first"], "--no-install")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Executed 2 out of 2 tests: 1 test passes and 1 fails locally."
    home = pathlib.Path(recorded(world, "home"))
    assert home != pathlib.Path(world["env"]["HOME"]) and home.parent.parent == world["tmp"]
    assert recorded(world, "home_listing") == ".bazelrc"
    assert recorded(world, "bazelrc") == f"startup --output_user_root={home.parent / 'bazel-root'}"
    assert recorded(world, "xdg") == "unset"
    assert recorded(world, "head") == world["first"]
    assert recorded(world, "pwd") == str(home.parent / "src")
    assert recorded(world, "args") == "--no-install"
    # the user's pip configuration reaches pip although HOME changed
    assert recorded(world, "pip") == str(pathlib.Path(world["env"]["HOME"]) / ".config" / "pip" / "pip.conf")
    assert not home.parent.exists(), "temp dir left behind without --keep"
    assert (home.parent.parent / (home.parent.name + ".log")).read_text().endswith("fails locally.\n")


def test_an_explicit_pip_config_file_is_kept_and_keep_keeps_the_dir(world):
    result = fresh_check(world, "--keep", PIP_CONFIG_FILE="/etc/some-pip.conf")
    assert result.returncode == 0, result.stderr
    assert recorded(world, "pip") == "/etc/some-pip.conf"
    assert recorded(world, "args") == ""
    home = pathlib.Path(recorded(world, "home"))
    assert (home.parent / "src" / "README").exists()  # main = the second commit
    shutil.rmtree(home.parent)


def test_the_exit_status_of_ci_run_is_the_exit_status(world):
    result = fresh_check(world, FAKE_STATUS="3")
    assert result.returncode == 3
    assert "exit 3" in result.stdout and result.stdout.endswith("1 fails locally.\n")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--ref", "no-such-branch"], "no commit 'no-such-branch' in"),
        (["--ref", "--upload-pack=x"], "--ref must name a branch, tag or commit"),
        (["--bogus"], "unknown argument '--bogus'"),
    ],
)
def test_bad_arguments_are_one_line(world, args, message):
    result = fresh_check(world, *args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr
    assert not list(world["out"].iterdir()), ".ci/run ran anyway"
