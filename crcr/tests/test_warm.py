"""The warm interpreter of re-runs (handler/warm.py), with a real zygote and real forks:
a fork runs `python -m pytest` as a fresh interpreter would (same sys.path with the core
overlay first, environment, working directory, argv, exit code), imports torch only after
the overlay is in place, a timeout kills the run, and a zygote whose preloads imported
torch refuses to serve (the caller falls back to a fresh process)."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crcr.handler.warm import WarmPytest

PROBE = """
import json, os, sys
import torch

def test_where():
    with open(os.environ["PROBE_OUT"], "w") as fh:
        json.dump({"path": sys.path, "argv": sys.argv[1:], "cwd": os.getcwd(),
                   "mark": os.environ.get("MARK"), "torch": torch.VALUE,
                   "pythonpath": os.environ["PYTHONPATH"]}, fh)
    assert torch.VALUE == int(os.environ["WANT"])
"""


@pytest.fixture
def tree(tmp_path):
    """A fake wheel's torch (VALUE 1) and an overlay of it (VALUE 2), a test file, a cwd."""
    for where, value in (("wheel", 1), ("overlay", 2)):
        (tmp_path / where / "torch").mkdir(parents=True)
        (tmp_path / where / "torch" / "__init__.py").write_text(f"VALUE = {value}\n")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "test_probe.py").write_text(PROBE)
    return tmp_path


def _paths(*first):
    return os.pathsep.join([*map(str, first), *(p for p in sys.path if p and Path(p).is_dir())])


def _env(tmp_path, *first, **extra):
    return {**os.environ, "PYTHONPATH": _paths(*first), "PYTHONDONTWRITEBYTECODE": "1", **extra}


def _argv(tmp_path):
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_probe.py"]


def test_a_fork_is_the_fresh_interpreter_with_the_overlay_first(tree):
    wheel, overlay, cwd = tree / "wheel", tree / "overlay", tree / "run"
    zygote_env = _env(tree, cwd, wheel)
    runs = {}
    for how in ("warm", "fresh"):
        out = tree / f"{how}.json"
        env = _env(tree, overlay, cwd, wheel, MARK=how, WANT="2", PROBE_OUT=str(out))
        if how == "warm":
            warm = WarmPytest(cwd, zygote_env)
            try:
                assert warm.run(_argv(tree), cwd, env, 120, tree / "warm.log", overlay) == (0, False), (
                    tree / "warm.log"
                ).read_text()
                assert "torch" not in sys.modules or sys.modules["torch"].__file__ != str(overlay)
                # the zygote itself never imported torch: a second run at the wheel sees VALUE 1
                env1 = _env(tree, cwd, wheel, MARK="wheel", WANT="1", PROBE_OUT=str(tree / "w1.json"))
                assert warm.run(_argv(tree), cwd, env1, 120, tree / "w1.log", None) == (0, False)
                assert json.loads((tree / "w1.json").read_text())["torch"] == 1
                # a failing run's exit code comes back as pytest's
                env2 = {**env, "WANT": "1"}
                assert warm.run(_argv(tree), cwd, env2, 120, tree / "w2.log", overlay) == (1, False)
                assert "assert 2 == 1" in (tree / "w2.log").read_text()
            finally:
                warm.close()
        else:
            subprocess.run(_argv(tree), cwd=cwd, env=env, check=True, capture_output=True)
        runs[how] = json.loads(out.read_text())
    warm, fresh = runs["warm"], runs["fresh"]
    assert warm["torch"] == fresh["torch"] == 2
    assert warm["path"] == fresh["path"] and warm["path"][1] == str(overlay)
    assert warm["argv"] == fresh["argv"] and warm["cwd"] == fresh["cwd"] == str(cwd)
    assert warm["pythonpath"] == fresh["pythonpath"] and (warm["mark"], fresh["mark"]) == ("warm", "fresh")


def test_a_run_past_its_timeout_is_killed(tree):
    cwd = tree / "run"
    (cwd / "test_probe.py").write_text("import time\n\ndef test_slow():\n    time.sleep(120)\n")
    warm = WarmPytest(cwd, _env(tree, cwd))
    try:
        t = time.monotonic()
        code, timed_out = warm.run(_argv(tree), cwd, _env(tree, cwd), 3, tree / "slow.log", None)
        assert timed_out and code != 0 and time.monotonic() - t < 60
        # the zygote serves the next run
        (cwd / "test_probe.py").write_text("def test_quick():\n    pass\n")
        assert warm.run(_argv(tree), cwd, _env(tree, cwd), 120, tree / "quick.log", None) == (0, False)
    finally:
        warm.close()


