"""The device pool (tools/shard/devices.py), lean: one run of the shard runner on three emulated
spyre cards, one going silently wrong mid-batch and one whose every user leaves a holder behind,
on purpose (SPYRE_FAULTS, backend/README.md). Real pytest children, real probes. The heavier pools (four cards, a hang, an escaped holder,
every card lost) are test_devices.py (`:devices_test`, manual); the escaped holder's kill and
device busy are also testing/tests/test_health.py."""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

from testing.supervisor import health

SUITE = """
import pytest, torch
import torch_spyre  # noqa: F401 (no installed entry point autoloads it under Bazel)

@pytest.mark.parametrize("i", range(4))
def test_add(i):
    x = torch.ones(4, device="spyre")
    assert (x + i).cpu().tolist() == [1.0 + i] * 4
"""


def _run(tmp_path, env):
    cmd = [sys.executable, "-m", "tools.shard.runner", "--summary=summary.json", "--junitxml=out.xml"]
    cmd += ["--devices", "0,1,2", "--probe-every", "2", "--probe-timeout", "10", "--hang-window", "2"]
    cmd += ["--device-node", "$SPYRE_STATE_DIR/spyre{i}.lock", "--reruns", "0"]
    cmd += ["--", "-q", "-p", "no:cacheprovider", "test_cards.py"]
    try:
        return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    finally:  # the held card's holder outlives the run (600 s): end it
        health.end_holders(tmp_path / "cards" / "spyre2.lock", lambda line: None)


def test_sick_cards_are_drained_and_only_what_ran_after_the_last_good_check_runs_again(tmp_path):
    (tmp_path / "test_cards.py").write_text(SUITE)
    (tmp_path / "cards").mkdir()  # the emulated cards' state: locks, tripped faults
    env = dict(os.environ, SPYRE_DEVICE_COUNT="3", SPYRE_STATE_DIR=str(tmp_path / "cards"))
    # card 1 goes wrong in its batch's second test (after a test's and its check's ops); card 2
    # is left held by whoever uses it, its first probe included
    env["SPYRE_FAULTS"] = "corrupt:1@8,held:2"
    proc = _run(tmp_path, env)
    assert (tmp_path / "summary.json").exists(), proc.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    cards = {d["device"]: d for d in summary["devices"]}

    # no result lost, none charged to the tests: the sick cards' work passed on card 0
    assert proc.returncode == 0, proc.stderr
    assert summary["counts"] == {"passed": 4}
    assert cards["spyre:0"]["state"] == "healthy"

    # the silent corruption: drained, its results after the last good check are infra and
    # ran again elsewhere; the one its check proved good is kept, not re-run
    wrong = cards["spyre:1"]
    assert wrong["state"] == "poisoned" and "wrong result" in wrong["probe"], proc.stderr
    assert wrong["infra_attempts"] == 1 and wrong["tests_run"] == 1, wrong
    assert cards["spyre:0"]["tests_run"] == 3  # its own batch, then the spoiled test: re-balanced

    # the card its own probe left held: busy at once, before any test was spoiled on it
    held = cards["spyre:2"]
    assert held["state"] == "poisoned" and health.LEFT_HELD in held["probe"], held
    assert held["probe"].startswith("spyre:2: device busy (held by pid ")
    assert (held["tests_run"], held["infra_attempts"]) == (0, 0)

    # the merged JUnit: each result names its card; a spoiled attempt stays beside it, as infra
    props = [(p.get("name"), p.get("value")) for p in ET.parse(tmp_path / "out.xml").iter("property")]
    on = [v for n, v in props if n == "device"]
    assert len(on) == 4 and on.count("spyre:1") == 1
    assert any(n == "infra" and "after its last good probe" in v for n, v in props)
