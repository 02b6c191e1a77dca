"""Legs run the suite at the dispatched SHA: ${TORCH_ROOT} config paths resolve
against the checkout, a file the checkout lacks makes the leg neutral (not a
crash), and a leg that executed no test is neutral, never success."""

from pathlib import Path

import pytest

from crcr.callback_client.junit import Counts, read_report
from crcr.dispatch.event import load_dispatch
from crcr.dispatch.plan import config_suites, discover_features, plan_candidates, plan_legs
from crcr.handler.outcome import file_of_testcase, leg_conclusion
from crcr.handler.runner import LegSettings, Upstream, locate_failures, pytest_command, run_leg

UPSTREAM_YAML = (
    "test_suite_config:\n  files:\n    - path: ${TORCH_ROOT}/test/nn/test_*.py\n"
    "    - path: ${TORCH_ROOT}/test/test_gone.py\n"
)


@pytest.fixture
def tree(tmp_path):
    ws, checkout = tmp_path / "ws", tmp_path / "checkout"
    (ws / "testing" / "plugin").mkdir(parents=True)
    (ws / "testing" / "plugin" / "plugin.py").write_text("")
    (ws / "configs").mkdir()
    (checkout / "test" / "nn").mkdir(parents=True)
    (checkout / "test" / "nn" / "test_flat.py").write_text("")
    extra = tmp_path / "upstream"
    extra.mkdir()
    (extra / "nn.yaml").write_text(UPSTREAM_YAML)
    (extra / "only_gone.yaml").write_text(
        "test_suite_config:\n  files:\n    - path: ${TORCH_ROOT}/test/test_gone.py\n"
    )
    return ws, checkout, extra


def legs_of(pr_event, ws, extra):
    return {
        x.feature: x
        for x in plan_legs(plan_candidates(load_dispatch(pr_event)), discover_features(ws, [extra]))
    }


def test_extra_config_dirs_are_features_named_after_the_dir(pr_event, tree):
    ws, _, extra = tree
    legs = legs_of(pr_event, ws, extra)
    assert set(legs) == {"upstream-nn", "upstream-only_gone"}
    assert legs["upstream-nn"].configs == (str(extra / "nn.yaml"),)
    assert legs["upstream-nn"].job_name == "test-upstream-nn"


def test_torch_root_paths_resolve_against_the_checkout(tree):
    ws, checkout, extra = tree
    s = config_suites(ws, str(extra / "nn.yaml"), checkout)
    assert s.upstream == (str(checkout / "test/nn/test_flat.py"),) and s.missing == ("test/test_gone.py",)
    assert config_suites(ws, str(extra / "nn.yaml"), None).missing == (
        "test/nn/test_*.py",
        "test/test_gone.py",
    )


def test_pytest_leg_gets_the_checkout_as_upstream_root_and_rootdir(pr_event, tree):
    ws, checkout, extra = tree
    leg = legs_of(pr_event, ws, extra)["upstream-nn"]
    argv = pytest_command(leg, ws, Path("j.xml"), None, upstream=Upstream(root=checkout, sha="a" * 40))
    assert argv[argv.index("--upstream-root") + 1] == str(checkout)
    assert argv[argv.index("--rootdir") + 1] == str(checkout)
    assert argv[-1] == str(checkout / "test/nn/test_flat.py")


def test_a_config_file_the_checkout_lacks_is_a_neutral_leg(pr_event, tree, tmp_path):
    ws, checkout, extra = tree
    leg = legs_of(pr_event, ws, extra)["upstream-only_gone"]
    marker = tmp_path / "ran"
    r = run_leg(
        leg,
        LegSettings(
            ws,
            tmp_path / "out",
            "pytest",
            {},
            timeout=60,
            template=f"{{python}} -c \"open('{marker}', 'w')\"",
        ),
        upstream=Upstream(root=checkout, sha="b" * 40, core_note="core: wheel as is"),
    )
    assert r.conclusion == "neutral" and r.counts == Counts() and not marker.exists()
    assert r.notes[-1] == f"{extra / 'only_gone.yaml'}: the checkout at bbbbbbbbbbbb lacks test/test_gone.py"
    assert r.notes[0] == "core: wheel as is"
    r = run_leg(leg, LegSettings(ws, tmp_path / "out", "pytest", {}, timeout=60, template="{python} -c pass"))
    assert r.conclusion == "neutral" and "no upstream checkout lacks test/test_gone.py" in r.notes[-1]


