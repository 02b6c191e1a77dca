"""The embedded default end to end on the generated upstream: real git (file://),
real plugin legs on the checkout at the dispatched SHA with the core overlay,
the emulator's HUD. The regression of the fixture's second commit is caught in
its leg only and attributed to that commit's range."""

import json
import os
import shutil
from pathlib import Path

from crcr.handler import main as handler

RUNFILES = Path(__file__).resolve().parents[2]


def workspace(tmp_path: Path) -> Path:
    """A small workspace: the real plugin and shard plugin, the spyre device config and one in-tree feature."""
    ws = tmp_path / "ws"
    (ws / "configs" / "spyre").mkdir(parents=True)
    (ws / "WORKSPACE").write_text("")
    for name in ("device.yaml", "tensor_basics.yaml"):
        shutil.copy(RUNFILES / "configs" / "spyre" / name, ws / "configs" / "spyre" / name)
    (ws / "testing").symlink_to(RUNFILES / "testing")
    (ws / "tools").symlink_to(RUNFILES / "tools")
    return ws


def test_embedded_default_catches_and_attributes_the_upstream_regression(tmp_path):
    ws = workspace(tmp_path)
    state = tmp_path / "state"
    env = {
        **os.environ,
        "CRCR_STATE_DIR": str(state),
        "OOT_UPSTREAM_CACHE": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
    }
    env.pop("GITHUB_EVENT_PATH", None)
    code = handler.run(["--workspace", str(ws), "--runner", "pytest"], env)
    assert code == 1  # a leg failed (documented exit code)
    out = state / "out"
    fixture = json.loads((state / "upstream-fixture" / "dispatch.json").read_text())
    head = fixture["client_payload"]["payload"]["pull_request"]["head"]["sha"]
    base = fixture["client_payload"]["payload"]["pull_request"]["base"]["sha"]

    results = {
        p.name.removesuffix(".results.json"): json.loads(p.read_text()) for p in out.glob("*.results.json")
    }
    assert set(results) == {
        "test-spyre-tensor_basics",
        "test-upstream-spyre-elementwise",
        "test-upstream-spyre-nn",
    }
    nn = results["test-upstream-spyre-nn"]
    assert nn["conclusion"] == "failure" and nn["test_results"]["failed"] == 3  # 3 dtypes of one test
    assert nn["upstream"]["sha"] == head and nn["upstream"]["root"].endswith(head)
    assert nn["upstream"]["core"]["python"] == [{"status": "M", "path": "torch/nn/modules/flatten.py"}]
    assert nn["failing_files"] == ["test/nn/test_flatten_device.py"]
    # change-aware selection (the fixture's bundled change map): the PR touches Flatten.__init__
    # and the nn test file, so the elementwise leg runs its sentinels only, the nn leg everything
    picked = results["test-upstream-spyre-elementwise"]
    assert picked["conclusion"] == "success" and picked["test_results"]["passed"] == 2
    assert picked["selection"]["mode"] == "selected"
    assert picked["selection"]["line"].startswith("selected 2 of 14 tests (")
    assert nn["selection"]["line"].startswith(
        "selected 13 of 13 tests (100.0 % of recorded time): test file changed"
    )
    assert results["test-spyre-tensor_basics"]["conclusion"] == "success"
    assert results["test-spyre-tensor_basics"]["selection"]["line"].startswith(
        "full leg: the change map has no tests"
    )
    # the baseline push ran full, and said so
    push = json.loads((out / "baseline" / "test-upstream-spyre-elementwise.results.json").read_text())
    assert push["test_results"]["passed"] == 14
    assert push["selection"]["line"] == "full leg: push dispatches run full (--select-on pull_request)"

    report = json.loads((out / "attribution.json").read_text())
    (a,) = report["attributions"]
    assert (a["job_name"], a["verdict"], a["range"]) == (
        "test-upstream-spyre-nn",
        "only_upstream",
        [base, head],
    )
    assert a["message"] == f"only upstream moved: {base}..{head}"
    assert [c["sha"] for c in a["commits"]] == [head]
    assert set(a["commits"][0]["files"]) == {"test/nn/test_flatten_device.py", "torch/nn/modules/flatten.py"}

    rows = {r["job_name"]: r for r in json.loads((out / "hud.json").read_text())}
    assert rows["test-upstream-spyre-nn"]["conclusion"] == "failure"
    assert "only upstream moved" in rows["test-upstream-spyre-nn"]["note"]
    assert rows["test-upstream-spyre-nn"]["artifact_url"].endswith("test-upstream-spyre-nn.results.json")
    assert {rows[j]["conclusion"] for j in rows if j != "test-upstream-spyre-nn"} == {"success"}
    page = (out / "hud.html").read_text()
    assert "only upstream moved" in page and "selected 2 of 14 tests" in page
