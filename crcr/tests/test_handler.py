import json
import sys
from pathlib import Path

import pytest

from crcr.callback_client.errors import ConfigError
from crcr.dispatch.event import load_dispatch
from crcr.dispatch.plan import Feature, auto_shards, discover_features, matrix, plan_candidates, plan_legs
from crcr.handler import main as handler
from crcr.handler.options import choose_runner
from crcr.handler.runner import conclusion_for, template_command
from crcr.upstream.attribution import GreenStore
from testing.config import runs


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "WORKSPACE").write_text("")
    (tmp_path / "configs").mkdir()
    for name in ("ops", "modules"):
        (tmp_path / "configs" / f"{name}.yaml").write_text(FEATURE_YAML)
    return tmp_path


FEATURE_YAML = "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/testing/suites/test_x.py\n"


def test_device_wide_configs_join_every_leg_of_their_directory(tmp_path):
    dev = tmp_path / "configs" / "spyre"
    dev.mkdir(parents=True)
    (dev / "device.yaml").write_text("test_suite_config:\n  global:\n    backend: torch_spyre\n")
    (tmp_path / "configs" / "schema").mkdir()
    (tmp_path / "configs" / "schema" / "x.yaml").write_text(FEATURE_YAML)
    assert discover_features(tmp_path) == [Feature("spyre", ("configs/spyre/device.yaml",))]
    (dev / "ops.yaml").write_text(FEATURE_YAML)
    (dev / "broken.yaml").write_text("test_suite_config: [unclosed\n")  # its leg reports the error
    assert discover_features(tmp_path) == [
        Feature("spyre-broken", ("configs/spyre/device.yaml", "configs/spyre/broken.yaml")),
        Feature("spyre-ops", ("configs/spyre/device.yaml", "configs/spyre/ops.yaml")),
    ]
    assert auto_shards(discover_features(tmp_path), 0) == 1
    assert auto_shards([("spyre", ())], 0) == 2 and auto_shards([("spyre", ())], 3) == 3


def test_primary_candidate_and_others(pr_event):
    d = load_dispatch(pr_event)
    cands = plan_candidates(d, ["HEAD", "v0.1"])
    assert [(c.name, c.primary, c.core, c.suite) for c in cands] == [
        ("primary", True, d.sha, d.sha),
        ("backend-v0.1", False, d.sha, d.sha),
    ]


def test_legs_from_configs_with_unique_job_names(pr_event, ws):
    d = load_dispatch(pr_event)
    legs = plan_legs(plan_candidates(d, ["HEAD", "v0.1"]), discover_features(ws), shards=2)
    names = [x.job_name for x in legs]
    assert len(legs) == 8 and len(set(names)) == 8
    assert "test-modules-1of2" in names and "test-backend-v0.1-ops-2of2" in names
    entry = matrix(legs)["include"][0]
    assert entry["configs"] == "configs/modules.yaml" and entry["candidate_primary"] is True


def test_no_configs_means_one_leg(pr_event, tmp_path):
    legs = plan_legs(plan_candidates(load_dispatch(pr_event)), discover_features(tmp_path))
    assert [(x.feature, x.configs) for x in legs] == [("all", ())]


def test_runner_choice():
    assert choose_runner("auto", {"BUILD_WORKSPACE_DIRECTORY": "/w"}) == "pytest"  # no bazel-in-bazel
    assert choose_runner("auto", {}) == "bazel"
    with pytest.raises(ConfigError):
        choose_runner("make", {})


@pytest.mark.parametrize(
    "code,timed_out,expected",
    [
        (0, False, "success"),
        (1, False, "failure"),
        (5, False, "neutral"),
        (2, False, "failure"),
        (-15, False, "cancelled"),
        (0, True, "timed_out"),
    ],
)
def test_conclusions(code, timed_out, expected):
    assert conclusion_for(code, timed_out, False) == expected


def test_template_substitutes_inside_single_arguments(pr_event, ws):
    leg = plan_legs(plan_candidates(load_dispatch(pr_event)), discover_features(ws))[0]
    argv = template_command(
        "{python} -m pytest --config={config} --junitxml '{junit}'", leg, ws, Path("a b.xml")
    )
    assert argv == [sys.executable, "-m", "pytest", "--config=configs/modules.yaml", "--junitxml", "a b.xml"]
    with pytest.raises(ConfigError):
        template_command("'unclosed", leg, ws, Path("x"))