def test_a_preload_that_imports_torch_turns_the_zygote_off(tree):
    """A package on the path shadowing a preload (`expecttest`) imports torch: the zygote
    says so and refuses; `run` answers None and the caller starts a fresh interpreter."""
    shadow = tree / "shadow"
    shadow.mkdir()
    (shadow / "expecttest.py").write_text("import torch\n")
    cwd = tree / "run"
    warm = WarmPytest(cwd, _env(tree, cwd, shadow, tree / "wheel"))
    try:
        assert warm.run(_argv(tree), cwd, _env(tree, cwd), 60, tree / "x.log", None) is None
        assert warm.off == "a preload imported torch"
        assert warm.run(_argv(tree), cwd, _env(tree, cwd), 60, tree / "x.log", None) is None  # stays off
    finally:
        warm.close()


def test_only_python_m_pytest_goes_through_the_zygote(tree):
    warm = WarmPytest(tree, _env(tree, tree))
    assert warm.run(["/bin/true"], tree, {}, 10, tree / "x.log", None) is None
    assert warm.proc is None and warm.off == ""  # nothing was started for it


COUNTING_TORCH = """import os
VALUE = 2
with open(os.environ["IMPORTS"], "a") as fh:  # one line per import of this torch
    fh.write(f"{os.getpid()}\\n")
"""


def test_runs_at_one_overlay_share_its_zygote_and_torch_is_imported_once(tree):
    """Two runs at the same overlay: the second forks the overlay's zygote, which imported
    torch (from the overlay) once; both see what a fresh interpreter sees. A run at another
    overlay gets a zygote of its own, and coming back to the first starts a new one."""
    wheel, overlay, cwd = tree / "wheel", tree / "overlay", tree / "run"
    (overlay / "torch" / "__init__.py").write_text(COUNTING_TORCH)
    imports, out = tree / "imports.txt", tree / "probe.json"
    env = _env(tree, overlay, cwd, wheel, MARK="m", WANT="2", PROBE_OUT=str(out), IMPORTS=str(imports))
    subprocess.run(_argv(tree), cwd=cwd, env=env, check=True, capture_output=True)
    fresh = json.loads(out.read_text())
    imports.unlink()
    warm = WarmPytest(cwd, _env(tree, cwd, wheel))
    try:
        seen = []
        for i in range(2):
            assert warm.run(_argv(tree), cwd, env, 120, tree / f"o{i}.log", overlay) == (0, False)
            seen.append(json.loads(out.read_text()))
        assert warm.forked == {"new": 1, "reused": 1}
        assert len(imports.read_text().split()) == 1  # torch imported once, by the overlay's zygote
        assert seen[0] == seen[1] == fresh  # same sys.path (overlay once, first), argv, cwd, env, torch
        assert fresh["path"].count(str(overlay)) == 1
        env1 = _env(tree, cwd, wheel, MARK="w", WANT="1", PROBE_OUT=str(tree / "w.json"))
        assert warm.run(_argv(tree), cwd, env1, 120, tree / "w.log", None) == (0, False)
        assert warm.run(_argv(tree), cwd, env, 120, tree / "o2.log", overlay) == (0, False)
        assert warm.forked == {"new": 3, "reused": 1}
        assert len(imports.read_text().split()) == 2
    finally:
        warm.close()


def test_an_overlay_whose_torch_does_not_import_runs_as_a_fresh_interpreter(tree):
    """The overlay zygote's preload raises: it refuses, and the run is forked from the first
    zygote, failing exactly as a fresh `python -m pytest` does (exit code, the error in the log)."""
    wheel, overlay, cwd = tree / "wheel", tree / "overlay", tree / "run"
    (overlay / "torch" / "__init__.py").write_text("raise RuntimeError('broken at this commit')\n")
    env = _env(tree, overlay, cwd, wheel, WANT="2", PROBE_OUT=str(tree / "x.json"))
    fresh = subprocess.run(_argv(tree), cwd=cwd, env=env, capture_output=True, text=True)
    warm = WarmPytest(cwd, _env(tree, cwd, wheel))
    try:
        assert warm.run(_argv(tree), cwd, env, 120, tree / "b.log", overlay) == (fresh.returncode, False)
        assert fresh.returncode != 0 and "broken at this commit" in (tree / "b.log").read_text()
        [(how, n)] = warm.forked.items()
        assert n == 1 and how == "no overlay zygote: importing torch: RuntimeError: broken at this commit"
    finally:
        warm.close()
