"""Warm re-runs of a real upstream-style device test file on spyre, through the plugin, at a
real core overlay (the fixture's regression laid over the wheel): the first run at the overlay
starts its zygote (torch imported there), the second forks it, and both collect, decide and
fail exactly as a fresh `python -m pytest` does. (A zygote that also imported torch's
device-test harness before the plugin registered the backend collected no spyre test at all.)"""

import shutil
from pathlib import Path

from crcr.callback_client.junit import read_report
from crcr.dispatch.plan import Candidate, Leg
from crcr.handler.investigate import Rerunner
from crcr.upstream import fixture
from crcr.upstream.bisect import BAD
from crcr.upstream.overlay import CoreDelta, build_overlay, wheel_torch_dir

WS = Path(__file__).resolve().parents[2]
SHA = "a" * 40
FAILING = tuple(
    f"test/nn/test_flatten_device.py::TestFlattenDeviceSPYRE::test_flatten_default_keeps_batch_dim_spyre_{d}"
    for d in ("float16", "float32", "int64")
)


def _checkout(tmp_path: Path) -> Path:
    """The fixture's nn test file and its regressed flatten.py, as a checkout holds them."""
    root = tmp_path / "checkout"
    (root / "test" / "nn").mkdir(parents=True)
    shutil.copy(fixture.HERE / "base" / fixture.REGRESSED_TEST, root / fixture.REGRESSED_TEST)
    flatten = (wheel_torch_dir() / "nn" / "modules" / "flatten.py").read_text()
    (root / fixture.CORE_FILE).parent.mkdir(parents=True)
    (root / fixture.CORE_FILE).write_text(flatten.replace(fixture.GOOD, fixture.BAD))
    return root


def _cases(out: Path) -> dict[str, str]:
    report = read_report(sorted((out / "reruns").glob("*.xml")))
    return {f"{c.classname}::{c.name}": c.outcome.value for c in report.cases}


def test_warm_runs_at_an_overlay_are_the_fresh_interpreters_runs(tmp_path):
    root = _checkout(tmp_path)
    delta = CoreDelta("b" * 40, SHA, (("M", fixture.CORE_FILE),), ())
    core = build_overlay(wheel_torch_dir(), root, delta, tmp_path / "cache")
    configs = ("configs/spyre/device.yaml", "crcr/upstream/fixture/upstream/spyre/nn.yaml")
    leg = Leg(0, Candidate("primary", "HEAD", SHA, SHA, True), "upstream-spyre-nn", configs, 0, 1, "nn")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    probes, cases = {}, {}
    for how in ("fresh", "warm"):
        out = tmp_path / how
        with Rerunner(
            leg, WS, out, env, None, lambda r, s: (delta, core, ""), 600, {SHA: root}, warm=how == "warm"
        ) as r:
            probes[how] = [r.probe(SHA, FAILING) for _ in range(1 if how == "fresh" else 2)]
            forked = dict(r._zygote.forked) if r._zygote else {}
            off = r._zygote.off if r._zygote else ""
        cases[how] = _cases(out)
    assert off == "" and forked == {"new": 1, "reused": 1}, (off, forked)
    for p in probes["fresh"] + probes["warm"]:
        assert p.outcome == BAD and p.failing == FAILING, p
    assert len(cases["fresh"]) == 3 and set(cases["fresh"].values()) == {"failed"}
    assert cases["warm"] == cases["fresh"]  # the same tests, the same outcomes, twice over
