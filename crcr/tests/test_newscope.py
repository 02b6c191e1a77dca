"""New in scope on a real git history (file://): a class added between the job's last green
suite and the dispatched SHA is reported with its outcomes, never as a regression; a leg
whose only failures are such tests is not red and is not recorded green."""

import json
from pathlib import Path
from types import SimpleNamespace

from crcr.handler.newscope import measure
from crcr.handler.runner import LegResult
from crcr.handler.upstream import UpstreamSetup, after_leg
from crcr.junit import Counts
from crcr.upstream.attribution import GreenStore, Inputs
from crcr.upstream.localrepo import build_repo, file_url
from crcr.upstream.source import UpstreamSource

OLD = "class TestA:\n    def test_x(self, device):\n        pass\n"
NEW = (
    OLD
    + "\n\nclass TestB:\n    def test_y(self, device):\n        pass\n\n    def test_z(self, device):\n        pass\n"
)
RENAMED = "class TestAA:\n    def test_x(self, device):\n        pass\n"
FILE = "test/test_a.py"


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
    leg = SimpleNamespace(
        job_name="job", candidate=SimpleNamespace(bazel_config=None)
    )  # what after_leg reads
    result = LegResult("failure", 1, Counts(), 1.0, (junit,), failing_tests=failing)
    got, found = after_leg(setup, store, leg, result, "be", tmp_path / "out", {})
    data = json.loads((tmp_path / "out" / "job.results.json").read_text())
    scope = data["new_in_scope"]
    assert got.conclusion == "success" and found is None
    assert (scope["passed"], scope["failed"], scope["since"]) == (1, 1, shas[0])
    assert scope["tests"] == [f"{FILE}::TestB::test_y", f"{FILE}::TestB::test_z"]
    assert scope["failing"] == list(failing) and scope["hw_classification"] is False
    assert any(n.startswith("new in scope: 2 (1 passed/1 failed)") for n in got.notes)
    assert "none in the checkout" in got.notes[0]
    assert (tmp_path / "out" / "job.new_in_scope.yaml").read_text().count("TestB::test_") == 2
    assert store.last_green(source.url, "job").suite == shas[0]  # not recorded: still new next time
    store.close()


def test_renamed_class_keeps_its_history(tmp_path):
    shas, source, root = _repo(tmp_path, RENAMED)
    from crcr.handler.newscope import file_scopes

    scopes = file_scopes(source, root, shas[0], [FILE])
    assert scopes[FILE].new == () and scopes[FILE].renamed == {"TestAA": "TestA"}
    junit = _summary(tmp_path, [_t("TestAA", "test_x", "passed")])
    assert (
        measure(scopes, Path(str(junit).replace(".xml", ".summary.json")), shas[0], shas[1], root, ()) is None
    )