@pytest.mark.parametrize(
    "counts,expected",
    [
        (Counts(0, 0, 0), "neutral"),
        (Counts(0, 0, 7), "neutral"),
        (Counts(1, 0, 7), "success"),
        (Counts(3, 1, 0), "success"),
    ],
)  # the exit code decides failure; counts only veto a green
def test_no_executed_test_is_never_success(counts, expected):
    assert leg_conclusion(0, False, counts) == expected
    assert leg_conclusion(1, False, counts) == "failure"


def test_zero_test_leg_end_to_end_is_neutral(pr_event, tree, tmp_path):
    ws, checkout, extra = tree
    leg = legs_of(pr_event, ws, extra)["upstream-nn"]
    write_skips = (
        "{python} -c \"import sys; open(sys.argv[1], 'w').write("
        "'<testsuite><testcase name=\\'a\\'><skipped/></testcase></testsuite>')\" {junit}"
    )
    r = run_leg(
        leg,
        LegSettings(ws, tmp_path / "out", "pytest", {}, timeout=60, template=write_skips),
        upstream=Upstream(root=checkout),
    )
    assert (r.conclusion, r.exit_code, r.counts) == ("neutral", 0, Counts(0, 0, 1))
    assert "0 tests executed: neutral, not success" in r.notes
    assert "not in the checkout: test/test_gone.py" in r.notes


def test_failures_map_to_checkout_files(tmp_path):
    (tmp_path / "test" / "nn").mkdir(parents=True)
    (tmp_path / "test" / "nn" / "test_flat.py").write_text("")
    junit = tmp_path / "j.xml"
    junit.write_text(
        "<testsuite><testcase classname='test.nn.test_flat.TestFlatSPYRE' name='t1'><failure/></testcase>"
        "<testcase classname='test.nn.test_flat.TestFlatSPYRE' name='t2'/></testsuite>"
    )
    report = read_report([junit])
    assert [(c.classname, c.name) for c in report.failures] == [("test.nn.test_flat.TestFlatSPYRE", "t1")]
    assert locate_failures(report, Upstream(root=tmp_path)) == (
        ("test/nn/test_flat.py",),
        ("test/nn/test_flat.py::TestFlatSPYRE::t1",),
    )
    assert file_of_testcase("test.nn.test_flat.TestFlatSPYRE", [tmp_path]) == "test/nn/test_flat.py"
    assert file_of_testcase("testing.suites.test_x.T", [tmp_path]) is None


def _event_for(pr_event, sha, tmp_path):
    import json

    pr_event["client_payload"]["payload"]["pull_request"]["head"]["sha"] = sha
    path = tmp_path / "event.json"
    path.write_text(json.dumps(pr_event))
    return path


PASSING_LEG = (
    '{python} -c "import sys, pathlib; root = pathlib.Path(sys.argv[2]); '
    "ok = (root / 'test/nn/test_flat.py').exists(); "
    "open(sys.argv[1], 'w').write('<testsuite><testcase name=\\'a\\'/></testsuite>'); sys.exit(0 if ok else 1)\" "
    "{junit} {upstream_root}"
)


