"""The GitHub Actions environment a CRCR job's callback step sees, pointed at an emulator."""

import json
import os
import sys


def actions_env(emu, tmp_path, cp, repo: str, **extra) -> dict[str, str]:
    """Env of job `test` in run 4242 attempt 1 of workflow CRCR in `repo`; `extra` on top."""
    return {
        "GITHUB_REPOSITORY": repo,
        "GITHUB_WORKFLOW": "CRCR",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_RUN_ATTEMPT": "1",
        "GITHUB_JOB": "test",
        "CLIENT_PAYLOAD": json.dumps(cp),
        "CRCR_CALLBACK_URL": emu.url,
        "CRCR_STATE_DIR": str(tmp_path / "state"),
        **extra,
    }


def cli_env(emu, tmp_path, cp, repo: str, token: str, **extra) -> dict[str, str]:
    """A clean environment for the real `crcr-callback` in a subprocess: actions_env with a
    ready token (CRCR_TOKEN) and this interpreter's import path, nothing of the caller's."""
    return actions_env(
        emu,
        tmp_path,
        cp,
        repo,
        PATH="/usr/bin:/bin",
        PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
        HOME=str(tmp_path),
        CRCR_TOKEN=token,
        **extra,
    )
