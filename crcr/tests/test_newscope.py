"""New in scope on a real git history (file://): a class added between the job's last green
suite and the dispatched SHA is reported with its outcomes, never as a regression; a leg
whose only failures are such tests is not red and is not recorded green."""

import json
from pathlib import Path
from types import SimpleNamespace

from crcr.callback_client.junit import Counts
from crcr.handler.newscope import measure
from crcr.handler.options import Options
from crcr.handler.runner import LegResult
from crcr.handler.upstream_setup import UpstreamSetup, after_leg
from crcr.upstream.attribution import GreenStore, Inputs
from crcr.upstream.localrepo import build_repo, file_url
from crcr.upstream.source import UpstreamSource

OLD = "class TestA:\n    def test_x(self, device):\n        pass\n"
NEW = (
    OLD
    + "\n\nclass TestB:\n    def test_y(self, device):\n        pass\n\n    def test_z(self, device):\n        pass\n"
)
RENAMED = "class TestAA:\n    def test_x(self, device):\n        pass\n"
RENAMED_PLUS = RENAMED + "\n    def test_w(self, device):\n        pass\n"
FILE = "test/test_a.py"
CONFIG = """\
test_suite_config:
  files:
    # the upstream file, as a leg's config names it
    - path: ${TORCH_ROOT}/test/test_a.py
      tests:
        - names: [TestA::test_x]  # the bucket the rename keeps
          mode: mandatory_success
"""


def _repo(tmp_path, second=NEW):
    shas = build_repo(tmp_path / "u.git", [("base", {FILE: OLD}), ("add a class", {FILE: second})], {})
    source = UpstreamSource(file_url(tmp_path / "u.git"), tmp_path / "cache")
    return shas, source, source.checkout(shas[1])


def _summary(tmp_path, tests):
    junit = tmp_path / "out" / "job.xml"
    junit.parent.mkdir(exist_ok=True)
    junit.write_text("<testsuites/>")
    (tmp_path / "out" / "job.summary.json").write_text(json.dumps({"tests": tests}))
    return junit


def _t(cls, test, outcome):
    return {"nodeid": f"{FILE}::{cls}CPU::{test}_cpu", "outcome": outcome, "class": cls, "test": test}


def test_new_class_failing_is_new_in_scope_not_red(tmp_path):
    shas, source, root = _repo(tmp_path)
    junit = _summary(
        tmp_path,
        [_t("TestA", "test_x", "passed"), _t("TestB", "test_y", "passed"), _t("TestB", "test_z", "failed")],
    )
    failing = (f"{FILE}::TestBCPU::test_z_cpu",)
    store = GreenStore(tmp_path / "green.sqlite")
    setup = UpstreamSetup("fetch", source.url, shas[1], root, source)
    store.record_green(source.url, "job", Inputs("be", shas[0], shas[0]))
    cfg = tmp_path / "configs" / "leg.yaml"
    cfg.parent.mkdir()
    cfg.write_text(CONFIG)
    leg = SimpleNamespace(
        job_name="job", candidate=SimpleNamespace(bazel_config=None), configs=("configs/leg.yaml",)
    )  # what after_leg reads
    result = LegResult("failure", 1, Counts(), 1.0, (junit,), failing_tests=failing)
    got, found = after_leg(setup, store, leg, result, "be", tmp_path / "out", Options(workspace=tmp_path))
    data = json.loads((tmp_path / "out" / "job.results.json").read_text())
    scope = data["new_in_scope"]
    assert got.conclusion == "success" and found is None
    assert (scope["passed"], scope["failed"], scope["since"]) == (1, 1, shas[0])
    assert scope["tests"] == [f"{FILE}::TestB::test_y", f"{FILE}::TestB::test_z"]
    assert scope["failing"] == list(failing) and scope["hw_classification"] is False
    assert any(n.startswith("new in scope: 2 (1 passed/1 failed)") for n in got.notes)
    assert "none in the checkout" in got.notes[0]
    diff = (tmp_path / "out" / "job.new_in_scope.diff").read_text()
    assert diff == scope["config_diff"] and diff.startswith("--- configs/leg.yaml\n+++ configs/leg.yaml\n")
    assert [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")] == [
        '+        - names: ["TestB::test_y", "TestB::test_z"]',
        "+          mode: xfail_strict",
        '+          reason: "new in scope upstream; not yet looked at on this backend"',
        f'+          since: "{shas[1]}"',
    ]
    _applies(tmp_path, diff, "configs/leg.yaml")
    assert store.last_green(source.url, "job").suite == shas[0]  # not recorded: still new next time
    store.close()


