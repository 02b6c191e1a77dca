"""What the --isolate end-to-end tests share: an upstream-style suite whose tests crash in
every way, a pytest subprocess running it under --isolate, and its results minus what
differs between any two runs."""

import json
import subprocess
import textwrap
import xml.etree.ElementTree as ET

from testing.config.runs import PLUGIN, PytestCommand
from testing.plugin.tests.helpers import subprocess_environ

SUITE = """
import os, pathlib, signal
import pytest

with open(os.environ["IMPORT_LOG"], "a") as f:   # one line per import of this module
    f.write("imported\\n")

def test_pass(): pass
def test_fail(): assert 1 == 2, "fails on purpose"
def test_abort(): os.abort()
@pytest.mark.skip(reason="not here")
def test_skip(): pass
@pytest.mark.xfail(reason="known")
def test_xfail(): assert False
def test_segfault():
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.kill(os.getpid(), signal.SIGSEGV)
def test_exit(): os._exit(3)
@pytest.mark.parametrize("i", range(3))
def test_after(i): print("output", i)
"""


def run(tmp_path, *args, suite=SUITE, files=None, environ=None):
    (tmp_path / "test_suite.py").write_text(suite)
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    env = subprocess_environ(IMPORT_LOG=str(tmp_path / "imports.log"), **(environ or {}))
    cmd = PytestCommand(
        paths=[str(tmp_path)],
        plugins=[PLUGIN, "no:timeout"],
        extra=["--isolate", *args],
        cache=False,
        rootdir=str(tmp_path),
        junitxml=str(tmp_path / "junit.xml"),
        summary=str(tmp_path / "summary.json"),
    ).argv()
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=600)


def junit(path):
    """JUnit without what differs between any two runs (times, host, the crash's output tail)."""
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        children = [
            (c.tag, (c.get("message") or "").splitlines()[0:1])
            for c in case
            if c.tag not in ("system-out", "system-err")
        ]
        props = sorted((p.get("name"), p.get("value")) for p in case.iter("property"))
        cases.append((case.get("classname"), case.get("name"), children, props))
    return sorted(cases)


def summary(path):
    data = json.loads(path.read_text())
    data.pop("total_duration")
    for t in data["tests"]:
        t.pop("duration")
    return data


def outcomes(tmp_path):
    return {
        t["nodeid"].split("::")[-1]: t["outcome"]
        for t in json.loads((tmp_path / "summary.json").read_text())["tests"]
    }


EXPECTED = {
    "test_pass": "passed",
    "test_fail": "failed",
    "test_abort": "crashed",
    "test_skip": "skipped",
    "test_xfail": "xfailed",
    "test_segfault": "crashed",
    "test_exit": "crashed",
    "test_after[0]": "passed",
    "test_after[1]": "passed",
    "test_after[2]": "passed",
}