def test_plan_mode_writes_github_outputs(pr_event, ws, tmp_path, capsys):
    out = tmp_path / "gh_output"
    event = tmp_path / "event.json"
    event.write_text(json.dumps(pr_event))
    assert (
        handler.run(
            ["plan", "--workspace", str(ws)], {"GITHUB_EVENT_PATH": str(event), "GITHUB_OUTPUT": str(out)}
        )
        == 0
    )
    printed = json.loads(capsys.readouterr().out)
    assert len(printed["include"]) == 2
    assert "run=true" in out.read_text()
    assert (
        f"upstream_sha={pr_event['client_payload']['payload']['pull_request']['head']['sha']}\n"
        in out.read_text()
    )


@pytest.mark.parametrize(
    "body, said",
    [
        ("test_suite_config:\n  global: [\n", "ops.yaml:3: YAML syntax error"),
        ("test_suite_config:\n  global:\n    bogus_key: 1\n", "ops.yaml:3: global.bogus_key: unknown key"),
    ],
)
def test_plan_stops_on_a_config_that_does_not_load(pr_event, ws, tmp_path, capsys, body, said):
    # plan used to print a leg for it: the error came only when that leg ran
    (ws / "configs" / "ops.yaml").write_text(body)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(pr_event))
    argv = ["plan", "--workspace", str(ws), "--event", str(event)]
    assert handler.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and said in captured.err and captured.err.count("\n") == 1


def test_plan_names_unknown_dtypes_and_ops_with_the_closest(pr_event, ws, tmp_path, capsys):
    (ws / "configs" / "ops.yaml").write_text(
        "test_suite_config:\n  global:\n    supported_dtypes: [flaot16]\n    supported_ops: [addd]\n"
        + FEATURE_YAML.removeprefix("test_suite_config:\n")
    )
    event = tmp_path / "event.json"
    event.write_text(json.dumps(pr_event))
    assert handler.main(["plan", "--workspace", str(ws), "--event", str(event)]) == 0
    warned = [x for x in capsys.readouterr().err.splitlines() if "warning" in x]
    assert warned == [
        f"dispatch_handler: warning: {ws}/configs/ops.yaml:3: global.supported_dtypes: "
        "unknown dtype 'flaot16' (ignored); closest: float16, bfloat16, float64",
        f"dispatch_handler: warning: {ws}/configs/ops.yaml:4: global.supported_ops: "
        "unknown op 'addd' (ignored); closest: add, addr, addcdiv",
    ]


def test_skipped_dispatch_plans_nothing(pr_event, ws, tmp_path, capsys):
    pr_event["client_payload"]["payload"]["action"] = "closed"
    event = tmp_path / "e.json"
    event.write_text(json.dumps(pr_event))
    assert handler.run(["--event", str(event), "--workspace", str(ws)], {}) == 0
    assert "closed without landing" in capsys.readouterr().out