def _applies(tmp_path, diff, rel):
    """The diff applies with patch -p0 from the workspace and the result still loads."""
    import subprocess

    from testing.config.load import load

    subprocess.run(["patch", "-p0", "--dry-run"], input=diff, text=True, cwd=tmp_path, check=True)
    subprocess.run(["patch", "-p0"], input=diff, text=True, cwd=tmp_path, check=True, capture_output=True)
    load(str(tmp_path / rel))


def test_renamed_class_keeps_its_history_and_bucket(tmp_path):
    shas, source, root = _repo(tmp_path, RENAMED_PLUS)
    from crcr.handler.newscope import file_scopes

    scopes = file_scopes(source, root, shas[0], shas[1], [FILE])
    # upstream's diff shows `class TestA` -> `class TestAA`: the old id's history, not new tests;
    # only the method the rename brought along is new
    assert scopes[FILE].renamed == {"TestAA": "TestA"} and scopes[FILE].new == (("TestAA", "test_w"),)
    cfg = tmp_path / "configs" / "leg.yaml"
    cfg.parent.mkdir()
    cfg.write_text(CONFIG)
    junit = _summary(tmp_path, [_t("TestAA", "test_x", "passed"), _t("TestAA", "test_w", "passed")])
    got = measure(
        scopes,
        Path(str(junit).replace(".xml", ".summary.json")),
        shas[0],
        shas[1],
        root,
        (),
        (cfg,),
        tmp_path,
    )
    assert (got.passed, got.failed, got.renamed) == (1, 0, {f"{FILE}::TestAA": f"{FILE}::TestA"})
    changed = [line for line in got.diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed[:2] == [
        "-        - names: [TestA::test_x]  # the bucket the rename keeps",
        "+        - names: [TestAA::test_x]  # the bucket the rename keeps",
    ]
    assert changed[2] == '+        - names: ["TestAA::test_w"]'
    _applies(tmp_path, got.diff, "configs/leg.yaml")


def test_without_a_diff_in_the_hunk_a_lookalike_class_is_new():
    from crcr.upstream.scope import diff_renames, new_in_scope, read_tests

    hunks = "diff --git a/t.py b/t.py\n@@ -1 +1 @@\n-class TestA:\n+class TestAA:\n@@ -9,0 +10 @@\n+class TestC:\n"
    assert diff_renames(hunks) == {"TestAA": "TestA"}
    old, new = read_tests(OLD), read_tests(RENAMED.replace("TestAA", "TestC"))
    # the diff shows no rename to TestC: its tests are new (the overlap guess would call it a rename)
    assert new_in_scope(old, new, diff_renamed={}).new == (("TestC", "test_x"),)
    assert new_in_scope(old, new).renamed == {"TestC": "TestA"}


GENERIC = "class TestA:\n    hw_classification = HardwareClassification.GENERIC\n\n    def test_x(self, device):\n        pass\n"
RUNNER = {"test/run_test.py": 'parser.add_argument("--hw-classification", nargs="+")\n'}


def test_reclassified_into_a_scoped_run_is_new_in_scope(tmp_path):
    """upstream moves TestA from GENERIC to ACCELERATOR: a leg scoped to accelerator runs it for
    the first time; new in scope (never a regression), with the move named."""
    accel = GENERIC.replace("GENERIC", "ACCELERATOR")
    shas = build_repo(
        tmp_path / "u.git", [("base", {FILE: GENERIC, **RUNNER}), ("reclassify", {FILE: accel})], {}
    )
    source = UpstreamSource(file_url(tmp_path / "u.git"), tmp_path / "cache")
    root = source.checkout(shas[1])
    from crcr.handler.newscope import configs_scope, file_scopes

    cfg = tmp_path / "leg.yaml"
    cfg.write_text("test_suite_config:\n  global:\n    scope: accelerator\n")
    wanted = configs_scope((cfg,))
    assert wanted == ("ACCELERATOR",)
    scopes = file_scopes(source, root, shas[0], shas[1], [FILE], wanted)
    assert scopes[FILE].new == (("TestA", "test_x"),)
    assert scopes[FILE].reclassified == {"TestA": ("GENERIC", "ACCELERATOR")}
    junit = _summary(tmp_path, [_t("TestA", "test_x", "failed")])
    got = measure(scopes, Path(str(junit).replace(".xml", ".summary.json")), shas[0], shas[1], root, ())
    assert (got.passed, got.failed, got.hw_classification) == (0, 1, True)
    assert "reclassified into scope: test/test_a.py::TestA (GENERIC -> ACCELERATOR)" in got.line()
    # unscoped, the same move changes nothing: the class ran before too
    assert file_scopes(source, root, shas[0], shas[1], [FILE])[FILE].new == ()
