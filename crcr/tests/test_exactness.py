"""Exactness of a leg's core: derived once from the core delta, the same on every surface
(results line, summary cell, HUD cell, conclusion, triage verdict), and the overlay's import
check naming the import it broke."""

import os

import pytest
from rich.console import Console

from crcr.handler.core_import import import_error, overlaid_modules
from crcr.handler.triage import Evidence, Failure, decide, verdict
from crcr.upstream.exactness import EXACT, INEXACT, UNRESOLVED, derive
from crcr.upstream.overlay import build_overlay, core_delta

BASE, SHA = "a" * 40, "b" * 40
KERNEL = "aten/src/ATen/native/Flatten.cpp"
HEADER = "c10/core/Flags.h"


def test_python_only_or_no_change_is_exact():
    d = derive(core_delta(BASE, SHA, [("M", "torch/nn/modules/flatten.py"), ("M", "test/x.py")]), None)
    assert d.state == EXACT and d.exact and not d.native and not d.untested
    assert d.cell() == "exact"
    assert d.line() == "core: exact (wheel at aaaaaaaaaaaa + 1 python files at bbbbbbbbbbbb)"
    assert d.conclusion("success") == "success"
    assert derive(core_delta(BASE, SHA, []), None).line().startswith("core: exact (wheel at aaaaaaaaaaaa, no")


def test_native_files_not_applied_make_it_inexact_with_count_and_list():
    delta = core_delta(BASE, SHA, [("M", KERNEL), ("M", HEADER), ("M", "torch/functional.py")])
    # the dispatched change is Python only: inexact, but its own change ran
    d = derive(delta, ["torch/functional.py"])
    assert d.state == INEXACT and d.native == (KERNEL, HEADER) and d.untested == ()
    assert d.cell() == "inexact (2 native not applied)"
    assert d.line() == (
        f"core: inexact at aaaaaaaaaaaa..bbbbbbbbbbbb: 2 native files not applied: {KERNEL}, {HEADER}"
    )
    assert d.conclusion("success") == "success" and d.untested_line() == ""
    assert d.as_json()["native_not_applied_count"] == 2


def test_a_dispatched_native_change_not_applied_is_neutral_never_success():
    delta = core_delta(BASE, SHA, [("M", KERNEL), ("M", "torch/functional.py")])
    d = derive(delta, [KERNEL])
    assert d.untested == (KERNEL,)
    assert d.conclusion("success") == "neutral"
    assert d.conclusion("failure") == "failure"  # a real failure stays; its verdict is capped
    assert d.untested_line() == f"core: native change not tested (1 files: {KERNEL})"
    # the change unknown (a new branch): every unapplied native file may be the change's
    assert derive(delta, None).untested == (KERNEL,)
    # a base wheel that holds the native change (a --core-wheel at the SHA): nothing untested
    assert derive(core_delta(SHA, SHA, []), [KERNEL]).conclusion("success") == "success"


def test_no_core_diff_is_unresolved():
    d = derive(None, [KERNEL, "torch/x.py"], "core: pinned wheel; no core diff (bad sha)")
    assert d.state == UNRESOLVED and d.cell() == "unresolved"
    assert d.line() == "core: unresolved (pinned wheel; no core diff (bad sha))"
    assert d.conclusion("success") == "neutral" and d.untested == (KERNEL,)


def _upstream_high(**kw) -> Evidence:
    return Evidence(
        "test-nn",
        "failure",
        (Failure("t.py::T::test_x", "boom"),),
        has_last_green=True,
        upstream_moved=True,
        upstream_range="aaaa..cccc",
        retry_failing=("t.py::T::test_x",),
        range_commits=1,
        **kw,
    )


def test_no_upstream_or_backend_high_on_an_inexact_core():
    assert decide(_upstream_high())[:2] == ("upstream", "high")  # exact core: the rules as they are
    gap = derive(core_delta(BASE, SHA, [("M", KERNEL)]), [])
    category, confidence, summary = decide(_upstream_high(core_gap=gap.gap_line()))
    assert (category, confidence) == ("upstream", "medium")
    assert summary.endswith(f"core inexact: 1 native files not applied: {KERNEL}")
    backend = Evidence("test-nn", "failure", has_last_green=True, backend_moved=True, core_gap=gap.gap_line())
    assert decide(backend)[:2] == ("backend", "medium")
    sent = verdict(_upstream_high(core_gap=gap.gap_line()), now=0)
    assert sent["confidence"] == "medium" and KERNEL in sent["summary"]
    failed_import = gap.with_import_failure("torch._new: ImportError: no _new_op")
    assert "fails to import: torch._new" in decide(_upstream_high(core_gap=failed_import.gap_line()))[2]


