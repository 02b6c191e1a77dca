"""The embedded default end to end on the generated upstream: real git (file://),
real plugin legs on the checkout at the dispatched SHA with the core overlay,
the emulator's HUD. The regression the fixture seeds at commit 21 of 32 is caught in
its leg only, bisected to exactly that commit in <= 5 runs (upstream/high), and
shown on the HUD with the failed tests and the verdict."""

import json
import os
import shutil
from pathlib import Path

from crcr.handler import main as handler
from crcr.upstream.fixture import COMMITS, NATIVE_PR, REGRESSION_SUBJECT, SEEDED
from crcr.upstream.gitcmd import git

RUNFILES = Path(__file__).resolve().parents[2]


def workspace(tmp_path: Path) -> Path:
    """A small workspace: the real plugin and shard plugin, the spyre device config and one in-tree feature."""
    ws = tmp_path / "ws"
    (ws / "configs" / "spyre").mkdir(parents=True)
    (ws / "WORKSPACE").write_text("")
    for name in ("device.yaml", "tensor_basics.yaml"):
        shutil.copy(RUNFILES / "configs" / "spyre" / name, ws / "configs" / "spyre" / name)
    (ws / "testing").symlink_to(RUNFILES / "testing")  # the plugin and the sharding plugin
    return ws