def test_bad_event_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "e.json"
    bad.write_text(
        '{"client_payload": {"event_type": "push", "delivery_id": "x", "payload": {"ref": "main"}}}'
    )
    assert handler.main(["--event", str(bad), "plan"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "payload.ref" in err


FAKE_LEG = """
import sys, pathlib
junit, config = sys.argv[1], sys.argv[2]
fail = 1 if "modules" in config else 0
cases = "<testcase name='a'/><testcase name='b'/><testcase name='c'><skipped/></testcase>"
cases += "<testcase name='d'><failure/></testcase>" * fail
pathlib.Path(junit).write_text(f"<testsuites><testsuite>{cases}</testsuite></testsuites>")
sys.exit(fail)
"""


def test_local_cycle_reports_every_leg_to_the_embedded_emulator(ws, tmp_path):
    script = tmp_path / "fake_leg.py"
    script.write_text(FAKE_LEG)
    out = tmp_path / "out"
    code = handler.run(
        [
            "--workspace",
            str(ws),
            "--out",
            str(out),
            "--runner",
            "pytest",
            "--upstream",
            "none",
            "--test-command",
            f"{{python}} {script} {{junit}} {{config}}",
        ],
        {"CRCR_STATE_DIR": str(tmp_path / "state")},
    )
    assert code == 1  # the modules leg failed its tests
    rows = {r["job_name"]: r for r in json.loads((out / "hud.json").read_text())}
    assert set(rows) == {"test-modules", "test-ops"}
    assert (
        rows["test-ops"]["conclusion"],
        rows["test-ops"]["tests_passed"],
        rows["test-ops"]["tests_skipped"],
    ) == ("success", 2, 1)
    assert (rows["test-modules"]["conclusion"], rows["test-modules"]["tests_failed"]) == ("failure", 1)
    assert all(r["execution_time"] is not None for r in rows.values())
    # queue time is per run: only the run's first in_progress carries it (the relay's rule)
    assert sum(r.get("queue_time") is not None for r in rows.values()) == 1
    page = (out / "hud.html").read_text()
    assert "test-modules" in page and "test-ops" in page and "PR #184442" in page


def test_pytest_leg_runs_the_suites_its_config_lists(pr_event, tmp_path):
    from crcr.handler.runner import Upstream, pytest_command

    (tmp_path / "testing" / "suites").mkdir(parents=True)
    for name in ("test_a.py", "test_b.py", "test_c.py"):
        (tmp_path / "testing" / "suites" / name).write_text("")
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "ab.yaml").write_text(
        "test_suite_config:\n  files:\n    - path: ${REPO_ROOT}/testing/suites/test_[ab].py\n"
        "    - path: ${TORCH_ROOT}/test/test_ops.py\n"
    )
    (tmp_path / "configs" / "none.yaml").write_text(
        "test_suite_config:\n  files:\n    - path: ${TORCH_ROOT}/test/x.py\n"
    )
    legs = {
        x.feature: x for x in plan_legs(plan_candidates(load_dispatch(pr_event)), discover_features(tmp_path))
    }
    assert pytest_command(legs["ab"], tmp_path, Path("j.xml"), None)[-2:] == [
        "testing/suites/test_a.py",
        "testing/suites/test_b.py",
    ]
    assert pytest_command(legs["none"], tmp_path, Path("j.xml"), None)[-1] == "testing/suites"
    # in-tree node ids are relative to the workspace, wherever the upstream checkout lives
    # (pytest's common-ancestor guess prefixed them with the checkout's directory name)
    elsewhere = Upstream(root=tmp_path.parent / "checkout", sha="a" * 40)
    argv = pytest_command(legs["ab"], tmp_path, Path("j.xml"), None, upstream=elsewhere)
    assert argv[argv.index("--rootdir") + 1] == str(tmp_path)


def test_smoke_runs_one_balanced_slice_of_each_leg(pr_event, ws):
    from crcr.handler.runner import pytest_command

    (ws / "testing" / "matrix").mkdir(parents=True)
    (ws / "testing" / "matrix" / "plugin.py").write_text("")
    legs = plan_legs(plan_candidates(load_dispatch(pr_event)), discover_features(ws), shards=2)
    argv = pytest_command(legs[1], ws, Path("j.xml"), None, smoke=10)
    i = argv.index(runs.SHARD_PLUGIN)
    assert argv[i + 1 : i + 5] == ["--shard-index", "1", "--shard-total", "20"]
    assert runs.SHARD_PLUGIN not in pytest_command(
        plan_legs(plan_candidates(load_dispatch(pr_event)), discover_features(ws))[0], ws, Path("j"), None
    )


def test_bazel_leg_targets_follow_testing_targets_naming(pr_event, tmp_path):
    from crcr.handler.runner import bazel_command

    (tmp_path / "configs" / "spyre").mkdir(parents=True)
    (tmp_path / "configs" / "spyre" / "op_consistency.yaml").write_text(FEATURE_YAML)
    (leg0, leg1) = plan_legs(plan_candidates(load_dispatch(pr_event)), discover_features(tmp_path), shards=2)
    argv = bazel_command(leg1, tmp_path, "//testing:config_{key}")
    assert argv[1:3] == ["test", "//testing:config_spyre_op_consistency"]
    assert "--test_arg=--shard-index=1" in argv and "--test_arg=--shard-total=2" in argv
    with pytest.raises(ConfigError, match="target-template"):
        bazel_command(leg0, tmp_path, "//testing:{nope}")


def test_a_bazel_leg_pinned_to_a_card_carries_the_pinning_into_its_tests(pr_event, tmp_path):
    """`bazel test` hands a test none of our environment: the card's pinning goes in as
    --test_env, and no cached result stands in for a run on this card (handler/devices.py)."""
    import os

    from crcr.handler.devices import DeviceSettings
    from crcr.handler.runner import LegSettings, run_leg

    (tmp_path / "configs" / "spyre").mkdir(parents=True)
    (tmp_path / "configs" / "spyre" / "op_consistency.yaml").write_text(FEATURE_YAML)
    (tmp_path / "tools").mkdir()
    bazel = tmp_path / "tools" / "bazel"  # says what it was asked; 4: no test ran
    bazel.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$(dirname "$0")/argv.txt"\nexit 4\n')
    bazel.chmod(0o755)
    leg = plan_legs(plan_candidates(load_dispatch(pr_event)), discover_features(tmp_path))[0]
    how = LegSettings(tmp_path, tmp_path / "out", "bazel", dict(os.environ), 60)
    cards = DeviceSettings(("0", "2"), "error:2@5", tmp_path / "devices")
    run_leg(leg, cards.pinned(how, "2"))
    argv = (tmp_path / "tools" / "argv.txt").read_text().splitlines()
    state = cards.env({}, "2")["SPYRE_STATE_DIR"]
    assert argv[:2] == ["test", "//testing:config_spyre_op_consistency"]
    assert argv[-6:] == [
        "--test_env=SPYRE_DEVICE_COUNT=3",
        "--test_env=SPYRE_VISIBLE_DEVICES=2",
        f"--test_env=SPYRE_STATE_DIR={state}",
        "--test_env=SPYRE_FAULTS=error:2@5",
        f"--sandbox_writable_path={state}",
        "--nocache_test_results",
    ]
    run_leg(leg, how)  # not pinned: as always
    assert not any("SPYRE" in a for a in (tmp_path / "tools" / "argv.txt").read_text().splitlines())


def test_core_config_plans_newest_backend_on_that_core(pr_event, ws):
    from crcr.dispatch.plan import check_core_configs
    from crcr.handler.runner import bazel_command

    d = load_dispatch(pr_event)
    cands = plan_candidates(d, ["HEAD", "v0.1"], ["torch-2.14.1"])
    assert [(c.name, c.backend, c.core, c.primary, c.bazel_config) for c in cands][2] == (
        "core-torch-2.14.1",
        "HEAD",
        "torch-2.14.1",
        False,
        "torch-2.14.1",
    )
    legs = plan_legs(cands[::2], discover_features(ws))
    core_legs = [x for x in legs if x.candidate.bazel_config]
    assert [x.job_name for x in core_legs] == ["test-core-torch-2.14.1-modules", "test-core-torch-2.14.1-ops"]
    assert matrix(core_legs)["include"][0]["candidate_bazel_config"] == "torch-2.14.1"
    assert "--config=torch-2.14.1" in bazel_command(core_legs[0], ws, "//testing:config_{key}")
    assert not any(a.startswith("--config") for a in bazel_command(legs[0], ws, "//testing:config_{key}"))
    check_core_configs(["torch-2.14.1"], "build:torch-2.14.1 --define=torch=2.14.1\n")
    with pytest.raises(ConfigError, match=r"no build:torch-9 \(defined: disk, torch-2.14.1\)"):
        check_core_configs(
            ["torch-9"], "build:disk --disk_cache=x\nbuild:torch-2.14.1 --define=torch=2.14.1\n"
        )
    with pytest.raises(ConfigError, match="not a Bazel config name"):
        check_core_configs(["a b"], "")


def test_core_legs_refuse_runners_without_bazel_before_any_callback(pr_event, ws):
    from crcr.handler.runner import check_runner_can_run

    legs = plan_legs(
        plan_candidates(load_dispatch(pr_event), ["HEAD"], ["torch-2.14.1"]), discover_features(ws)
    )
    check_runner_can_run(legs, "bazel", None)
    check_runner_can_run(legs[:2], "pytest", None)  # the primary legs: any runner
    with pytest.raises(ConfigError, match="test-core-torch-2.14.1-modules: .* needs --runner bazel"):
        check_runner_can_run(legs, "pytest", None)
    with pytest.raises(ConfigError, match="no --test-command"):
        check_runner_can_run(legs, "bazel", "{python} -m pytest")


def test_plan_cli_with_an_unknown_core_config_is_one_line(pr_event, ws, capsys):
    (ws / ".bazelrc").write_text("build:torch-2.14.1 --define=torch=2.14.1\n")
    event = ws / "event.json"
    event.write_text(json.dumps(pr_event))
    code = handler.main(["plan", "--event", str(event), "--workspace", str(ws), "--core-config", "torch-3"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and "--core-config torch-3: .bazelrc has no build:torch-3" in err[0]
    assert (
        handler.main(["plan", "--event", str(event), "--workspace", str(ws), "--core-config", "torch-2.14.1"])
        == 0
    )
    plan = json.loads(capsys.readouterr().out)
    assert {e["candidate_name"] for e in plan["include"]} == {"primary", "core-torch-2.14.1"}


def test_core_configs_default_from_the_environment(pr_event, ws, capsys):
    (ws / ".bazelrc").write_text("build:torch-2.14.1 --define=torch=2.14.1\n")
    event = ws / "event.json"
    event.write_text(json.dumps(pr_event))
    code = handler.run(
        ["plan", "--event", str(event), "--workspace", str(ws)], env={"CRCR_CORE_CONFIGS": "torch-2.14.1"}
    )
    plan = json.loads(capsys.readouterr().out)
    assert code == 0 and [e["job_name"] for e in plan["include"]][-1] == "test-core-torch-2.14.1-ops"


def test_hud_read_back_errors_are_crcr_errors_not_requests_ones(tmp_path):
    """A HUD that answers 500 (a real HTTP server on 127.0.0.1) is a RelayError, which the
    handler prints as one line; requests' HTTPError never reaches it."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from types import SimpleNamespace

    from crcr.callback_client.errors import CrcrError, RelayError
    from crcr.handler import cycle

    class Failing(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"hud is down")

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        session = SimpleNamespace(
            hud_url=f"http://127.0.0.1:{server.server_port}/hud",
            dispatch=SimpleNamespace(delivery_id="d-1"),
        )
        with pytest.raises(RelayError, match="api/crcr/results: hud is down") as err:
            cycle._check_hud(session, [], tmp_path)
        assert isinstance(err.value, CrcrError)
    finally:
        server.shutdown()
        server.server_close()
    assert not list(tmp_path.iterdir())  # no half-written snapshot


# A stand-in for the sharding plugin (testing/matrix/plugin.py) with its options: keeps every N-th test of the run
# (the real one balances by duration; only the slicing matters here).
SLICING_PLUGIN = """
def pytest_addoption(parser):
    parser.addoption("--shard-index", type=int, default=0)
    parser.addoption("--shard-total", type=int, default=1)


def pytest_collection_modifyitems(config, items):
    i, n = config.getoption("shard_index"), config.getoption("shard_total")
    items[:] = [t for k, t in enumerate(items) if k % n == i]
"""


def test_run_leg_with_the_pytest_runner_counts_the_whole_leg_not_a_smoke_slice(pr_event, tmp_path, capsys):
    """run-leg is a CI leg: every test of its config runs, whatever the cycle's --smoke;
    the local cycle's default runs one slice of the same leg (a real pytest subprocess)."""
    ws = tmp_path / "ws"
    (ws / "configs").mkdir(parents=True)
    (ws / "WORKSPACE").write_text("")
    (ws / "configs" / "ops.yaml").write_text(FEATURE_YAML)
    (ws / "testing" / "suites").mkdir(parents=True)
    tests = "".join(f"def test_{i}():\n    pass\n\n\n" for i in range(20))
    (ws / "testing" / "suites" / "test_x.py").write_text(tests)
    (ws / "testing" / "matrix").mkdir(parents=True)
    (ws / "testing" / "__init__.py").write_text("")
    (ws / "testing" / "matrix" / "__init__.py").write_text("")
    (ws / "testing" / "matrix" / "plugin.py").write_text(SLICING_PLUGIN)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(pr_event))
    common = [
        "--event",
        str(event),
        "--workspace",
        str(ws),
        "--runner",
        "pytest",
        "--upstream",
        "none",
        "--shards",
        "1",
    ]
    env = {"CRCR_STATE_DIR": str(tmp_path / "state")}

    code = handler.run(
        ["run-leg", "--leg", "0", *common, "--smoke", "10", "--results-out", str(tmp_path / "r.json")], env
    )
    assert code == 0
    assert "test-ops: success (20 passed, 0 failed, 0 skipped)" in capsys.readouterr().out
    assert json.loads((tmp_path / "r.json").read_text())["passed"] == 20

    # the cycle's default smoke slice of the same leg: 2 of the 20 (one tenth)
    assert handler.run([*common, "--out", str(tmp_path / "out")], env) == 0
    rows = json.loads((tmp_path / "out" / "hud.json").read_text())
    assert [(r["job_name"], r["tests_passed"]) for r in rows] == [("test-ops", 2)]


def test_summary_table_keeps_long_job_names_whole_in_a_log(ws, tmp_path, capsys):
    """Not a terminal (CI log, pipe): the table is not cut to 80 columns."""
    (ws / "configs" / "a_feature_with_a_rather_long_upstream_name.yaml").write_text(FEATURE_YAML)
    script = tmp_path / "fake_leg.py"
    script.write_text(FAKE_LEG)
    argv = ["--workspace", str(ws), "--out", str(tmp_path / "out"), "--runner", "pytest"]
    argv += ["--upstream", "none", "--test-command", f"{{python}} {script} {{junit}} {{config}}"]
    handler.run(argv, {"CRCR_STATE_DIR": str(tmp_path / "state")})
    table = capsys.readouterr().err.split("CRCR legs", 1)[1]
    row = next(line for line in table.splitlines() if "long_upstream" in line)
    assert "test-a_feature_with_a_rather_long_upstream_name " in row and "delivered" in row


def test_a_gated_out_dispatch_says_why_in_one_line_and_sends_nothing(pr_event, ws, tmp_path, capsys):
    """$CRCR_GATING is read once into Options: `plan` (the workflow's) writes run=false, the
    cycle prints one line and starts no relay (no callbacks)."""
    event = tmp_path / "e.json"
    event.write_text(json.dumps(pr_event))  # an unlabelled synchronize
    out = tmp_path / "gh_output"
    env = {"GITHUB_EVENT_PATH": str(event), "GITHUB_OUTPUT": str(out), "CRCR_GATING": "label-or-landed"}
    assert handler.run(["plan", "--workspace", str(ws)], env) == 0
    assert json.loads(capsys.readouterr().out) == {"include": []} and "run=false" in out.read_text()
    assert handler.run(["--workspace", str(ws), "--state-dir", str(tmp_path / "s")], env) == 0
    said = capsys.readouterr().out.splitlines()
    assert said == [
        "skip: gated out: PR #184442 synchronize without the label ciflow/crcr "
        "(gating label-or-landed: labelled PRs, or once on landing)"
    ]
    assert not (tmp_path / "s").exists()  # no emulator, outbox or callback state was made
    # the command line wins over the environment; `all` runs it
    assert handler.run(["plan", "--workspace", str(ws), "--gating", "all"], env) == 0
    assert len(json.loads(capsys.readouterr().out)["include"]) == 2


SLOW_LEG = """
import sys, time, pathlib
time.sleep(float(sys.argv[2]))
pathlib.Path(sys.argv[1]).write_text("<testsuites><testsuite><testcase name='a'/></testsuite></testsuites>")
"""


def _sync(pr_event, tmp_path, n: int, sha: str):
    import copy
    import uuid

    e = copy.deepcopy(pr_event)
    e["client_payload"]["delivery_id"] = str(uuid.uuid4())
    e["client_payload"]["payload"]["pull_request"]["head"]["sha"] = sha
    path = tmp_path / f"sync{n}.json"
    path.write_text(json.dumps(e))
    return path


def test_a_newer_sync_of_the_pr_cancels_the_older_runs_legs_end_to_end(pr_event, ws, tmp_path):
    """On the embedded relay: the older run's running leg is stopped and sends its completed
    `cancelled` (no HUD row left in_progress), its next leg never starts (sends nothing), and
    the newer run's legs run."""
    from crcr.handler.stream import run_stream, superseded
    from crcr.handler.upstream_setup import LegHooks, UpstreamSetup

    script = tmp_path / "slow_leg.py"
    script.write_text(SLOW_LEG)
    options = handler.parse_options(
        _local(ws, tmp_path, f"{{python}} {script} {{junit}} 1.5"),
        {"CRCR_STATE_DIR": str(tmp_path / "state")},
    )
    older, newer = (
        handler.load_plan(options, None, _sync(pr_event, tmp_path, n, c * 40))
        for n, c in ((1, "a"), (2, "b"))
    )
    outcomes = run_stream(
        options,
        [(0.0, older), (0.7, newer)],
        lambda p: LegHooks(UpstreamSetup("none", "", p.dispatch.sha), None, "HEAD", tmp_path),
    )
    first, second = outcomes
    assert superseded(outcomes) is first
    assert [(n, r.conclusion) for n, r in first.results.items()] == [("test-modules", "cancelled")]
    assert first.results["test-modules"].counts.passed == 0  # a cancelled leg claims no test
    assert first.never_started == ["test-ops"] and newer.dispatch.delivery_id in first.line
    assert {n: r.conclusion for n, r in second.results.items()} == {
        "test-modules": "success",
        "test-ops": "success",
    }
    rows = json.loads((tmp_path / "out" / "hud-stream.json").read_text())
    mine = [(r["delivery_id"], r["job_name"], r["status"], r.get("conclusion")) for r in rows]
    assert (older.dispatch.delivery_id, "test-modules", "completed", "cancelled") in mine
    assert not any(d == older.dispatch.delivery_id and j == "test-ops" for d, j, _, _ in mine)
    assert all(s == "completed" for _, _, s, _ in mine)  # none left in_progress


def _local(ws, tmp_path, template: str, *more) -> list[str]:
    """A local cycle's command line: stand-in legs from `template`, no upstream."""
    where = ["--workspace", str(ws), "--out", str(tmp_path / "out")]
    return [*where, "--runner", "pytest", "--upstream", "none", "--test-command", template, *more]


def _cycle(ws, tmp_path, script, *more, env=None):
    template = f"{{python}} {script} {{junit}} {{config}}"
    argv = _local(ws, tmp_path, template, "--backend", "c" * 40, "--warehouse", str(tmp_path / "wh"), *more)
    return handler.run(argv, {"CRCR_STATE_DIR": str(tmp_path / "state"), **(env or {})})


def test_a_green_leg_with_the_same_inputs_is_reused_not_run_again(ws, tmp_path, capsys):
    """Same backend, core, suite, configs and selection: the green leg's result comes from the
    warehouse, names its run and reaches the HUD as a normal completed; the red leg runs again;
    an edited config runs again; --no-reuse runs everything."""
    script = tmp_path / "fake_leg.py"
    marker = "pathlib.Path(junit).with_suffix('.ran').write_text('')\nsys.exit(fail)"
    script.write_text(FAKE_LEG.replace("sys.exit(fail)", marker))
    out = tmp_path / "out"

    def ran():
        found = sorted(p.stem for p in out.glob("*.ran"))
        for p in out.glob("*.ran"):
            p.unlink()
        return found

    assert _cycle(ws, tmp_path, script) == 1  # the modules leg fails its tests
    assert ran() == ["test-modules", "test-ops"]
    assert "reuse: 2 legs run, 0 reused, 0.0 device-minutes saved" in capsys.readouterr().err
    (tmp_path / "state" / "last_green.sqlite").unlink()  # a fresh state beside the same warehouse
    assert _cycle(ws, tmp_path, script) == 1
    assert ran() == ["test-modules"]  # the green ops leg was reused
    green = GreenStore(tmp_path / "state" / "last_green.sqlite")
    assert green.last_green("none", "test-ops") is not None  # reused green moves the job's last green
    assert green.last_green("none", "test-modules") is None
    green.db.close()
    err = capsys.readouterr().err
    assert "reuse: 1 legs run, 1 reused" in err and "test-ops: reused: green in run " in err
    rows = {r["job_name"]: r for r in json.loads((out / "hud.json").read_text())}
    assert (rows["test-ops"]["status"], rows["test-ops"]["conclusion"], rows["test-ops"]["tests_passed"]) == (
        "completed",
        "success",
        2,
    )
    (ws / "configs" / "ops.yaml").write_text(FEATURE_YAML + "# edited\n")
    assert _cycle(ws, tmp_path, script) == 1
    assert ran() == ["test-modules", "test-ops"]  # a changed config: its leg runs again
    for argv, env in ((["--no-reuse"], {}), ([], {"CRCR_REUSE": "off"})):  # every leg runs
        assert not handler.parse_options(["plan", *argv], env).reuse
    state = {"CRCR_STATE_DIR": str(tmp_path / "state")}
    assert handler.make_reuse(handler.parse_options(["plan", "--devices", "0,1"], state)) is not None
    faulty = handler.parse_options(["plan", "--inject-fault", "corrupt"], state)
    assert handler.make_reuse(faulty) is None  # an injected fault: its legs run on their cards


def test_reuse_fails_open_on_a_warehouse_error(ws, tmp_path, capsys):
    from crcr.dispatch.reuse_key import LegInputs
    from crcr.handler.reuse import Reuse

    (tmp_path / "not-a-dir").write_text("")
    reuse = Reuse(str(tmp_path / "not-a-dir"), {}, "local/oot-ci", "2.13.0")
    inputs = LegInputs("c" * 40, "pinned:2.13.0", "", (), "", "{}")
    assert reuse.find(inputs) is None
    assert len(reuse.notes) == 1 and reuse.notes[0].startswith("reuse: warehouse not read (")
    assert reuse.notes[0].endswith("): the leg runs")


def test_the_reuse_key_reads_the_selected_tests_not_their_count():
    from crcr.handler.reuse import selection_text
    from testing.changes.decide import Selection

    a = Selection("ops", False, 10, 5.0, frozenset({"t::a"}))
    b = Selection("ops", False, 10, 5.0, frozenset({"t::b"}))
    assert a.as_json() == b.as_json()  # the same count: the summary cannot tell them apart
    assert selection_text(a) != selection_text(b) and selection_text(None) == ""


STREAM_DEMO_LEG = """
import pathlib, sys, time
if pathlib.Path(sys.argv[2]).exists():
    time.sleep(60)  # the stale sync's legs: still running when the landing supersedes them
pathlib.Path(sys.argv[1]).write_text("<testsuites><testsuite><testcase name='a'/></testsuite></testsuites>")
"""


def test_the_embedded_default_shows_a_superseded_pr_run_and_a_reused_leg(ws, tmp_path, monkeypatch):
    """The main command's embedded default after its PR (handler.run_stream_demo), on a git
    workspace and the generated upstream fixture with stand-in legs: the stale sync's running
    leg completes `cancelled` and its next leg never starts; the landing's legs are reused
    from the PR run's green legs, none run again. The core's import checks (a torch import
    each, test_core_import's concern) are taken as passing to keep this quick."""
    import subprocess

    from crcr.handler import core_import

    monkeypatch.setattr(core_import, "import_error", lambda *a, **k: "")
    monkeypatch.setattr(core_import, "leg_import_error", lambda *a, **k: "")

    from crcr.handler.cycle import run_cycle
    from crcr.handler.stream import superseded
    from crcr.handler.upstream_setup import backend_id

    ident = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    git_env = {"PATH": "/usr/bin:/bin", "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path), **ident}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "backend"]):
        subprocess.run(["git", *args], cwd=ws, env=git_env, check=True)
    script, slow = tmp_path / "leg.py", tmp_path / "slow"
    script.write_text(STREAM_DEMO_LEG)
    argv = ["--workspace", str(ws), "--out", str(tmp_path / "out"), "--runner", "pytest"]
    argv += ["--upstream", "fixture", "--warehouse", str(tmp_path / "wh")]
    argv += ["--test-command", f"{{python}} {script} {{junit}} {slow}"]
    options = handler.parse_options(argv, {"CRCR_STATE_DIR": str(tmp_path / "state")})
    fixture = handler.make_fixture(options)
    pr, backend = handler.load_plan(options, fixture), backend_id(ws, "HEAD")
    hooks = handler.make_hooks(options, pr, fixture, options.out, backend)
    try:  # the PR run: its fixture legs green, recorded with their reuse keys
        assert run_cycle(options, pr.dispatch, handler.fixture_legs(options, pr, fixture), hooks) == 0
    finally:
        hooks.close()
    slow.write_text("")
    stale, landing = handler.run_stream_demo(options, fixture, pr, backend)
    assert superseded([stale, landing]) is stale
    assert [r.conclusion for r in stale.results.values()] == ["cancelled"] and len(stale.never_started) >= 1
    assert landing.results and all(r.reused_from for r in landing.results.values())
    assert {r.conclusion for r in landing.results.values()} == {"success"}