@pytest.fixture
def wheel(tmp_path):
    """A tiny torch 'wheel' under site/ (the workspace, so the check's wheel-only run finds it)."""
    site = tmp_path / "site"
    torch = site / "torch"
    torch.mkdir(parents=True)
    (torch / "__init__.py").write_text("START = 1\n")
    (torch / "_C.py").write_text("OLD_OP = 1\n")
    (torch / "version.py").write_text(f"__version__ = '2.13.0+cpu'\ngit_version = '{BASE}'\n")
    checkout = tmp_path / "checkout"
    (checkout / "torch").mkdir(parents=True)
    return site, torch, checkout


def test_the_import_check_names_the_import_the_overlay_broke(wheel, tmp_path):
    site, torch, checkout = wheel
    (checkout / "torch" / "fine.py").write_text("from torch._C import OLD_OP\n")
    (checkout / "torch" / "optional.py").write_text("import no_such_third_party_pkg_x\n")
    delta = core_delta(BASE, SHA, [("A", "torch/fine.py"), ("A", "torch/optional.py")])
    assert overlaid_modules(delta) == ["torch.fine", "torch.optional"]
    core = build_overlay(torch, checkout, delta, tmp_path / "cache")
    # a third-party package missing fails on any core: not the overlay's
    assert import_error(delta, core, site, dict(os.environ)) == ""
    (checkout / "torch" / "needs_op.py").write_text("from torch._C import _new_op\n")
    delta = core_delta(BASE, SHA, [("A", "torch/fine.py"), ("A", "torch/needs_op.py")])
    core = build_overlay(torch, checkout, delta, tmp_path / "cache")
    error = import_error(delta, core, site, dict(os.environ))
    assert error.startswith("torch.needs_op: ImportError: cannot import name '_new_op'")
    inexact = derive(delta, None).with_import_failure(error)
    assert inexact.state == INEXACT and inexact.cell() == "inexact (import fails)"


def test_a_leg_whose_test_files_import_what_the_core_lacks_is_inexact(wheel, tmp_path):
    """The leg's own test files: a torch import they make that fails on the core the leg runs
    on makes that leg inexact, naming file and statement; a third-party import does not."""
    from crcr.handler.core_import import leg_import_error, torch_imports

    site, torch, checkout = wheel
    (checkout / "torch" / "fine.py").write_text("from torch._C import OLD_OP\n")
    delta = core_delta(BASE, SHA, [("A", "torch/fine.py")])
    core = build_overlay(torch, checkout, delta, tmp_path / "cache")
    tests = checkout / "test"
    tests.mkdir()
    ok = tests / "test_ok.py"
    ok.write_text("import torch\nfrom torch.fine import OLD_OP\nimport no_such_third_party_pkg_x\n")
    assert leg_import_error([ok], core, site, dict(os.environ)) == ""
    new = tests / "test_new_op.py"
    new.write_text("import os\n\n\ndef helper():\n    from torch._C import OLD_OP, _new_op\n")
    assert torch_imports([ok, new]) == {
        "import torch": "test_ok.py",
        "from torch.fine import OLD_OP": "test_ok.py",
        "from torch._C import OLD_OP, _new_op": "test_new_op.py",
    }
    error = leg_import_error([ok, new], core, site, dict(os.environ))
    assert error.startswith(
        "test_new_op.py: from torch._C import OLD_OP, _new_op: ImportError: cannot import name"
    )
    ex = derive(delta, None).with_import_failure(error)
    assert ex.state == INEXACT and "fails to import: test_new_op.py: from torch._C" in ex.line()


def test_summary_table_and_hud_cell_show_exactness():
    from crcr.callback_client.junit import Counts
    from crcr.handler import cycle
    from crcr.handler.runner import LegResult
    from crcr.relay.hud import render_page

    core = derive(core_delta(BASE, SHA, [("M", KERNEL)]), [KERNEL])
    r = LegResult("neutral", 0, Counts(passed=3), 1.0, (), (core.line(), core.untested_line()), core=core)

    class Leg1:
        index, job_name = 0, "test-nn"

    class S:
        def callback_label(self, _):
            return "delivered"

    console = Console(width=250, record=True)
    console.print(cycle._summary([Leg1], {0: r}, S()))
    table = console.export_text()
    assert "inexact (1 native not applied)" in table and "neutral" in table
    row = {
        "downstream_repo": "a/b",
        "workflow_name": "CRCR",
        "job_name": "test-nn",
        "delivery_id": "d",
        "status": "completed",
        "conclusion": "neutral",
        "note": "; ".join(r.notes),
    }
    page = render_page([row])
    assert core.line() in page and f"core: native change not tested (1 files: {KERNEL})" in page


