"""Injected device faults (SPYRE_FAULTS) and device claims (SPYRE_STATE_DIR), each in a real
child interpreter: they must behave the way a sick card does, deterministically."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import python_env, run_python

from torch_spyre.environment import Fault, check_environment, parse_faults

THREE_OPS = """
import torch, torch_spyre
x = torch.ones(4, device="spyre:{d}")
for step in range(3):
    print(step, (x + step).cpu().tolist(), flush=True)
"""


def test_faults_parse_into_typed_values():
    assert parse_faults("hang:1,corrupt:0@100, error:1@5", device_count=2) == [
        Fault("hang", 1, 0),
        Fault("corrupt", 0, 100),
        Fault("error", 1, 5),
    ]


@pytest.mark.parametrize(
    "environ, message",
    [
        ({"SPYRE_FAULTS": "melt:0"}, "SPYRE_FAULTS: bad item 'melt:0': expected kind:device"),
        ({"SPYRE_FAULTS": "hang"}, "bad item 'hang'"),
        ({"SPYRE_FAULTS": "hang:2", "SPYRE_DEVICE_COUNT": "2"}, "names device 2, but there are 2"),
        ({"SPYRE_STATE_DIR": "/nonexistent/locks"}, "SPYRE_STATE_DIR is not a directory"),
    ],
)
def test_bad_fault_settings_are_one_line_errors(environ, message):
    with pytest.raises(ValueError, match=message):
        check_environment(environ)


def test_an_error_fault_starts_after_the_ops_it_spares():
    result = run_python(THREE_OPS.format(d=0), python_env(SPYRE_FAULTS="error:0@2"))
    assert result.stdout.splitlines() == ["0 [1.0, 1.0, 1.0, 1.0]"]  # ones() and one add ran
    assert "spyre: device fault on spyre:0: the runtime reported an error" in result.stderr


def test_corruption_is_silent_and_only_on_its_device():
    env = python_env(SPYRE_FAULTS="corrupt:1", SPYRE_DEVICE_COUNT="2")
    healthy = run_python(THREE_OPS.format(d=0), env)
    sick = run_python(THREE_OPS.format(d=1), env)
    assert healthy.returncode == 0 and sick.returncode == 0
    assert healthy.stdout.splitlines()[2] == "2 [3.0, 3.0, 3.0, 3.0]"
    assert sick.stdout.splitlines()[2] != "2 [3.0, 3.0, 3.0, 3.0]"


def test_a_hang_fault_never_returns_and_burns_no_cpu():
    proc = subprocess.Popen(
        [sys.executable, "-c", THREE_OPS.format(d=0)],
        env=python_env(SPYRE_FAULTS="hang:0@2"),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().startswith("0 ")  # ones() and one add ran
        time.sleep(3)
        assert proc.poll() is None  # still inside the op
        with open(f"/proc/{proc.pid}/stat") as f:
            utime, stime = (int(v) for v in f.read().rsplit(")", 1)[1].split()[11:13])
        time.sleep(2)
        with open(f"/proc/{proc.pid}/stat") as f:
            later = sum(int(v) for v in f.read().rsplit(")", 1)[1].split()[11:13])
        assert later - (utime + stime) <= 0.1 * 2 * os.sysconf("SC_CLK_TCK")
    finally:
        proc.kill()
        proc.wait()


HOLD = """
import sys, time, torch, torch_spyre
torch.ones(1, device="spyre")
print("holding", flush=True)
time.sleep(float(sys.argv[1]))
"""


def _claim(env, seconds="0"):
    return subprocess.run(
        [sys.executable, "-c", HOLD, seconds], env=env, capture_output=True, text=True, timeout=120
    )


def test_a_claimed_device_is_busy_for_another_process_and_free_after(tmp_path):
    env = python_env(SPYRE_STATE_DIR=str(tmp_path))
    holder = subprocess.Popen([sys.executable, "-c", HOLD, "60"], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        busy = _claim(env)
        assert busy.returncode != 0
        assert f"spyre: device spyre:0 is busy: held by pid {holder.pid} (" in busy.stderr
    finally:
        holder.kill()
        holder.wait()
    assert _claim(env).returncode == 0  # the kernel dropped the lock with its holder


def test_a_held_fault_leaves_the_device_busy_after_its_process_is_gone(tmp_path):
    env = python_env(SPYRE_STATE_DIR=str(tmp_path), SPYRE_FAULTS="held:0")
    first = _claim(env)
    assert first.returncode == 0
    busy = _claim(python_env(SPYRE_STATE_DIR=str(tmp_path)))
    pid = int(busy.stderr.split("held by pid ")[1].split()[0])
    try:
        assert os.getsid(pid) != os.getsid(0)  # a session of its own: it escaped our group
        assert "is busy" in busy.stderr
    finally:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _claim(python_env(SPYRE_STATE_DIR=str(tmp_path))).returncode != 0:
        assert time.monotonic() < deadline
        time.sleep(0.2)