def test_embedded_default_catches_and_attributes_the_upstream_regression(tmp_path, capsys):
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
    # overlaid from the nightly at commit 24 (which holds the files already: M, not A)
    assert nn["upstream"]["core"]["python"] == [
        {"status": "M", "path": "torch/_fixture_changes.py"},
        {"status": "M", "path": "torch/nn/modules/flatten.py"},
        {"status": "M", "path": "torch/testing/_internal/common_nn_cases.py"},  # the harness rename
    ]
    assert nn["failing_files"] == ["test/nn/test_flatten_device.py"]
    shas = git(
        ["rev-list", "--reverse", "main"], cwd=state / "upstream-fixture" / "pytorch.git"
    ).stdout.split()
    seeded = shas[SEEDED - 1]
    assert len(shas) == COMMITS and (shas[0], shas[-1]) == (base, head)
    b = nn["bisection"]
    assert b["status"] == "found" and b["first_bad"] == {
        "sha": seeded,
        "subject": REGRESSION_SUBJECT,
        "pr": 90001,
    }
    assert b["runs"] <= 5 and b["commits_in_range"] == COMMITS - 1
    v = nn["triage_verdict"]
    assert (v["category"], v["confidence"], v["reproduced_on_retry"]) == ("upstream", "high", True)
    assert v["suspected_upstream"]["commit"] == seeded and v["suspected_upstream"]["pr"] == 90001
    assert [t["name"] for t in nn["failed_tests_detail"]] == [
        f"test_flatten_default_keeps_batch_dim_spyre_{d}" for d in ("float16", "float32", "int64")
    ]
    # the PR's core: the fixture's nightly index has a wheel at commit 24, the nearest
    # first-parent ancestor of head with one: that wheel + the Python overlay 24..32, exact
    e = nn["exactness"]
    assert (e["state"], e["base"], e["native_not_applied"], e["fallback"]) == ("exact", shas[23], [], "")
    assert e["base_wheel"].startswith("nightly ") and ".dev20261224" in e["base_wheel"]
    assert nn["notes"][0].startswith(
        f"core: exact ({e['base_wheel']} at {shas[23][:12]} + 3 python files at "
    )
    assert nn["inputs"]["core"] == head  # last green keys on the resolved core: exact, so the SHA
    printed = capsys.readouterr().err
    assert "exact (nightly)" in printed  # the summary table's core column
    assert f"first bad commit {seeded} ({REGRESSION_SUBJECT}, PR #90001)" in printed
    assert "upstream/high" in printed
    # upstream's harness moving (the fixture's point 7): the flatten test gated on dtype.fp8 skips
    # in its own bucket; the normalization file needs the name the harness renamed: one drift
    # line naming the nightly that still has it; the leg stays red for its regression alone
    cap = "skipped: capability dtype.fp8 unsupported: 1 test(s)"
    drift = (
        "harness drift: test/nn/test_normalization_device.py needs norm_shapes (from "
        f"torch.testing._internal.common_nn_cases); nearest core with it: nightly {e['base_wheel'][8:]} "
        f"({shas[23][:12]})"
    )
    assert cap in nn["notes"] and drift in nn["notes"]
    assert f"test-upstream-spyre-nn: {cap}" in printed and f"test-upstream-spyre-nn: {drift}" in printed
    whole = results["test-upstream-spyre-elementwise"]
    # the whole feature leg: 15 tests, plus the class the fixture's middle commit adds, new in scope:
    # its float64 test fails on spyre, and that is not a failure of the backend; and the class
    # the harness commit moves from GENERIC into the leg's scope (accelerator), named as moved
    assert whole["conclusion"] == "success" and whole["test_results"]["passed"] == 16
    scope = whole["new_in_scope"]
    assert (scope["since"], scope["sha"], scope["passed"], scope["failed"]) == (base, head, 2, 1)
    assert scope["tests"] == [
        "test/test_elementwise_device.py::TestElementwiseCastDevice::test_cast_to_half_matches_cpu",
        "test/test_elementwise_device.py::TestElementwiseExtrasDevice::test_neg_matches_cpu",
        "test/test_elementwise_device.py::TestElementwiseExtrasDevice::test_sum_in_float64_matches_cpu",
    ]
    assert scope["reclassified"] == {
        "test/test_elementwise_device.py::TestElementwiseCastDevice": ["GENERIC", "ACCELERATOR"]
    }
    assert "TestElementwiseExtrasDevice::test_sum_in_float64_matches_cpu" in scope["config_diff"]
    assert any(
        n.startswith("new in scope: 3 (2 passed/1 failed)")
        and n.endswith(
            "reclassified into scope: test/test_elementwise_device.py::TestElementwiseCastDevice (GENERIC -> ACCELERATOR)"
        )
        for n in whole["notes"]
    )
    assert any(n.startswith("adapter: native (asked auto; rules: ") for n in whole["notes"])
    # the regressing commit also adds a test: new in scope (passing), while the old test's failure stays red
    nn_scope = nn["new_in_scope"]
    assert nn_scope["tests"] == [
        "test/nn/test_flatten_device.py::TestFlattenDevice::test_flatten_fp8",
        "test/nn/test_flatten_device.py::TestFlattenDevice::test_flatten_from_dim_zero",
    ]
    assert (nn_scope["passed"], nn_scope["failed"]) == (4, 0)  # 3 dtypes + the capability skip
    # change-aware selection (the fixture's bundled change map): both upstream legs' test files
    # changed, so they run every test of those files (new ones included); the in-tree leg the
    # map covers runs what Flatten.__init__ and the new core module reach: its sentinels
    assert whole["selection"]["mode"] == "selected"
    assert (
        "test file changed, new tests included: test/test_elementwise_device.py" in whole["selection"]["line"]
    )
    # the flatten file, the normalization file (its collection is the drift line) and sentinels
    assert nn["selection"]["line"].startswith("selected 29 of 249 tests (")
    basics = results["test-spyre-tensor_basics"]["selection"]
    assert basics["mode"] == "selected" and basics["selected"] < basics["total"], basics
    assert results["test-spyre-tensor_basics"]["conclusion"] == "success"
    # the baseline push ran full, and said so
    push = json.loads((out / "baseline" / "test-upstream-spyre-elementwise.results.json").read_text())
    assert push["test_results"]["passed"] == 15
    # the baseline at commit 1: no nightly at or before it, the pinned wheel, and it says so
    fell = push["exactness"]
    assert (fell["state"], fell["base_wheel"]) == ("exact", "pinned wheel")
    assert "no nightly at or before" in fell["fallback"] and fell["fallback"].endswith(
        "falling back to the pinned wheel"
    )
    assert push["selection"]["line"] == "full leg: push dispatches run full (--select-on pull_request)"

    report = json.loads((out / "attribution.json").read_text())
    (a,) = report["attributions"]
    assert (a["job_name"], a["verdict"], a["range"]) == (
        "test-upstream-spyre-nn",
        "only_upstream",
        [base, head],
    )
    assert a["message"] == f"only upstream moved: {base}..{head}"
    assert seeded in [c["sha"] for c in a["commits"]]  # one suspect of many: bisection names it

    rows = {r["job_name"]: r for r in json.loads((out / "hud.json").read_text())}
    assert rows["test-upstream-spyre-nn"]["conclusion"] == "failure"
    assert "only upstream moved" in rows["test-upstream-spyre-nn"]["note"]
    assert rows["test-upstream-spyre-nn"]["artifact_url"].endswith("test-upstream-spyre-nn.results.json")
    assert {rows[j]["conclusion"] for j in rows if j != "test-upstream-spyre-nn"} == {"success"}
    page = (out / "hud.html").read_text()
    assert "selected " in page and "tests (" in page
    assert "only upstream moved" in page
    assert "triage: upstream/high" in page and "failed: test.nn.test_flatten_device" in page
    assert (
        json.loads(rows["test-upstream-spyre-nn"]["triage_verdict_json"])["suspected_upstream"]["commit"]
        == seeded
    )

    # the native-only PR: its change never ran on our core, so its legs are neutral, never success
    native = {
        p.name.removesuffix(".results.json"): json.loads(p.read_text())
        for p in (out / "native-pr").glob("*.results.json")
    }
    assert set(native) == {"test-upstream-spyre-elementwise", "test-upstream-spyre-nn"}
    files = sorted(NATIVE_PR)
    untested = f"core: native change not tested (2 files: {files[0]}, {files[1]})"
    for job, r in native.items():
        assert r["conclusion"] == "neutral" and r["triage_verdict"] is None, job
        e = r["exactness"]
        assert (e["state"], e["native_not_applied"], e["dispatched_native_not_tested"]) == (
            "inexact",
            files,
            files,
        )
        assert r["notes"][0].startswith("core: inexact at ") and untested in r["notes"]
    delivery = json.loads((state / "upstream-fixture" / "native_dispatch.json").read_text())[
        "client_payload"
    ]["delivery_id"]
    native_rows = [
        r for r in json.loads((out / "native-pr" / "hud.json").read_text()) if r["delivery_id"] == delivery
    ]
    assert len(native_rows) == 2 and {r["conclusion"] for r in native_rows} == {"neutral"}
    assert all(untested in r["note"] for r in native_rows)
    assert untested in (out / "native-pr" / "hud.html").read_text()
    assert "inexact (2 native not applied)" in printed
