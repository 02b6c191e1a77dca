"""A leg's devices (crcr/handler/devices.py): the emulated spyre cards a leg runs on, probed
before and after it, a fault injected on purpose (SPYRE_FAULTS, backend/README.md). Real leg
processes on the emulated device, real probes; a leg that loses every card is `infra` with the
card's id in its verdict's evidence, never upstream or backend."""

import json
import os

import pytest

from crcr.callback_client.errors import ConfigError
from crcr.handler.devices import DeviceSettings, device_settings, run_on_devices
from crcr.handler.runner import LegSettings, run_leg

# One "test": ten sums on the leg's spyre:0 (the card it is pinned to); JUnit says whether they held.
LEG = """
import sys, torch, torch_spyre  # noqa: F401 (no installed entry point autoloads it under Bazel)
x = torch.arange(8.0, device="spyre")
ok = all((x + 1).sum().item() == 36.0 for _ in range(10))
case = '<testcase classname="t" name="test_sum"%s' % ("/>" if ok else "><failure>sum off</failure></testcase>")
open(sys.argv[1], "w").write("<testsuite>%s</testsuite>" % case)
sys.exit(0 if ok else 1)
"""


SPYRE_CONFIG = "test_suite_config:\n  global:\n    backend: torch_spyre\n  files: []\n"


@pytest.fixture
def leg(tmp_path, pr_event):
    from crcr.dispatch.event import load_dispatch
    from crcr.dispatch.plan import discover_features, plan_candidates, plan_legs

    ws = tmp_path / "ws"
    (ws / "configs" / "spyre").mkdir(parents=True)
    (ws / "configs" / "spyre" / "sums.yaml").write_text(SPYRE_CONFIG)
    (tmp_path / "leg.py").write_text(LEG)
    legs = plan_legs(plan_candidates(load_dispatch(pr_event)), discover_features(ws, []))
    how = LegSettings(
        ws,
        tmp_path / "out",
        "pytest",
        dict(os.environ),
        120,
        template=f"{{python}} {tmp_path / 'leg.py'} {{junit}}",
    )
    return legs[0], how


def _cards(tmp_path, cards, fault):
    return DeviceSettings(cards, fault, tmp_path / "devices", probe_timeout=20)


def test_a_lost_card_is_drained_and_the_leg_re_runs_whole_on_a_healthy_one(tmp_path, leg):
    one, how = leg
    said = []
    result = run_on_devices(
        _cards(tmp_path, ("0", "1"), "error:0@20"), how, lambda h: run_leg(one, h), said.append
    )
    assert result.conclusion == "success" and result.device == "spyre:1" and not result.drained
    assert result.notes[-1].startswith("devices: lost spyre:0: device fault")
    assert result.notes[-1].endswith("re-ran whole on spyre:1")
    assert any("drained" in line for line in said)
    # the card stays sick for the run's later legs: drained before one starts, nothing runs
    never = run_on_devices(
        _cards(tmp_path, ("0",), "error:0@20"), how, lambda h: run_leg(one, h), said.append, head=["core: x"]
    )
    assert (never.conclusion, never.device, never.counts.passed) == ("failure", "spyre:0", 0)
    assert never.notes[0] == "core: x" and never.notes[1].startswith("infra: every device was drained (")
    assert never.drained[0].endswith("(probe before the leg)")


@pytest.mark.parametrize(
    "fault, devices, error",
    [
        (
            "corrupt:3",
            "0,1",
            "--inject-fault 'corrupt:3': names device spyre:3, but the legs run on spyre:0, spyre:1",
        ),
        ("corrupt:1", None, "names device spyre:1, but the legs run on spyre:0 (--devices)"),
        ("melt", None, "--inject-fault 'melt': expected KIND[:DEVICE][@AFTER], KIND one of hang, corrupt"),
        (None, "0,0", "--devices '0,0': expected distinct card numbers like 0,1"),
    ],
)
def test_bad_fault_or_device_values_are_one_line(tmp_path, fault, devices, error):
    with pytest.raises(ConfigError) as err:
        device_settings(fault, devices, lambda: tmp_path)
    assert error in str(err.value) and "\n" not in str(err.value)
    assert device_settings(None, None, lambda: tmp_path) is None
    assert device_settings("hang", None, lambda: tmp_path).fault == "hang:0@20"


def test_run_leg_with_an_injected_fault_sends_an_infra_verdict(tmp_path, pr_event, capsys):
    """The handler end to end (run-leg): --inject-fault on the leg's only card; the verdict it
    writes is infra, the card named in its evidence."""
    from crcr.handler import main as handler

    ws = tmp_path / "ws"
    (ws / "configs" / "spyre").mkdir(parents=True)
    (ws / "configs" / "spyre" / "sums.yaml").write_text(SPYRE_CONFIG)
    (tmp_path / "leg.py").write_text(LEG)
    (tmp_path / "event.json").write_text(json.dumps(pr_event))
    verdict = tmp_path / "verdict.json"
    argv = ["run-leg", "--leg", "0", "--event", str(tmp_path / "event.json"), "--workspace", str(ws)]
    argv += ["--state-dir", str(tmp_path / "state"), "--upstream", "none", "--verdict-out", str(verdict)]
    argv += ["--test-command", f"{{python}} {tmp_path / 'leg.py'} {{junit}}", "--inject-fault", "corrupt"]
    assert handler.run(argv, dict(os.environ)) == 1
    out = capsys.readouterr().out
    assert ": failure (0 passed, 1 failed, 0 skipped)" in out
    lost = "spyre:0: wrong result: got "  # off by one per element since the fault tripped
    assert (
        f"  infra: every device was drained ({lost}" in out
        and ", expected 4096 (probe after the leg))" in out
    )
    sent = json.loads(verdict.read_text())
    assert (sent["category"], sent["confidence"]) == ("infra", "high")
    assert sent["evidence"][0]["excerpt"].startswith(lost) and "upstream" not in sent["summary"]
    details = json.loads(next((tmp_path / "state" / "out").glob("*.results.json")).read_text())
    assert details["device"] == "spyre:0" and details["devices_lost"][0].startswith(lost)
    # triage never re-ran or bisected it: nothing upstream to find on a sick card
    assert "reproduced_on_retry" not in sent


def test_only_legs_on_the_card_are_pinned_and_probed(tmp_path):
    from crcr.handler.devices import on_card

    (tmp_path / "cpu.yaml").write_text("test_suite_config:\n  global:\n    device_type: cpu\n  files: []\n")
    (tmp_path / "plain.yaml").write_text("test_suite_config:\n  files: []\n")
    (tmp_path / "spyre.yaml").write_text(SPYRE_CONFIG)
    assert not on_card(tmp_path, ["cpu.yaml"]) and not on_card(tmp_path, ["plain.yaml"])
    assert on_card(tmp_path, ["spyre.yaml", "plain.yaml"])  # device-wide settings, then the feature's
