"""Running git: argument lists only (never a shell), no prompts, one-line errors.

Every value that reaches git from a dispatch is a validated 40-hex SHA; URLs
are checked so that none can be read as an option.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Mapping, Optional, Sequence

from crcr.callback_client.errors import CrcrError, one_line

SHA_RE = re.compile(r"[0-9a-f]{40}")
# https://, http://, ssh://, git://, file:// URLs or scp-like user@host:path; never "-..."
URL_RE = re.compile(r"(?:(?:https?|ssh|git|file)://[^\s]+|[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:[^\s]+)")


class UpstreamError(CrcrError):
    """The upstream checkout could not be made (bad SHA, unknown commit, unreachable remote)."""


def check_sha(sha: str, what: str = "upstream SHA") -> str:
    if not isinstance(sha, str) or not SHA_RE.fullmatch(sha.lower()):
        raise UpstreamError(f"{what} {str(sha)[:60]!r} is not a 40-hex commit id")
    return sha.lower()


def check_url(url: str) -> str:
    if not isinstance(url, str) or not URL_RE.fullmatch(url):
        raise UpstreamError(
            f"upstream URL {str(url)[:80]!r} is not a git URL (https://, ssh://, file://, user@host:path)"
        )
    return url


def git_env(env: Optional[Mapping[str, str]] = None) -> dict[str, str]:
    merged = dict(os.environ if env is None else env)
    # never block on a credential prompt; messages we parse stay in English
    merged.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C", LANG="C", GIT_ASKPASS="true")
    return merged


def classify_fetch_error(url: str, sha: str, stderr: str) -> str:
    """A one-line reason from git's stderr: unknown commit vs unreachable remote."""
    low = stderr.lower()
    if any(
        s in low
        for s in (
            "not our ref",
            "unadvertised object",
            "couldn't find remote ref",
            "no such remote ref",
            "unable to read tree",
            "bad object",
            "invalid index-pack",
        )
    ):
        return f"upstream has no commit {sha} ({url})"  # the SHA first: long URLs get cut
    if any(
        s in low
        for s in (
            "could not read from remote",
            "unable to access",
            "does not appear to be a git repository",
            "could not resolve host",
            "connection refused",
            "repository not found",
            "'origin' does not appear",
        )
    ):
        first = next((x for x in stderr.splitlines() if x.strip().startswith(("fatal:", "error:"))), stderr)
        return f"upstream remote {url} unreachable: {one_line(first, 160)}"
    return f"git fetch of {sha} from {url} failed: {one_line(stderr, 200)}"


def git(
    args: Sequence[str],
    cwd: Optional[Path] = None,
    env: Optional[Mapping[str, str]] = None,
    check: bool = True,
    timeout: float = 1800,
    input: Optional[str] = None,
) -> subprocess.CompletedProcess:
    argv = ["git", *args]
    try:
        proc = subprocess.run(
            argv, cwd=cwd, env=git_env(env), capture_output=True, text=True, timeout=timeout, input=input
        )
    except FileNotFoundError:
        raise UpstreamError("git is not installed (needed for the upstream checkout)") from None
    except subprocess.TimeoutExpired:
        raise UpstreamError(f"git {args[0]} timed out after {timeout:.0f}s") from None
    if check and proc.returncode != 0:
        raise UpstreamError(f"git {args[0]} failed: {one_line(proc.stderr or proc.stdout, 240)}")
    return proc
