"""What an active plugin imports before a test file needs it (testing/README.md "Start-up cost").

Each run is a fresh interpreter: `pytest -p testing.plugin --collect-only` on a file that
imports only torch, then a look at sys.modules. No timing: which modules load is the
cause of the start-up cost that crash_bench measures, and it does not vary with load.
"""

import json
import subprocess
import sys
import textwrap

from testing.plugin.tests.helpers import subprocess_environ

LIGHT_FILE = """
import torch
from torch.testing._internal.common_utils import TestCase


class TestLight(TestCase):
    def test_add(self):
        self.assertEqual(torch.ones(2) + 1, torch.full((2,), 2.0))
"""
CONFIG = """
test_suite_config:
  files:
    - path: test_light.py
      unlisted_test_mode: mandatory_success
"""
HEAVY = (
    "pydantic",
    "ruamel.yaml",
    "testing.config.models",
    "torch.testing._internal.common_methods_invocations",
)
PROBE = """
import json, sys
import pytest
status = pytest.main(sys.argv[2:])
print(sys.argv[1] + json.dumps({"status": int(status), "loaded": [m for m in %r if m in sys.modules]}))
""" % (HEAVY,)


def loaded_after_collection(tmp_path, *args: str) -> list[str]:
    (tmp_path / "test_light.py").write_text(textwrap.dedent(LIGHT_FILE))
    marker = "@@probe@@"
    cmd = [sys.executable, "-c", PROBE, marker, "-p", "no:cacheprovider", "-q", "--collect-only"]
    cmd += ["-p", "testing.plugin", "--rootdir", str(tmp_path), *args, str(tmp_path / "test_light.py")]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, env=subprocess_environ(), cwd=str(tmp_path), timeout=300
    )
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(marker)), None)
    assert line, proc.stdout + proc.stderr
    result = json.loads(line[len(marker) :])
    assert result["status"] == 0, proc.stdout + proc.stderr
    return result["loaded"]


def test_no_config_imports_neither_models_nor_yaml_nor_op_db(tmp_path):
    assert loaded_after_collection(tmp_path) == []


def test_a_config_loads_the_models_and_yaml_but_not_op_db(tmp_path):
    # The other side of the check above: the probe sees these modules when they load.
    (tmp_path / "light.yaml").write_text(textwrap.dedent(CONFIG))
    loaded = loaded_after_collection(tmp_path, "--config", str(tmp_path / "light.yaml"))
    assert loaded == ["pydantic", "ruamel.yaml", "testing.config.models"]