def test_run_leg_fetches_the_dispatched_sha_from_an_upstream_url(
    pr_event, tree, tmp_path, capsys, monkeypatch
):
    import os

    from crcr.handler import main as handler
    from crcr.upstream.localrepo import build_repo, file_url

    ws, _, extra = tree
    shas = build_repo(
        tmp_path / "u.git",
        [("one", {"test/nn/test_flat.py": "x = 1\n", "version.txt": "2.13.0a0\n"})],
        dict(os.environ),
    )
    event = _event_for(pr_event, shas[0], tmp_path)
    env = {
        **os.environ,
        "CRCR_STATE_DIR": str(tmp_path / "state"),
        "OOT_UPSTREAM_CACHE": str(tmp_path / "cache"),
    }
    env.pop("OOT_UPSTREAM_URL", None)
    argv = [
        "run-leg",
        "--leg",
        "0",
        "--event",
        str(event),
        "--workspace",
        str(ws),
        "--extra-configs",
        str(extra),
        "--upstream-url",
        file_url(tmp_path / "u.git"),
        "--core-base",
        shas[0],
        "--test-command",
        PASSING_LEG,
    ]
    assert handler.run(argv, env) == 0
    out = capsys.readouterr()
    assert "test-upstream-nn: success (1 passed" in out.out
    assert f"checkout {tmp_path / 'cache' / 'checkouts' / shas[0]}" in out.err
    # the dispatched SHA must exist upstream: one line, exit 2
    event = _event_for(pr_event, "f" * 40, tmp_path)
    for key in ("CRCR_STATE_DIR", "OOT_UPSTREAM_CACHE"):  # main() reads the process environment
        monkeypatch.setenv(key, env[key])
    code = handler.main(argv[:4] + [str(event)] + argv[5:])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith(f"dispatch_handler: upstream has no commit {'f' * 40} (file://")


