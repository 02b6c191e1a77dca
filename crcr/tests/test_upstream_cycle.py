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
    whole = results["test-upstream-spyre-elementwise"]
    # the whole feature leg: 14 tests, plus the class the fixture's middle commit adds, new in scope:
    # its float64 test fails on spyre, and that is not a failure of the backend
    assert whole["conclusion"] == "success" and whole["test_results"]["passed"] == 15
    scope = whole["new_in_scope"]
    assert (scope["since"], scope["sha"], scope["passed"], scope["failed"]) == (base, head, 1, 1)
    assert scope["tests"] == [
        "test/test_elementwise_device.py::TestElementwiseExtrasDevice::test_neg_matches_cpu",
        "test/test_elementwise_device.py::TestElementwiseExtrasDevice::test_sum_in_float64_matches_cpu",
    ]
    assert "TestElementwiseExtrasDevice::test_sum_in_float64_matches_cpu" in scope["config_fragment"]
    assert any(n.startswith("new in scope: 2 (1 passed/1 failed)") for n in whole["notes"])
    assert any(n.startswith("adapter: native (asked auto; rules: ") for n in whole["notes"])
    # the regressing commit also adds a test: new in scope (passing), while the old test's failure stays red
    nn_scope = nn["new_in_scope"]
    assert nn_scope["tests"] == [
        "test/nn/test_flatten_device.py::TestFlattenDevice::test_flatten_from_dim_zero"
    ]
    assert (nn_scope["passed"], nn_scope["failed"]) == (3, 0)
    assert results["test-spyre-tensor_basics"]["conclusion"] == "success"

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
    assert "only upstream moved" in (out / "hud.html").read_text()
