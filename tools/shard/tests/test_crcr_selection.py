"""A selected leg through the Bazel runner: the --test_arg the handler adds to `bazel test`
(runner.bazel_command) reaches the generated target's main, the shard runner (tools/shard),
whose pytest runs only the selection. The target's arguments are read from the generated
testing/targets/configs.bzl as defs.bzl lays them out; Bazel itself cannot run inside a test,
so the runner is started the way `bazel test` starts it (XML_OUTPUT_FILE, TEST_TMPDIR)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from crcr.dispatch.plan import Candidate, Leg
from crcr.handler.runner import DEFAULT_TARGET_TEMPLATE, bazel_command
from crcr.upstream.fixture import CHANGE_MAP
from testing.changes.changemap import read_map
from testing.changes.only import resolve, write_only

RUNFILES = Path(__file__).resolve().parents[3]
FEATURE = "spyre-tensor_basics"
CONFIGS = ("configs/spyre/device.yaml", "configs/spyre/tensor_basics.yaml")


def generated_target_args(label: str) -> list[str]:
    """The args of //testing:config_<key> (defs.bzl: runner options, --, pytest arguments)."""
    tree = ast.parse((RUNFILES / "testing" / "targets" / "configs.bzl").read_text())
    (configs,) = [
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and n.targets[0].id == "CONFIGS"
    ]
    entry = configs[label.rpartition(":config_")[2]]
    pytest_args = (
        ["-p", "testing.plugin"] + [a for c in entry["configs"] for a in ("--config", c)] + entry["suites"]
    )
    return ["--reruns=1", "--", *pytest_args]


def test_selected_leg_runs_only_its_selection_under_the_bazel_runner(tmp_path):
    m = read_map(CHANGE_MAP)
    picked = sorted(m.features[FEATURE].tests)[:3]
    only = write_only(tmp_path / "only.json", resolve(picked, [], {"${REPO_ROOT}": RUNFILES}))
    leg = Leg(0, Candidate("primary", "HEAD", "x", "x", True), FEATURE, CONFIGS, 0, 1, "test-basics")

    argv = bazel_command(leg, RUNFILES, DEFAULT_TARGET_TEMPLATE, selection=only)
    label = argv[2]
    test_args = [a.removeprefix("--test_arg=") for a in argv if a.startswith("--test_arg=")]
    assert label == "//testing:config_spyre_tensor_basics" and test_args == [f"--oot-only={only}"]

    xml = tmp_path / "test.xml"
    env = {
        **os.environ,
        "XML_OUTPUT_FILE": str(xml),
        "TEST_TMPDIR": str(tmp_path / "t"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    (tmp_path / "t").mkdir()
    main = RUNFILES / "tools" / "shard" / "bazel_main.py"
    done = subprocess.run(
        [sys.executable, str(main), *generated_target_args(label), *test_args],
        cwd=RUNFILES,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    ran = sorted(
        f"{c.get('classname').rpartition('.')[2]}::{c.get('name')}" for c in ET.parse(xml).iter("testcase")
    )
    want = sorted("::".join(t.split("::")[1:]) for t in picked)
    # the JUnit names the generated (device) class; the map the generic one
    assert [r.split("::")[1] for r in ran] == [w.split("::")[1] for w in want], (ran, want)
    assert len(ran) == 3 < len(m.features[FEATURE].tests)