def test_a_given_checkout_at_another_commit_is_refused(pr_event, tree, tmp_path, capsys):
    from crcr.handler import main as handler
    from crcr.upstream.gitcmd import git

    ws, checkout, extra = tree
    git(["init", "-q", str(checkout)])
    git(["add", "-A"], cwd=checkout)
    git(["-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "x"], cwd=checkout)
    event = _event_for(pr_event, "e" * 40, tmp_path)
    code = handler.main(
        [
            "run-leg",
            "--leg",
            "0",
            "--event",
            str(event),
            "--workspace",
            str(ws),
            "--extra-configs",
            str(extra),
            "--upstream-root",
            str(checkout),
            "--state-dir",
            str(tmp_path / "s"),
            "--test-command",
            PASSING_LEG,
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith("dispatch_handler: --upstream-root is at ")
    assert f", not the dispatched {'e' * 40} (" in err[-1]


def test_mode_resolution():
    from argparse import Namespace

    from crcr.handler.options import upstream_mode as resolve_mode

    def a(**kw):
        return Namespace(
            **{"upstream": "auto", "upstream_root": None, "upstream_url": None, "event": None, **kw}
        )

    assert resolve_mode(a(), {}) == "fixture"
    assert resolve_mode(a(event="e.json"), {}) == "none"
    assert resolve_mode(a(), {"GITHUB_EVENT_PATH": "e.json"}) == "none"
    assert resolve_mode(a(event="e.json"), {"OOT_UPSTREAM_URL": "file:///u.git"}) == "fetch"
    assert resolve_mode(a(upstream_root=Path("/x"), upstream="none"), {}) == "root"
    assert resolve_mode(a(upstream="fetch", event="e.json"), {}) == "fetch"


def _run_leg_at(shas, leg_command, pr_event, tree, tmp_path) -> int:
    """run-leg of the tree's first leg at shas[1] of tmp_path/u.git, its core based at shas[0];
    outputs in tmp_path/out."""
    import os

    from crcr.handler import main as handler
    from crcr.upstream.localrepo import file_url

    ws, _, extra = tree
    env = {
        **os.environ,
        "CRCR_STATE_DIR": str(tmp_path / "state"),
        "OOT_UPSTREAM_CACHE": str(tmp_path / "cache"),
    }
    argv = ["run-leg", "--leg", "0", "--event", str(_event_for(pr_event, shas[1], tmp_path))]
    argv += ["--workspace", str(ws), "--extra-configs", str(extra), "--out", str(tmp_path / "out")]
    argv += ["--upstream-url", file_url(tmp_path / "u.git"), "--core-base", shas[0]]
    return handler.run([*argv, "--test-command", leg_command], env)


def test_a_native_change_at_the_dispatched_sha_is_said_in_the_leg_and_its_results(
    pr_event, tree, tmp_path, capsys
):
    """Native sources cannot be laid over the wheel: the leg runs on the nearest wheel and
    says so in its summary and in the results JSON its completed callback links to."""
    import json
    import os

    from crcr.upstream.localrepo import build_repo

    shas = build_repo(
        tmp_path / "u.git",
        [
            ("base", {"test/nn/test_flat.py": "x = 1\n", "version.txt": "2.13.0a0\n"}),
            ("native", {"aten/src/ATen/native/Add.cpp": "// changed kernel\n"}),
        ],
        dict(os.environ),
    )
    out = tmp_path / "out"
    assert _run_leg_at(shas, PASSING_LEG, pr_event, tree, tmp_path) == 0
    # the dispatched change is native only and the core did not apply it: neutral, never success
    said = capsys.readouterr().out
    assert "test-upstream-nn: neutral (1 passed" in said
    note = "core: inexact at "
    untested = "core: native change not tested (1 files: aten/src/ATen/native/Add.cpp)"
    assert note in said and untested in said
    details = json.loads((out / "test-upstream-nn.results.json").read_text())
    assert details["conclusion"] == "neutral"
    assert details["notes"][0].startswith(note) and details["notes"][1] == untested
    assert details["upstream"]["core"]["native"] == ["aten/src/ATen/native/Add.cpp"]
    assert details["exactness"]["state"] == "inexact"
    assert details["exactness"]["native_not_applied"] == ["aten/src/ATen/native/Add.cpp"]


LEAVING_OUT_LEG = (
    '{python} -c "import sys; root = sys.argv[2]; '
    "prop = '<property name=\\'left_out.' + root + '/test/test_newer.py\\' "
    "value=\\'collect: false: imports a name the harness lacks (configs/x.yaml:4)\\'/>'; "
    "open(sys.argv[1], 'w').write('<testsuite><properties>' + prop + '</properties>"
    "<testcase name=\\'a\\'/></testsuite>')\" "
    "{junit} {upstream_root}"
)


# A passing leg that also rewrites its own test file without the import the core lacks: a check
# made after the tests would see the rewritten file and call the core exact.
REWRITING_LEG = (
    '{python} -c "import sys, pathlib; root = pathlib.Path(sys.argv[2]); '
    "(root / 'test/nn/test_flat.py').write_text('x = 1'); "
    "open(sys.argv[1], 'w').write('<testsuite><testcase name=\\'a\\'/></testsuite>')\" "
    "{junit} {upstream_root}"
)


def test_the_files_a_leg_leaves_out_are_named_in_its_summary_and_results(pr_event, tree, tmp_path, capsys):
    """The plugin names each file its configs leave out (a JUnit suite property); the leg
    carries them into its notes (so the summary and the callback say it) and its results JSON,
    relative to the checkout."""
    import json
    import os

    from crcr.handler import main as handler
    from crcr.upstream.localrepo import build_repo, file_url

    ws, _, extra = tree
    shas = build_repo(tmp_path / "u.git", [("base", {"test/nn/test_flat.py": "x = 1\n"})], dict(os.environ))
    env = {
        **os.environ,
        "CRCR_STATE_DIR": str(tmp_path / "state"),
        "OOT_UPSTREAM_CACHE": str(tmp_path / "cache"),
    }
    out = tmp_path / "out"
    argv = ["run-leg", "--leg", "0", "--event", str(_event_for(pr_event, shas[0], tmp_path))]
    argv += ["--workspace", str(ws), "--extra-configs", str(extra), "--out", str(out)]
    argv += ["--upstream-url", file_url(tmp_path / "u.git")]
    assert handler.run([*argv, "--test-command", LEAVING_OUT_LEG], env) == 0
    said = capsys.readouterr().out
    why = "collect: false: imports a name the harness lacks (configs/x.yaml:4)"
    assert f"left out by the configs: 1 file: test/test_newer.py ({why})" in said, said
    details = json.loads((out / "test-upstream-nn.results.json").read_text())
    assert details["left_out_files"] == [{"path": "test/test_newer.py", "why": why}]


def test_the_test_files_import_check_runs_before_the_tests_and_names_the_import(
    pr_event, tree, tmp_path, capsys
):
    """A torch import of the leg's test files that fails on its core is checked before any of
    its tests runs: the leg is inexact from its first line, the failing import named."""
    import json
    import os

    from crcr.upstream.localrepo import build_repo

    needs = "from torch._C import _oot_op_only_a_native_change_adds"
    shas = build_repo(
        tmp_path / "u.git",
        [
            ("base", {"test/nn/test_flat.py": "x = 1\n", "version.txt": "2.13.0a0\n"}),
            ("new op", {"test/nn/test_flat.py": f"import torch\n{needs}\n"}),
        ],
        dict(os.environ),
    )
    out = tmp_path / "out"
    assert _run_leg_at(shas, REWRITING_LEG, pr_event, tree, tmp_path) == 0
    said = capsys.readouterr().out
    details = json.loads((out / "test-upstream-nn.results.json").read_text())
    assert details["exactness"]["state"] == "inexact"
    assert details["exactness"]["failed_import"].startswith(f"test_flat.py: {needs}: ImportError")
    assert details["notes"][0] == details["exactness"]["line"] and needs in details["notes"][0]
    assert f"  {details['exactness']['line']}\n" in said


def test_the_reuse_key_reads_content_and_the_legs_own_core(pr_event, tree, tmp_path):
    """Keyed on content (crcr/handler/reuse.py): another commit with the same core Python and
    test files shares the key; a changed core file, test file or sibling module, or the leg's
    own import check failing on the overlay, is a new key (the leg runs again)."""
    from dataclasses import replace
    from types import SimpleNamespace

    from crcr.handler.reuse import leg_inputs
    from crcr.handler.upstream_setup import UpstreamSetup
    from crcr.upstream.exactness import Exactness
    from crcr.upstream.overlay import CoreDelta

    ws, checkout, extra = tree
    leg = legs_of(pr_event, ws, extra)["upstream-nn"]
    (checkout / "torch").mkdir()
    core_file, test_file = checkout / "torch" / "core.py", checkout / "test" / "nn" / "test_flat.py"
    core_file.write_text("x = 1\n")
    exact = Exactness("exact", base="b" * 40, origin="nightly 2.13.0.dev")
    how = LegSettings(ws, tmp_path / "out", "pytest", {})

    def key(sha="a" * 40, core=exact):
        delta = CoreDelta("b" * 40, sha, (("M", "torch/core.py"),), ())
        setup = UpstreamSetup("root", "", sha, root=checkout, delta=delta, exactness=replace(exact, sha=sha))
        hooks = SimpleNamespace(setup=setup, backend="c" * 40)
        return leg_inputs(leg, how, hooks, None, "2.13.0", replace(core, sha=sha)).key()

    first = key()
    assert first and key("d" * 40) == first  # a commit id alone is not a new key
    assert key(core=exact.with_import_failure("ImportError: no name 'y'")) != first  # the leg's own core
    edits = ((core_file, "x = 2\n"), (test_file, "# edited\n"), (checkout / "test/nn/util.py", ""))
    for path, text in (*edits, (checkout / "test" / "conftest.py", "")):
        before = path.read_text() if path.exists() else None
        path.write_text(text)
        assert key() != first, path.name
        path.unlink() if before is None else path.write_text(before)
    assert key() == first
    core_file.unlink()  # a changed core file the checkout lacks: no content, no key
    assert key() is None
