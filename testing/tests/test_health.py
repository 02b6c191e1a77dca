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


def test_a_grandchild_that_escaped_with_the_card_is_busy_until_it_is_ended(tmp_path):
    """The `held` fault: the test process ends, but a grandchild in its own session (out of
    reach of a kill of the test's group) keeps the card; found by what it holds, then ended."""
    node = tmp_path / "spyre0.lock"
    env = _env(SPYRE_STATE_DIR=str(tmp_path), SPYRE_FAULTS="held:0")
    test = subprocess.run(
        [sys.executable, "-c", "import torch, torch_spyre; torch.ones(1, device='spyre')"],
        env=env,
        timeout=120,
    )
    assert test.returncode == 0
    [holder] = health.holders(node)
    try:
        assert os.getsid(holder) != os.getsid(0)  # a session of its own: out of the test's group
        found = _probe("spyre:0", env, node=node)
        assert found.state == health.BUSY and found.holders == (holder,)
        assert found.line().startswith(f"spyre:0: device busy (held by pid {holder})")
        said = []
        assert health.end_holders(node, said.append) == (holder,)
        assert said == [f"ended pid {holder}, which still held spyre0.lock after its test"]
        assert health.holders(node) == ()
    finally:
        try:
            os.kill(holder, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert _probe("spyre:0", _env(SPYRE_STATE_DIR=str(tmp_path)), node=node).ok


def test_a_probe_that_leaves_the_card_held_finds_it_busy(tmp_path):
    """Free before the probe, held after it: the runtime leaves a holder behind whoever uses the
    card (the `held` fault trips in the probe's own process), so the card is busy at once, not
    after the tests of two batches were spoiled by it."""
    node = tmp_path / "spyre0.lock"
    env = _env(SPYRE_STATE_DIR=str(tmp_path), SPYRE_FAULTS="held:0")
    found = _probe("spyre:0", env, node=node)
    try:
        assert (found.state, found.detail) == (health.BUSY, health.LEFT_HELD)
        assert found.holders and found.holders == health.holders(node)
    finally:
        health.end_holders(node, lambda line: None)
    assert _probe("spyre:1", env, node=tmp_path / "spyre1.lock").ok  # only its own card


def test_a_probe_timeout_that_is_not_positive_is_refused():
    with pytest.raises(ValueError, match="probe timeout must be positive"):
        _probe("spyre:0", _env(), timeout=0)


def test_a_backend_that_is_not_loaded_is_a_device_fault_naming_it():
    found = health.probe("spyre:0", _env(TORCH_DEVICE_BACKEND_AUTOLOAD="0"), timeout=8)
    assert found.state == health.FAULT and "spyre" in found.detail
