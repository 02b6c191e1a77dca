"""What the native-adapter tests share: a pytest run of the plugin under one adapter, read
back as {nodeid: (outcome, bucket)} from its JSON summary."""

import json
import os
import subprocess

from testing.config import runs
from testing.plugin.tests.helpers import REPO_ROOT, subprocess_environ


def run_adapter(tmp_path, adapter, configs, files, *extra, env=None, roots=()):
    """(exit code, summary dict, stdout) of one run."""
    summary = tmp_path / f"summary-{adapter}.json"
    argv = runs.adapter_run(
        adapter,
        [str(c) for c in configs],
        [str(f) for f in files],
        extra,
        quiet=True,
        rootdir=REPO_ROOT,
        summary=str(summary),
    ).argv()
    proc = subprocess.run(
        argv,
        cwd=REPO_ROOT,
        env=subprocess_environ(*roots, **(env or {})),
        capture_output=True,
        text=True,
        timeout=900,
    )
    data = json.loads(summary.read_text()) if summary.exists() else {}
    return proc.returncode, data, proc.stdout + proc.stderr


def outcomes(summary):
    return {t["nodeid"]: (t["outcome"], t["bucket"]) for t in summary.get("tests", [])}


def suite(name):
    return os.path.join(REPO_ROOT, "testing", "suites", name)


def both(tmp_path, configs, files, *extra, env=None):
    """(native summary, patch summary) of the same run through auto and patch, checking that
    auto really went native and both exit alike."""
    code_n, native, out_n = run_adapter(tmp_path, "auto", configs, files, *extra, env=env)
    code_p, patch, out_p = run_adapter(tmp_path, "patch", configs, files, *extra, env=env)
    assert native.get("adapter", {}).get("used") == "native", out_n
    assert patch["adapter"]["used"] == "patch"
    assert code_n == code_p, (out_n, out_p)
    return native, patch
