"""The export: a config's natively expressible part as a standalone module that plain pytest
(no plugin) uses on upstream-style files, with the same outcomes for those rules."""

import os
import re
import subprocess
import sys
import textwrap

from testing.plugin.tests.helpers import REPO_ROOT, subprocess_environ
from testing.plugin.tests.native_helpers import outcomes, run_adapter, suite

FIXTURE = os.path.join(REPO_ROOT, "crcr", "upstream", "fixture", "base")

# Only rules the native API can say: an op allowlist, strict xfail of an @ops variant,
# whole-test skips, unlisted skip; dtypes the files use anyway.
NATIVE_ONLY = """
test_suite_config:
  files:
    - path: ${REPO_ROOT}/testing/suites/test_op_consistency.py
      tests:
        - names: TestOpConsistency::test_matches_cpu
        - names: TestOpConsistency::test_matches_cpu
          ops: [exp]
          dtypes: [float16]
          mode: xfail_strict
          reason: "passes on CPU: fails as an unexpected success both ways"
    - path: ${TORCH_ROOT}/test/test_elementwise_device.py
      tests:
        - names: "TestElementwiseDevice::*"
        - names: TestElementwiseDevice::test_where_matches_cpu
          mode: skip
          reason: "whole test: test_exclusions"
  global:
    supported_ops: [add, exp, neg]
"""

SHORT = re.compile(r"^(PASSED|FAILED|XFAIL|XPASS|ERROR) (\S+)")
AS_PLAIN = {"passed": "PASSED", "xfailed": "XFAIL", "xpassed_strict": "FAILED", "failed": "FAILED"}


def _export(tmp_path, cfg, *extra):
    out = tmp_path / "oot_native.py"
    proc = subprocess.run(
        [sys.executable, "-m", "testing.plugin.native.export", "--config", str(cfg), "-o", str(out), *extra],
        cwd=REPO_ROOT,
        env=subprocess_environ(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc, out


def test_exported_module_gives_plain_pytest_the_same_outcomes(tmp_path):
    cfg = tmp_path / "native.yaml"
    cfg.write_text(textwrap.dedent(NATIVE_ONLY))
    proc, module = _export(tmp_path, cfg, "--upstream-root", FIXTURE, "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    text = module.read_text()
    assert "set_test_configs(op_allowlist=OP_ALLOWLIST" in text and "BypassPrivateUse1TestBase" in text
    assert "'test_where_matches_cpu'" in text and "test_result_device" in text  # unlisted: excluded
    files = [suite("test_op_consistency.py"), os.path.join(FIXTURE, "test", "test_elementwise_device.py")]
    plain = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rA",
            "-p",
            "no:cacheprovider",
            "-p",
            "oot_native",
            "--rootdir",
            REPO_ROOT,
            *files,
        ],
        cwd=REPO_ROOT,
        env=subprocess_environ(str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    got = {m.group(2): m.group(1) for m in map(SHORT.match, plain.stdout.splitlines()) if m}
    code, summary, out = run_adapter(tmp_path, "auto", [cfg], files, "--upstream-root", FIXTURE)
    ours = {k: AS_PLAIN[o] for k, (o, _) in outcomes(summary).items()}
    assert got == ours, (plain.stdout[-3000:], out[-2000:])
    assert any(k.endswith("test_matches_cpu_exp_cpu_float16") and v == "FAILED" for k, v in got.items())
    assert not any("test_where_matches_cpu" in k for k in got)
    assert len(got) > 10


def test_export_bad_config_is_one_line_exit_2(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(
        "test_suite_config:\n  files:\n    - path: x.py\n      tests:\n        - names: a\n          mode: sometimes\n"
    )
    proc, module = _export(tmp_path, cfg)
    assert proc.returncode == 2 and not module.exists()
    assert proc.stderr.count("\n") == 1 and "bad.yaml:6" in proc.stderr, proc.stderr
