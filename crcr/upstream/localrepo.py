"""Build a local upstream-like git repository from data: a list of commits, each
a message and {path: text or None (delete)}.

The repository is bare and served over file://, configured like GitHub as far
as the fetch matters: any reachable commit can be fetched by SHA
(`uploadpack.allowReachableSHA1InWant`) and partial clones are allowed
(`uploadpack.allowFilter`). Author, committer and dates are fixed, so the same
content always gives the same SHAs.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Mapping, Optional, Sequence

from crcr.upstream.gitcmd import git

IDENTITY = {
    "GIT_AUTHOR_NAME": "Upstream Fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.invalid",
    "GIT_COMMITTER_NAME": "Upstream Fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.invalid",
}
EPOCH = 1767225600  # 2026-01-01T00:00:00Z; commit i is i hours later

Change = Mapping[str, Optional[str]]


def build_repo(bare: Path, commits: Sequence[tuple[str, Change]], env: Mapping[str, str]) -> list[str]:
    """(Re)create `bare` with these commits on main; returns their SHAs, oldest first."""
    work = bare.parent / f".{bare.name}.work"
    for d in (bare, work):
        shutil.rmtree(d, ignore_errors=True)
    git(["init", "-q", "-b", "main", str(work)], env=env)
    shas = _commit_all(work, commits, env, 0)
    git(["clone", "-q", "--bare", str(work), str(bare)], env=env)
    for key in (
        "uploadpack.allowReachableSHA1InWant",
        "uploadpack.allowFilter",
        "uploadpack.allowAnySHA1InWant",
    ):
        git(["config", key, "true"], cwd=bare, env=env)
    shutil.rmtree(work)
    return shas


def add_branch(
    bare: Path, name: str, parent: str, commits: Sequence[tuple[str, Change]], env: Mapping[str, str]
) -> list[str]:
    """Commits on a new branch `name` of `bare`, starting at `parent` (a pull request's head);
    dated after main's, so the same content gives the same SHAs. Returns their SHAs."""
    work = bare.parent / f".{bare.name}.{name}.work"
    shutil.rmtree(work, ignore_errors=True)
    git(["clone", "-q", str(bare), str(work)], env=env)
    git(["checkout", "-q", "-b", name, parent], cwd=work, env=env)
    shas = _commit_all(work, commits, env, 1000)
    git(["push", "-q", "origin", f"{name}:refs/heads/{name}"], cwd=work, env=env)
    shutil.rmtree(work)
    return shas


def _commit_all(
    work: Path, commits: Sequence[tuple[str, Change]], env: Mapping[str, str], hour: int
) -> list[str]:
    shas = []
    for i, (message, files) in enumerate(commits, start=hour):
        for rel, text in files.items():
            target = work / rel
            if text is None:
                git(["rm", "-q", "--", rel], cwd=work, env=env)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            git(["add", "--", rel], cwd=work, env=env)
        stamp = f"{EPOCH + 3600 * i} +0000"
        commit_env = {**env, **IDENTITY, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        git(
            ["-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", message],
            cwd=work,
            env=commit_env,
        )
        shas.append(git(["rev-parse", "HEAD"], cwd=work, env=env).stdout.strip())
    return shas


def file_url(bare: Path) -> str:
    return bare.resolve().as_uri()
