"""crcr-callback end to end against the emulator, in a subprocess like CI runs it."""

import os
import subprocess
import sys
import uuid

import pytest

from crcr.dispatch.allowlist import Entry
from crcr.relay.issuer import new_key
from crcr.relay.server import RelayEmulator
from crcr.tests import actions

REPO = "acme/oot"


@pytest.fixture
def emu():
    with RelayEmulator({REPO: Entry(REPO, "L2")}) as e:
        yield e


def cli(args, env):
    full = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), **env)
    full.pop("GITHUB_EVENT_PATH", None)
    args = [*args, "--backoff", "0.05", "--max-retries", "3"]
    return subprocess.run(
        [sys.executable, "-m", "crcr.callback_client", *args],
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


def actions_env(emu, tmp_path, cp, **extra):
    return actions.actions_env(emu, tmp_path, cp, REPO, **extra)


def test_pair_from_the_actions_environment_with_minted_token(emu, tmp_path, pr_payload):
    cp = dict(pr_payload, delivery_id=str(uuid.uuid4()))
    emu.relay.dispatch(REPO, cp)
    env = actions_env(
        emu,
        tmp_path,
        cp,
        ACTIONS_ID_TOKEN_REQUEST_URL=emu.token_request_url,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN=emu.request_token_for(REPO),
    )
    junit = tmp_path / "j.xml"
    junit.write_text("<testsuite><testcase name='a'/><testcase name='b'><failure/></testcase></testsuite>")
    r1 = cli(["in-progress", "--job-name", "test-ops"], env)
    r2 = cli(["completed", "--job-name", "test-ops", "--conclusion", "failure", "--junit", str(junit)], env)
    assert (r1.returncode, r2.returncode) == (0, 0), r1.stderr + r2.stderr
    (row,) = emu.relay.hud.rows(REPO)
    assert (row["job_name"], row["conclusion"], row["tests_failed"], row["tests_total"], row["run_id"]) == (
        "test-ops",
        "failure",
        1,
        2,
        "4242",
    )  # HUD keeps run_id as sent
    assert emu.request_token_for(REPO) not in r1.stdout + r1.stderr


def test_token_never_printed_even_when_things_go_wrong(emu, tmp_path, pr_payload):
    cp = dict(pr_payload, delivery_id=str(uuid.uuid4()))
    emu.relay.dispatch(REPO, cp)
    good = emu.relay.issuer.mint(REPO)
    bad = emu.relay.issuer.mint(REPO, key=new_key())
    emu.faults.configure(0.0, (), 0.0, None, script=["drop", "5xx", "429"])
    env = actions_env(emu, tmp_path, cp, GOOD=good, BAD=bad)
    runs = [
        cli(["in-progress", "--job-name", "leg", "--token-env", "GOOD", "-v"], env),
        cli(["completed", "--job-name", "leg", "--conclusion", "success", "--token-env", "BAD", "-v"], env),
        cli(
            [
                "completed",
                "--job-name",
                "leg",
                "--conclusion",
                "success",
                "--token-env",
                "GOOD",
                "-v",
                "--url",
                "http://127.0.0.1:9",
            ],
            env,
        ),
    ]
    assert [r.returncode for r in runs[:2]] == [0, 3]
    assert "401" in runs[1].stderr and "retrying" in runs[0].stderr
    everything = "".join(r.stdout + r.stderr for r in runs)
    on_disk = "".join(p.read_text() for p in (tmp_path / "state").rglob("*.json"))
    for token in (good, bad):
        assert token not in everything and token not in on_disk
        assert token.split(".")[2] not in everything  # not even the signature part


def test_nightly_self_report(emu, tmp_path):
    env = actions_env(emu, tmp_path, {}, GOOD=emu.relay.issuer.mint(REPO))
    env.pop("CLIENT_PAYLOAD")
    r = cli(
        [
            "nightly",
            "--sha",
            "c" * 40,
            "--kind",
            "periodic",
            "--conclusion",
            "success",
            "--test-results",
            '{"passed": 9, "failed": 0, "skipped": 1}',
            "--token-env",
            "GOOD",
        ],
        env,
    )
    assert r.returncode == 0, r.stderr
    (row,) = emu.relay.hud.rows(REPO)
    assert (row["event_type"], row["delivery_id"], row["tests_total"]) == ("periodic", "c" * 40, 10)
    bad = cli(["nightly", "--sha", "not-a-sha", "--conclusion", "success", "--token-env", "GOOD"], env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args,needle",
    [
        (["in-progress"], "no client_payload"),
        (["completed", "--conclusion", "passed"], "conclusion 'passed'"),
    ],
)
def test_bad_input_one_line_exit_2(emu, tmp_path, pr_payload, args, needle):
    env = actions_env(emu, tmp_path, pr_payload, GOOD=emu.relay.issuer.mint(REPO))
    if needle == "no client_payload":
        env.pop("CLIENT_PAYLOAD")
    r = cli([*args, "--token-env", "GOOD"], env)
    assert r.returncode == 2 and needle in r.stderr and r.stderr.count("\n") == 1
