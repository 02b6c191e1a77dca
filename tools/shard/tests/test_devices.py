"""The shard runner on a pool of emulated spyre cards (tools/shard/devices.py): each card
probed, a sick one drained, its tests re-run on the healthy ones, faults injected on purpose
(SPYRE_FAULTS, backend/README.md). Real pytest children, real probes."""

import json
import os
import subprocess
import sys

import pytest

SUITE = """
import pytest, torch
import torch_spyre  # noqa: F401 (no installed entry point autoloads it under Bazel)

@pytest.mark.parametrize("i", range(12))
def test_add(i):
    x = torch.ones(4, device="spyre")
    assert (x + i).cpu().tolist() == [1.0 + i] * 4
"""


def _run(tmp_path, *runner_args, **env):
    (tmp_path / "test_cards.py").write_text(SUITE)
    environ = dict(os.environ, SPYRE_DEVICE_COUNT="4")  # PYTHONPATH: Bazel's, or the caller's
    environ.pop("SPYRE_FAULTS", None)
    (tmp_path / "cards").mkdir()  # the emulated cards' state: locks, tripped faults
    environ.update(SPYRE_STATE_DIR=str(tmp_path / "cards"), **env)
    cmd = [sys.executable, "-m", "tools.shard.runner", "--summary=summary.json", "--junitxml=out.xml"]
    cmd += ["--devices", "0,1,2,3", "--probe-every", "3", "--probe-timeout", "10", "--hang-window", "3"]
    cmd += ["--device-node", "$SPYRE_STATE_DIR/spyre{i}.lock"]
    cmd += [*runner_args, "--", "-q", "-p", "no:cacheprovider", "test_cards.py"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=600)
    assert (tmp_path / "summary.json").exists(), proc.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    return proc, summary, {d["device"]: d for d in summary["devices"]}


def test_healthy_cards_share_the_work(tmp_path):
    proc, summary, cards = _run(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert summary["counts"] == {"passed": 12}
    assert all(c["state"] == "healthy" for c in cards.values())
    assert sum(c["tests_run"] for c in cards.values()) == 12
    # every result names the card it ran on (the warehouse's device column reads it)
    import xml.etree.ElementTree as ET

    on = [
        p.get("value") for p in ET.parse(tmp_path / "out.xml").iter("property") if p.get("name") == "device"
    ]
    assert len(on) == 12 and {d: on.count(d) for d in set(on)} == {
        k: c["tests_run"] for k, c in cards.items() if c["tests_run"]
    }


def test_a_hung_card_is_drained_and_its_tests_pass_elsewhere(tmp_path):
    proc, summary, cards = _run(tmp_path, SPYRE_FAULTS="hang:1@4")
    assert proc.returncode == 0, proc.stderr
    assert summary["counts"] == {"passed": 12}
    assert cards["spyre:1"]["state"] == "poisoned" and "spyre:1: hang" in cards["spyre:1"]["probe"]
    assert "hang: no progress for " in proc.stderr  # the zygote told the hang from a slow test
    assert "spyre:1: hang" in proc.stderr and "drained, no more tests on it" in proc.stderr
    others = [c for name, c in cards.items() if name != "spyre:1"]
    assert all(c["state"] == "healthy" for c in others)


def test_silent_corruption_spoils_only_what_ran_since_the_last_good_probe(tmp_path):
    proc, summary, cards = _run(tmp_path, SPYRE_FAULTS="corrupt:2@4")
    assert proc.returncode == 0, proc.stderr
    assert summary["counts"] == {"passed": 12}
    sick = cards["spyre:2"]
    assert sick["state"] == "poisoned" and "wrong result" in sick["probe"]
    assert sick["infra_attempts"] >= 1
    xml = (tmp_path / "out.xml").read_text()
    assert 'name="infra"' in xml and "after its last good probe" in xml


def test_a_leg_that_loses_every_card_is_infra_not_a_failure(tmp_path):
    proc, summary, cards = _run(tmp_path, SPYRE_FAULTS="error:0,error:1,error:2,error:3")
    assert proc.returncode == 1
    assert summary["counts"] == {"error": 12}
    assert all(c["state"] == "poisoned" and "device fault" in c["probe"] for c in cards.values())
    assert "12 tests not run: every device was drained" in proc.stderr


def test_a_card_that_every_user_leaves_held_is_busy_at_its_first_probe(tmp_path):
    proc, summary, cards = _run(tmp_path, SPYRE_FAULTS="held:3")
    assert proc.returncode == 0, proc.stderr
    assert summary["counts"] == {"passed": 12}
    # its first probe left a holder behind: drained before any test ran on it
    assert cards["spyre:3"]["state"] == "poisoned"
    assert cards["spyre:3"]["probe"].startswith("spyre:3: device busy (held by pid ")
    assert "the probe's own process left it held" in cards["spyre:3"]["probe"]
    assert (cards["spyre:3"]["tests_run"], cards["spyre:3"]["infra_attempts"]) == (0, 0)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--devices", "0,x"], "expected card numbers like 0,1,2,3"),
        (["--devices", "1,1"], "a card is named twice"),
        (["--probe-every", "0"], "--probe-every"),
        (["--hang-window", "-2"], "--hang-window: must be > 0"),
    ],
)
def test_bad_device_options_are_one_line_errors(tmp_path, args, message):
    cmd = [sys.executable, "-m", "tools.shard.runner", *args, "--", "-q"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 2 and "Traceback" not in proc.stderr
