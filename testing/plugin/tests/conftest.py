"""Shared fixtures of the plugin's tests: config files written into tmp dirs, an upstream-style
fake test file (the constants and the subprocess environment: helpers.py)."""

import os
import textwrap

import pytest

# In-process pytester runs restore sys.modules afterwards; torch must already be
# loaded here, or each run would re-import (and re-initialise) its C extension.
import torch.testing._internal.common_device_type  # noqa: F401,E402
import torch.testing._internal.common_methods_invocations  # noqa: F401,E402
import torch.testing._internal.common_modules  # noqa: F401,E402

# The plugin's modules too, for the same reason: these tests live inside the testing.plugin
# package, which stays imported across the runs. A plugin module a run imports would leave
# sys.modules after it yet stay the package's attribute, so a later run would hold two copies
# (`-W error::testing.plugin.reporting.OotConfigWarning` would name a class the run never raises).
import testing.plugin.adaptation  # noqa: F401,E402
import testing.plugin.isolation  # noqa: F401,E402
import testing.plugin.labels  # noqa: F401,E402
import testing.plugin.modelcases  # noqa: F401,E402
import testing.plugin.native.xfail  # noqa: F401,E402
import testing.plugin.promotion  # noqa: F401,E402
import testing.plugin.registry  # noqa: F401,E402
import testing.plugin.reporting  # noqa: F401,E402
import testing.plugin.roles  # noqa: F401,E402
from testing.plugin.tests.helpers import REPO_ROOT

pytest_plugins = ["pytester"]

# An upstream-style device-generic test file, used as the "suite" in acceptance tests.
FAKE_SUITE = """
import os
import torch
from torch.testing._internal.common_device_type import (
    OpDTypes, dtypes, instantiate_device_type_tests, onlyOn, ops)
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import TestCase

SMALL = [o for o in op_db if o.name in ("add", "mul", "sub", "abs")]


class TestFake(TestCase):
    @ops(SMALL, dtypes=OpDTypes.supported)
    def test_op(self, device, dtype, op):
        sample = next(iter(op.sample_inputs(device, dtype)))
        op(sample.input, *sample.args, **sample.kwargs)

    @ops(SMALL, dtypes=OpDTypes.none)
    def test_op_nodtype(self, device, op):
        pass

    @dtypes(torch.float32, torch.int64, torch.float64)
    def test_dt(self, device, dtype):
        self.assertEqual(torch.ones(2, dtype=dtype, device=device).sum().item(), 2)

    def test_pass(self, device):
        pass

    def test_fail(self, device):
        self.assertTrue(False, "fails on purpose")

    @onlyOn("cuda")
    def test_only_cuda(self, device):
        pass

    def test_crash(self, device):
        os.abort()

    def test_hang(self, device):
        import time
        time.sleep(600)


class TestPlain(TestCase):
    def test_one(self):
        pass


instantiate_device_type_tests(TestFake, globals())
"""


@pytest.fixture
def write_yaml(tmp_path):
    def write(text: str, name: str = "cfg.yaml") -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return str(path)

    return write


@pytest.fixture
def fake_suite(pytester):
    path = pytester.makepyfile(test_fake=FAKE_SUITE)
    return str(path)


@pytest.fixture
def subprocess_env(monkeypatch):
    """Workers and pytester subprocesses must import testing.plugin."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [REPO_ROOT, os.environ.get("PYTHONPATH")])))
