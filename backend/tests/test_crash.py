"""The test-only fault hook really takes the process down."""

from __future__ import annotations

import signal

import pytest
from conftest import run_python


@pytest.mark.parametrize("sig", [signal.SIGABRT, signal.SIGSEGV])
def test_debug_crash_kills_the_process(sig):
    result = run_python(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core files in the sandbox
        import torch, torch_spyre
        print("before", flush=True)
        torch.ops.spyre._debug_crash({int(sig)})
        print("after", flush=True)
        """
    )
    assert result.returncode == -int(sig)
    assert "before" in result.stdout
    assert "after" not in result.stdout