def test_an_overlay_that_could_not_be_made_leaves_the_core_unresolved():
    from crcr.handler.options import Options
    from crcr.handler.upstream_setup import exactness_of

    note = "core: base wheel; the checkout lacks 1 changed core files (torch/functional.py)"
    delta = core_delta(BASE, SHA, [("M", "torch/functional.py"), ("M", KERNEL)])
    e = exactness_of(Options(), delta, None, note, [KERNEL])
    assert e.state == UNRESOLVED and e.reason.startswith("base wheel; the checkout lacks 1")
    assert e.conclusion("success") == "neutral"  # its native change never ran either


def test_the_bazel_runner_leg_says_it_ran_the_pinned_wheel_without_overlay():
    """The bazel runner runs the wheel in its runfiles as is: whatever base the run resolved
    and whatever it overlaid, that leg's core is inexact, and its line and cell say why."""
    from crcr.callback_client.junit import Counts
    from crcr.dispatch.plan import Candidate, Leg
    from crcr.handler.runner import LegResult
    from crcr.handler.upstream_setup import UpstreamSetup, judge_core

    delta = core_delta(BASE, SHA, [("M", "torch/functional.py")])
    run = derive(delta, ["torch/functional.py"]).based_on("nightly 2.14.0.dev20261201", "")
    setup = UpstreamSetup("fetch", "file:///u", SHA, exactness=run, delta=delta)
    leg = Leg(0, Candidate("primary", "HEAD", SHA, SHA, True), "nn", (), 0, 1, "test-nn")
    assert setup.exactness_for(leg, "pytest") is run and run.exact
    on_bazel = setup.exactness_for(leg, "bazel")
    assert on_bazel.state == INEXACT and on_bazel.cell() == "inexact (no overlay)"
    assert on_bazel.line() == (
        "core: inexact at bbbbbbbbbbbb: the bazel runner ran the pinned wheel in its runfiles, no overlay applied"
    )
    assert on_bazel.as_json()["no_overlay"] and on_bazel.origin == "pinned wheel"
    result = LegResult("success", 0, Counts(), 1.0, (), (run.line(), "other"), runner="bazel")
    judged = judge_core(on_bazel, result)
    assert judged.notes[0] == on_bazel.line() and judged.notes[1] == "other" and judged.core is on_bazel
    # a pinned wheel at the SHA itself, nothing to overlay: exact on the bazel runner too
    same = derive(core_delta(SHA, SHA, []), None)
    assert same.without_overlay() is same


def test_a_bazel_runner_leg_whose_dispatched_change_is_native_is_neutral_never_success():
    """The run's base wheel may hold the dispatched native change (a --core-wheel built at the
    SHA, a nightly past it): the bazel runner ran its runfiles' pinned wheel instead, so that
    change never ran there. The leg is neutral with the reason, as a pytest-runner leg is."""
    from crcr.callback_client.junit import Counts
    from crcr.dispatch.plan import Candidate, Leg
    from crcr.handler.runner import LegResult
    from crcr.handler.upstream_setup import UpstreamSetup, judge_core

    run = derive(core_delta(SHA, SHA, []), [KERNEL, "torch/functional.py"]).based_on("--core-wheel", "")
    assert run.exact and run.untested == ()  # the built wheel holds the change: it ran there
    setup = UpstreamSetup("fetch", "file:///u", SHA, exactness=run, delta=core_delta(SHA, SHA, []))
    leg = Leg(0, Candidate("primary", "HEAD", SHA, SHA, True), "nn", (), 0, 1, "test-nn")
    on_bazel = setup.exactness_for(leg, "bazel")
    assert on_bazel.untested == (KERNEL,)
    judged = judge_core(
        on_bazel, LegResult("success", 0, Counts(passed=2), 1.0, (), (run.line(),), runner="bazel")
    )
    assert judged.conclusion == "neutral"
    assert judged.notes == (on_bazel.line(), f"core: native change not tested (1 files: {KERNEL})")
    # a Python-only dispatched change: the bazel leg is inexact, but nothing native went untested
    python_only = derive(core_delta(SHA, SHA, []), ["torch/functional.py"]).based_on("--core-wheel", "")
    assert (
        judge_core(python_only.without_overlay(), LegResult("success", 0, Counts(), 1.0, ())).conclusion
        == "success"
    )


# ---------------------------------------------------------------- harness drift (crcr/handler/drift.py)

DRIFT_LINE = (
    "harness drift: test/test_binary_ufuncs.py needs binary_ufuncs_and_refs "
    "(from torch.testing._internal.common_methods_invocations)"
)
HARNESS_FILE = "torch/testing/_internal/common_methods_invocations.py"


