"""Skip audit: skip entries re-run under isolation; the diff removes (flips) only those now
passing, with the config's comments and layout kept."""

import json
import subprocess
import sys
import textwrap

from testing.plugin.tests.helpers import REPO_ROOT, subprocess_environ

SUITE = """
import torch
from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase


class TestAudit(TestCase):
    @dtypes(torch.float32)
    def test_fixed_now(self, device, dtype):
        self.assertEqual(torch.ones(2, device=device, dtype=dtype).sum().item(), 2)

    @dtypes(torch.float32)
    def test_still_broken(self, device, dtype):
        self.assertEqual(torch.ones(2, device=device, dtype=dtype).sum().item(), 3)

    def test_runs(self, device):
        pass


instantiate_device_type_tests(TestAudit, globals(), only_for="cpu")
"""

CONFIG = """
test_suite_config:
  files:
    - path: ${TORCH_ROOT}/test/test_audit.py
      tests:
        - names: TestAudit::test_runs
        # upstream bug, fixed in #123?
        - names: TestAudit::test_fixed_now
          mode: skip
          reason: "crashed the worker"   # keep this comment
        - names: TestAudit::test_still_broken
          mode: skip
          reason: "wrong result"
"""


def test_skip_audit_removes_only_entries_now_passing(tmp_path):
    (tmp_path / "up" / "test").mkdir(parents=True)
    (tmp_path / "up" / "test" / "test_audit.py").write_text(textwrap.dedent(SUITE))
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(textwrap.dedent(CONFIG))
    out = tmp_path / "report.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "testing.plugin.skip_audit",
            "--config",
            str(cfg),
            "-o",
            str(out),
            "--upstream-root",
            str(tmp_path / "up"),
            "--pytest-arg=--rootdir=" + str(tmp_path / "up"),
        ],
        cwd=REPO_ROOT,
        env=subprocess_environ(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 skip entries re-run, 1 now pass" in proc.stdout
    report = json.loads(out.read_text())
    by_line = {e["line"]: e for e in report["entries"]}
    assert by_line[8]["remove"] and not by_line[11]["remove"]
    assert list(by_line[11]["variants"].values()) == ["failed"]
    diff = (tmp_path / "report.json.diff").read_text()
    assert (
        '-          mode: skip\n-          reason: "crashed the worker"   # keep this comment\n+          mode: mandatory_success'
        in diff
    )
    assert diff.count("+          mode: mandatory_success") == 1
    assert "# upstream bug, fixed in #123?" in diff  # context lines: the comment is kept


def test_skip_audit_bad_config_is_one_line(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "testing.plugin.skip_audit",
            "--config",
            str(tmp_path / "none.yaml"),
            "-o",
            str(tmp_path / "r.json"),
        ],
        cwd=REPO_ROOT,
        env=subprocess_environ(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no such file" in proc.stderr
