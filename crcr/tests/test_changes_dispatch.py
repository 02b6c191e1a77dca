"""Selection at dispatch over a real local upstream (git over file://): the diff from the
dispatch, the change map read through testing/changes, and every way it falls back to the
full leg with one line saying why (push, missing or corrupt map, a diff that cannot be
computed), plus a stale map widening the diff."""

import copy
import os
from pathlib import Path

import pytest

from crcr.dispatch.event import load_dispatch
from crcr.dispatch.plan import Candidate, Leg
from crcr.handler.changes import prepare_changes
from crcr.handler.options import select_budget, select_on
from crcr.handler.runner import Upstream
from crcr.upstream.localrepo import build_repo, file_url
from crcr.upstream.source import UpstreamSource
from testing.changes.changemap import Feature, Function, Recorded, digests, map_from_coverage, write_map

FLAT = "torch/nn/modules/flatten.py"
TEST = "test/nn/test_flat.py"
CODE = "class Flatten:\n    def __init__(self, start_dim=1):\n        self.start_dim = start_dim\n\n    def forward(self, x):\n        return x\n"


def tid(name):
    return f"${{TORCH_ROOT}}/{TEST}::TestFlat::{name}"


@pytest.fixture
def upstream(tmp_path):
    commits = [
        ("base", {FLAT: CODE, TEST: "# tests\n", "docs/a.md": "a\n"}),
        ("flatten from 0", {FLAT: CODE.replace("start_dim=1", "start_dim=0")}),
        ("build", {"CMakeLists.txt": "project(x)\n"}),
    ]
    shas = build_repo(tmp_path / "up.git", commits, os.environ)
    source = UpstreamSource(file_url(tmp_path / "up.git"), tmp_path / "cache")
    return source, shas


def the_map(suite_sha, root, ws):
    init, fwd, other = (tid(f"test_{n}_spyre_float32") for n in ("init", "fwd", "other"))
    tests = {init: Recorded(1.0), fwd: Recorded(1.0), other: Recorded(8.0)}
    roots = {"${TORCH_ROOT}": root, "${REPO_ROOT}": ws}
    return map_from_coverage(
        {"nn": {FLAT: {2: {init}, 3: {init}, 5: {fwd}, 6: {fwd}}}},  # signature lines: the callers
        {FLAT: [1]},  # the class statement, at import
        torch_version="2.13.0+cpu",
        core_git_version="",
        suite_sha=suite_sha,
        functions=(
            Function(FLAT, "Flatten.__init__", 2, 3, True),
            Function(FLAT, "Flatten.forward", 5, 6, True),
        ),
        features={
            "nn": Feature(
                digests([ws / "nn.yaml"], roots),
                digests([root / TEST], roots),
                tests,
                (fwd,),
            )
        },
    )


def dispatch(pr_event, base, head, event_type="pull_request"):
    ev = copy.deepcopy(pr_event)
    cp = ev["client_payload"]
    cp["payload"]["pull_request"]["base"]["sha"] = base
    cp["payload"]["pull_request"]["head"]["sha"] = head
    cp["payload"]["after"] = head
    return load_dispatch(ev)


def leg():
    return Leg(0, Candidate("primary", "HEAD", "x", "x", True), "nn", ("nn.yaml",), 0, 1, "test-nn")


def setup_leg(tmp_path, source, sha, map_sha, pr_event, base, budget=None):
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "nn.yaml").write_text("test_suite_config:\n  files: ['${TORCH_ROOT}/test/nn/test_flat.py']\n")
    root = source.checkout(sha)
    path = write_map(tmp_path / "map.json", the_map(map_sha, root, ws))
    changes = prepare_changes(dispatch(pr_event, base, sha), source, ("pull_request",), path, budget=budget)
    return changes, ws, Upstream(root, sha)


def test_python_change_selects_through_the_map(tmp_path, upstream, pr_event, monkeypatch):
    source, (base, head, _) = upstream
    monkeypatch.setattr("crcr.handler.changes.core_version", lambda: "2.13.0+cpu")
    changes, ws, up = setup_leg(tmp_path, source, head, base, pr_event, base)
    sel = changes.for_leg(leg(), ws, up)
    assert not sel.full and sel.tests == {tid("test_init_spyre_float32"), tid("test_fwd_spyre_float32")}
    assert sel.line().startswith(
        "selected 2 of 3 tests (20.0 % of recorded time): torch/nn/modules/flatten.py:2 Flatten.__init__"
    )


def test_stale_map_widens_to_what_changed_since(tmp_path, upstream, pr_event, monkeypatch):
    source, (base, head, build) = upstream
    monkeypatch.setattr("crcr.handler.changes.core_version", lambda: "2.13.0+cpu")
    # the map covers `base`; the PR is head..build: flatten's change (base..head) must count too
    changes, ws, up = setup_leg(tmp_path, source, build, base, pr_event, head)
    assert [c.path for c in changes.changes] == ["CMakeLists.txt", FLAT]
    sel = changes.for_leg(leg(), ws, up)
    assert sel.full and "build or codegen file changed: CMakeLists.txt" in sel.line()
    assert changes.widened.startswith(f"map at {base[:12]}, widened by 1 files")