class _Source:
    """Two nightlies' harness files: the older lacks the name, the newer (not an ancestor) has it."""

    files = {
        ("1" * 40, HARNESS_FILE): "op_db = []\n",
        ("2" * 40, HARNESS_FILE): "binary_ufuncs_and_refs = []\n",
    }

    def file_at(self, sha, path):
        return self.files.get((sha, path))

    def is_ancestor(self, old, new):
        return old == "1" * 40


def _drift_leg(tmp_path, conclusion: str):
    from crcr.callback_client.junit import Counts
    from crcr.handler.runner import LegResult, summary_path

    junit = tmp_path / "leg.xml"
    summary_path(junit).write_text(
        '{"harness_drift": [{"file": "test/test_binary_ufuncs.py", "name": "binary_ufuncs_and_refs", '
        '"module": "torch.testing._internal.common_methods_invocations", "line": "' + DRIFT_LINE + '"}]}'
    )
    return LegResult(conclusion, 0, Counts(passed=3, skipped=1), 1.0, (junit,), ("core: exact",))


def test_harness_drift_makes_a_green_leg_neutral_naming_the_nearest_core_with_it(tmp_path):
    from types import SimpleNamespace

    from crcr.handler.drift import judge_drift
    from crcr.upstream.core_index import Nightly

    nightlies = [
        Nightly("a.whl", "a.whl", "0" * 64, "1" * 40, "2.15.0.dev20261101+cpu"),
        Nightly("b.whl", "b.whl", "0" * 64, "2" * 40, "2.15.0.dev20261201+cpu"),
    ]
    resolver = SimpleNamespace(index="idx", source=_Source(), nightlies=lambda: nightlies)
    judged = judge_drift(_drift_leg(tmp_path, "success"), resolver, SHA)
    assert judged.conclusion == "neutral"
    assert judged.notes == (
        "core: exact",
        DRIFT_LINE + "; nearest core with it: nightly 2.15.0.dev20261201+cpu (222222222222)",
    )
    # without an index: the line alone; a red leg stays red (its failures are its own)
    red = judge_drift(_drift_leg(tmp_path, "failure"), None, SHA)
    assert red.conclusion == "failure" and red.notes[-1] == DRIFT_LINE


def test_the_capability_bucket_is_a_note_per_capability_and_no_verdict(tmp_path):
    """The plugin's capability_skipped, summed over the leg's summaries: one note line per
    capability, as the plugin prints it; the conclusion stays the tests' own (capskips.py)."""
    from crcr.callback_client.junit import Counts
    from crcr.handler.capskips import capability_skipped, note_capability_skips
    from crcr.handler.runner import LegResult, summary_path

    junits = (tmp_path / "a.xml", tmp_path / "b.xml", tmp_path / "c.xml")
    summary_path(junits[0]).write_text('{"capability_skipped": {"dtype.fp8": 2}}')
    summary_path(junits[1]).write_text('{"capability_skipped": {"dtype.fp8": 1, "lib.triton": 1}}')
    leg = LegResult("success", 0, Counts(passed=3, skipped=4), 1.0, junits, ("core: exact",))  # c: none
    assert capability_skipped(leg) == {"dtype.fp8": 3, "lib.triton": 1}
    noted = note_capability_skips(leg)
    assert noted.conclusion == "success" and noted.notes == (
        "core: exact",
        "skipped: capability dtype.fp8 unsupported: 3 test(s)",
        "skipped: capability lib.triton unsupported: 1 test(s)",
    )
    plain = LegResult("success", 0, Counts(passed=3), 1.0, (junits[2],), ("core: exact",))
    assert note_capability_skips(plain) == plain


def test_a_name_the_harness_lacks_is_drift_not_a_core_gap(wheel, tmp_path):
    """A test file importing a name its checkout's harness (torch.testing._internal) lacks is
    harness drift (the plugin's line, crcr/handler/drift.py): the leg's core stays exact."""
    from crcr.handler.core_import import leg_import_error

    site, torch, checkout = wheel
    harness = checkout / "torch" / "testing" / "_internal"
    harness.mkdir(parents=True)
    for init in (checkout / "torch" / "testing" / "__init__.py", harness / "__init__.py"):
        init.write_text("")
    (harness / "common_nn_cases.py").write_text("norm_shapes_and_refs = ()\n")
    added = ["torch/testing/__init__.py", "torch/testing/_internal/__init__.py"]
    delta = core_delta(BASE, SHA, [("A", p) for p in [*added, "torch/testing/_internal/common_nn_cases.py"]])
    core = build_overlay(torch, checkout, delta, tmp_path / "cache")
    tests = checkout / "test"
    tests.mkdir()
    lagging = tests / "test_norm.py"
    lagging.write_text("from torch.testing._internal.common_nn_cases import norm_shapes\n")
    assert leg_import_error([lagging], core, site, dict(os.environ)) == ""
