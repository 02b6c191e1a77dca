"""The device health probe (testing/supervisor/health.py) on the emulated spyre device, each
kind of sickness injected on purpose (SPYRE_FAULTS, backend/README.md)."""

import os
import signal
import subprocess
import sys

import pytest

from testing.supervisor import health

MODULE = "torch_spyre"  # under Bazel no installed entry point autoloads it


def _probe(device, env, **kw):
    return health.probe(device, env, module=MODULE, **kw)


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), SPYRE_DEVICE_COUNT="4")
    env.pop("SPYRE_FAULTS", None)
    return {**env, **extra}


def test_a_healthy_device_passes():
    assert _probe("spyre:2", _env()).line() == "spyre:2: healthy"


@pytest.mark.parametrize(
    "fault, state, detail",
    [
        ("error:1", health.FAULT, "spyre: device fault on spyre:1"),
        ("corrupt:1", health.WRONG, "expected 4096"),
        ("hang:1", health.HANG, "did not return within 8s"),
    ],
)
def test_each_sickness_is_named(fault, state, detail):
    found = _probe("spyre:1", _env(SPYRE_FAULTS=fault), timeout=8)
    assert (found.state, found.ok) == (state, False)
    assert detail in found.detail
    assert _probe("spyre:0", _env(SPYRE_FAULTS=fault), timeout=8).ok  # only its own device


def test_a_pinned_worker_sees_its_card_as_device_zero():
    env = _env(SPYRE_FAULTS="error:3", SPYRE_VISIBLE_DEVICES="3")
    assert "device fault on spyre:3" in _probe("spyre:0", env).detail
    assert _probe("spyre:0", _env(SPYRE_FAULTS="error:3", SPYRE_VISIBLE_DEVICES="2")).ok


def test_a_device_still_held_is_busy_with_its_holder(tmp_path):
    node = tmp_path / "spyre0.lock"
    env = _env(SPYRE_STATE_DIR=str(tmp_path))
    hold = "import time, torch, torch_spyre; torch.ones(1, device='spyre'); print('held', flush=True); time.sleep(60)"
    holder = subprocess.Popen([sys.executable, "-c", hold], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        found = _probe("spyre:0", env, node=node)
        assert found.state == health.BUSY and found.holders == (holder.pid,)
        assert found.line().startswith(f"spyre:0: device busy (held by pid {holder.pid})")
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    assert _probe("spyre:0", env, node=node).ok


def test_a_probe_timeout_that_is_not_positive_is_refused():
    with pytest.raises(ValueError, match="probe timeout must be positive"):
        _probe("spyre:0", _env(), timeout=0)


def test_a_backend_that_is_not_loaded_is_a_device_fault_naming_it():
    found = health.probe("spyre:0", _env(TORCH_DEVICE_BACKEND_AUTOLOAD="0"), timeout=8)
    assert found.state == health.FAULT and "spyre" in found.detail