def test_other_core_is_file_level(tmp_path, upstream, pr_event, monkeypatch):
    source, (base, head, _) = upstream
    monkeypatch.setattr("crcr.handler.changes.core_version", lambda: "2.14.1+cpu")
    changes, ws, up = setup_leg(tmp_path, source, head, base, pr_event, base)
    sel = changes.for_leg(leg(), ws, up)
    assert "running 2.14.1+cpu: file-level" in sel.line()
    assert tid("test_fwd_spyre_float32") in sel.tests and tid("test_other_spyre_float32") not in sel.tests


@pytest.mark.parametrize("case", ["push", "missing", "corrupt", "unknown_base", "no_source"])
def test_falls_back_to_the_full_leg_in_one_line(tmp_path, upstream, pr_event, case):
    source, (base, head, _) = upstream
    path = tmp_path / "map.json"
    write_map(path, the_map(base, tmp_path, tmp_path))
    d = dispatch(pr_event, base, head)
    if case == "push":
        d = dispatch(pr_event, base, head)
        changes = prepare_changes(d, source, select_on("none", {}), path)
        want = "pull_request dispatches run full (--select-on none)"
    elif case == "missing":
        changes = prepare_changes(d, source, ("pull_request",), tmp_path / "nope.json")
        want = f"no change map at {tmp_path / 'nope.json'}"
    elif case == "corrupt":
        path.write_text('{"format": 2, "functions": [')
        changes = prepare_changes(d, source, ("pull_request",), path)
        want = "corrupt change map (not JSON"
    elif case == "unknown_base":
        changes = prepare_changes(dispatch(pr_event, "f" * 40, head), source, ("pull_request",), path)
        want = f"no diff {'f' * 12}..{head[:12]}: upstream has no commit"
    else:
        changes = prepare_changes(d, None, ("pull_request",), path)
        want = "no upstream history to diff"
    sel = changes.for_leg(leg(), tmp_path, Upstream(Path(tmp_path), head))
    assert sel.full and want in sel.line() and "\n" not in sel.line()


def test_select_on_values():
    assert select_on(None, {}) == ("pull_request",)
    assert select_on(None, {"CRCR_SELECT_ON": "pull_request,push"}) == ("pull_request", "push")
    assert select_on("none", {}) == ()
    with pytest.raises(Exception, match="--select-on 'merge'"):
        select_on("merge", {})


def test_select_budget_values():
    assert select_budget(None, {}) == 0.25  # PyTorch's target determination's default share
    assert select_budget("10%", {"CRCR_SELECT_BUDGET": "off"}) == 0.1
    assert select_budget(None, {"CRCR_SELECT_BUDGET": "off"}) is None
    with pytest.raises(Exception, match="--select-budget: budget 'most'"):
        select_budget("most", {})


def test_the_budget_reaches_each_leg(tmp_path, upstream, pr_event, monkeypatch):
    """The PR reaches test_init only; a 5 % budget (0.5 s of 10 s) still runs it: a changed
    line keeps one test that executed it, so nothing is cut and the line says nothing."""
    source, (base, head, _) = upstream
    monkeypatch.setattr("crcr.handler.changes.core_version", lambda: "2.13.0+cpu")
    changes, ws, up = setup_leg(tmp_path, source, head, base, pr_event, base, budget=0.05)
    assert changes.budget == 0.05
    sel = changes.for_leg(leg(), ws, up)
    assert sel.tests == {tid("test_init_spyre_float32"), tid("test_fwd_spyre_float32")}
    assert sel.cut is None and "budget" not in sel.line()


def test_lines_follow_the_map_core_to_the_pr_base(tmp_path, pr_event, monkeypatch):
    """The map's lines are its core's (the wheel's files); a PR based on a later commit, where
    lines above moved, still selects by the line it changes."""
    monkeypatch.setattr("crcr.handler.changes.core_version", lambda: "2.13.0+cpu")
    moved = "# a header\n# landed later\n" + CODE
    commits = [
        ("core", {FLAT: CODE, TEST: "# tests\n"}),
        ("lines move", {FLAT: moved}),
        ("forward changes", {FLAT: moved.replace("return x", "return x + 0")}),
    ]
    core, base, head = build_repo(tmp_path / "up.git", commits, os.environ)
    source = UpstreamSource(file_url(tmp_path / "up.git"), tmp_path / "cache")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "nn.yaml").write_text("test_suite_config:\n  files: ['${TORCH_ROOT}/test/nn/test_flat.py']\n")
    root = source.checkout(head)
    path = write_map(tmp_path / "map.json", the_map(base, root, ws))
    d = dispatch(pr_event, base, head)
    sel = prepare_changes(d, source, ("pull_request",), path, core_base=core).for_leg(
        leg(), ws, Upstream(root, head)
    )
    assert sel.tests == {tid("test_fwd_spyre_float32")} and "flatten.py:6 Flatten.forward" in sel.line()
    unmoved = prepare_changes(d, source, ("pull_request",), path).for_leg(leg(), ws, Upstream(root, head))
    assert "flatten.py:6" not in unmoved.line()  # read as the map's line 8: past the file's end
