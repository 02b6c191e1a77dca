"""PyTorch at a SHA with real git: a shallow, blob-less, sparse checkout per SHA.

    src = UpstreamSource.from_settings(url=None, cache=None, env=os.environ)
    root = src.checkout(sha)       # <cache>/checkouts/<sha>: test/, torch/**/*.py, version.txt
    src.changed_files(base, sha)   # [(status, path)] between two commits (trees only)
    src.commits_between(old, new, paths)  # upstream commits in old..new touching paths

Checkouts are cached by SHA and made under a per-SHA file lock in a temporary
directory renamed into place, so concurrent legs share one fetch and a killed
fetch never leaves a half checkout behind. A second bare, blob-less repository
(`history.git`) answers tree diffs and commit ranges without any file contents.
"""

from __future__ import annotations

import contextlib
import fcntl
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Optional, Sequence

from crcr.upstream.gitcmd import UpstreamError, check_sha, check_url, classify_fetch_error, git
from testing.base import atomic

DEFAULT_URL = "https://github.com/pytorch/pytorch.git"
URL_ENV = "OOT_UPSTREAM_URL"
CACHE_ENV = "OOT_UPSTREAM_CACHE"
# What a leg needs of upstream: its tests, the Python half of the core, the version.
SPARSE = ("/test/", "/torch/**/*.py", "/version.txt")
DONE = "oot-ci-complete"  # written into .git once the checkout is whole
HISTORY_DEPTHS = (64, 512, 4096)


def default_cache(env: Mapping[str, str]) -> Path:
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV])
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else home / ".cache"
    return base / "oot-ci" / "upstream"


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    files: tuple[str, ...]

    def as_json(self) -> dict:
        return {"sha": self.sha, "subject": self.subject, "files": list(self.files)}


class UpstreamSource:
    def __init__(self, url: str, cache: Path):
        self.url, self.cache = check_url(url), Path(cache)

    @classmethod
    def from_settings(
        cls, url: Optional[str], cache: Optional[Path], env: Mapping[str, str]
    ) -> "UpstreamSource":
        return cls(url or env.get(URL_ENV) or DEFAULT_URL, cache or default_cache(env))

    # -- locking ---------------------------------------------------------------
    @contextlib.contextmanager
    def _locked(self, name: str) -> Iterator[None]:
        locks = self.cache / "locks"
        locks.mkdir(parents=True, exist_ok=True)
        with open(locks / f"{name}.lock", "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)  # released when the file closes, also on a crash
            yield

    # -- checkout --------------------------------------------------------------
    def checkout_path(self, sha: str) -> Path:
        return self.cache / "checkouts" / check_sha(sha)

    def is_cached(self, sha: str) -> bool:
        return (self.checkout_path(sha) / ".git" / DONE).exists()

    def checkout(self, sha: str) -> Path:
        sha = check_sha(sha)  # before any git call
        final = self.checkout_path(sha)
        with self._locked(sha):
            if (final / ".git" / DONE).exists():
                return final
            # an incomplete leftover at `final` is replaced; a failed fetch leaves nothing
            with atomic.replace_dir(final) as tmp:
                self._fetch_into(tmp, sha)
                (tmp / ".git" / DONE).write_text(sha + "\n")
        return final

    def _fetch_into(self, work: Path, sha: str) -> None:
        git(["init", "-q", str(work)])
        git(["remote", "add", "origin", self.url], cwd=work)
        git(["sparse-checkout", "set", "--no-cone", *SPARSE], cwd=work)
        fetched = git(
            ["fetch", "-q", "--depth", "1", "--filter=blob:none", "--no-tags", "origin", sha],
            cwd=work,
            check=False,
        )
        if fetched.returncode != 0:
            raise UpstreamError(classify_fetch_error(self.url, sha, fetched.stderr))
        # the checkout fetches the sparse files' blobs (promisor remote) in one batch
        git(["-c", "advice.detachedHead=false", "checkout", "-q", "--detach", "FETCH_HEAD"], cwd=work)
        head = git(["rev-parse", "HEAD"], cwd=work).stdout.strip()
        if head != sha:
            raise UpstreamError(f"upstream {self.url}: fetched {head} for {sha}")

    # -- history (trees and commits, no blobs) ---------------------------------
    def _history(self) -> Path:
        repo = self.cache / "history.git"
        if not (repo / "HEAD").exists():
            git(["init", "-q", "--bare", str(repo)])
            git(["remote", "add", "origin", self.url], cwd=repo)
        else:  # the cache outlives URLs (a moved mirror, a regenerated fixture): fetch from this run's
            git(["remote", "set-url", "origin", self.url], cwd=repo)
        return repo

    def _has(self, repo: Path, sha: str) -> bool:
        return git(["cat-file", "-e", f"{sha}^{{commit}}"], cwd=repo, check=False).returncode == 0

    def _fetch_history(self, repo: Path, shas: Sequence[str], depth: int) -> None:
        r = git(
            ["fetch", "-q", f"--depth={depth}", "--filter=blob:none", "--no-tags", "origin", *shas],
            cwd=repo,
            check=False,
        )
        if r.returncode != 0:
            raise UpstreamError(classify_fetch_error(self.url, " ".join(shas), r.stderr))

    def changed_files(self, base: str, sha: str) -> list[tuple[str, str]]:
        """(status A/M/D/T, path) between two commits, from their trees alone."""
        base, sha = check_sha(base, "core base SHA"), check_sha(sha)
        with self._locked("history"):
            repo = self._history()
            missing = [s for s in dict.fromkeys((base, sha)) if not self._has(repo, s)]
            if missing:
                self._fetch_history(repo, missing, 1)
            out = git(["diff", "--name-status", "--no-renames", "-z", base, sha], cwd=repo).stdout
        parts = out.split("\0")
        return [(parts[i][0], parts[i + 1]) for i in range(0, len(parts) - 1, 2) if parts[i]]

    def diff_hunks(self, base: str, sha: str, paths: Sequence[str]) -> str:
        """`git diff -U0` between two commits for `paths` (their blobs fetched on demand)."""
        base, sha = check_sha(base, "diff base SHA"), check_sha(sha)
        if not paths:
            return ""
        with self._locked("history"):
            repo = self._history()
            missing = [s for s in dict.fromkeys((base, sha)) if not self._has(repo, s)]
            if missing:
                self._fetch_history(repo, missing, 1)
            r = git(
                ["diff", "-U0", "--no-renames", "--no-color", "--no-ext-diff", base, sha, "--", *paths],
                cwd=repo,
                check=False,
            )
        if r.returncode != 0:
            raise UpstreamError(
                f"upstream {self.url}: no diff {base[:12]}..{sha[:12]}: {r.stderr.strip()[:200]}"
            )
        return r.stdout

    def file_at(self, sha: str, path: str) -> Optional[str]:
        """A file's text at a commit (None: not there), its blob fetched on demand."""
        sha = check_sha(sha, "last green SHA")
        with self._locked("history"):
            repo = self._history()
            if not self._has(repo, sha):
                self._fetch_history(repo, [sha], 1)
            shown = git(["show", f"{sha}:{path}"], cwd=repo, check=False)
        return shown.stdout if shown.returncode == 0 else None

    def _deepen_to(self, repo: Path, old: str, new: str) -> bool:
        """Fetch `new`'s history deeper until `old` is in it; False past the deepest step."""
        for depth in HISTORY_DEPTHS:
            self._fetch_history(repo, [new], depth)
            if self._has(repo, old):
                return True
        return False

    def is_ancestor(self, old: str, new: str) -> bool:
        """Whether `old` is `new` or an ancestor of it (within the deepest history step)."""
        old, new = check_sha(old, "ancestor SHA"), check_sha(new)
        if old == new:
            return True
        with self._locked("history"):
            repo = self._history()
            if not self._deepen_to(repo, old, new):
                return False
            return git(["merge-base", "--is-ancestor", old, new], cwd=repo, check=False).returncode == 0

    def first_parents(self, sha: str, depth: int) -> list[str]:
        """`sha` and its first parents, newest first, up to `depth` commits (fewer: the root is
        reached). UpstreamError when the SHA is not in the upstream."""
        sha = check_sha(sha)
        with self._locked("history"):
            repo = self._history()
            self._fetch_history(repo, [sha], depth)
            out = git(["rev-list", "--first-parent", f"--max-count={depth}", sha], cwd=repo).stdout
        return out.split()

    def merge_base(self, a: str, b: str) -> Optional[str]:
        """Where `b`'s history meets `a`'s (a PR's branch point from its base), deepening both in
        steps; None past the deepest step."""
        a, b = check_sha(a, "change base SHA"), check_sha(b)
        with self._locked("history"):
            repo = self._history()
            for depth in HISTORY_DEPTHS:
                self._fetch_history(repo, list(dict.fromkeys((a, b))), depth)
                r = git(["merge-base", a, b], cwd=repo, check=False)
                if r.returncode == 0 and r.stdout.strip():
                    return r.stdout.strip()
        return None

    def nightly_subjects(self, depth: int) -> list[str]:
        """The subjects of the `nightly` branch's newest `depth` commits, newest first (each
        names the main commit its nightly was built from, downstream-practice.md §1)."""
        with self._locked("history"):
            repo = self._history()
            ref = "refs/oot/nightly"
            r = git(
                [
                    "fetch",
                    "-q",
                    f"--depth={depth}",
                    "--filter=blob:none",
                    "--no-tags",
                    "origin",
                    f"+refs/heads/nightly:{ref}",
                ],
                cwd=repo,
                check=False,
            )
            if r.returncode != 0:
                raise UpstreamError(classify_fetch_error(self.url, "the nightly branch", r.stderr))
            return git(["log", "--format=%s", f"--max-count={depth}", ref], cwd=repo).stdout.splitlines()

    def subject(self, sha: str) -> Optional[str]:
        """A commit's subject line (None: not in the upstream)."""
        sha = check_sha(sha, "commit SHA")
        with self._locked("history"):
            repo = self._history()
            if not self._has(repo, sha):
                try:
                    self._fetch_history(repo, [sha], 1)
                except UpstreamError:
                    return None
            r = git(["log", "-1", "--format=%s", sha], cwd=repo, check=False)
        return r.stdout.strip() if r.returncode == 0 else None

    def commits_between(
        self, old: str, new: str, paths: Sequence[str] = (), first_parent: bool = False
    ) -> list[Commit]:
        """Commits in old..new (newest first) touching `paths` (all if empty); deepens as needed.
        `first_parent`: the mainline only (what bisection walks: each a landed change)."""
        old, new = check_sha(old, "last green SHA"), check_sha(new)
        if old == new:
            return []
        with self._locked("history"):
            repo = self._history()
            if not self._deepen_to(repo, old, new):
                raise UpstreamError(
                    f"{old} is not within {HISTORY_DEPTHS[-1]} commits of {new} in {self.url}"
                )
            args = ["log", "--no-renames", "--format=%x01%H%x00%s", "--name-only", f"{old}..{new}"]
            args[1:1] = ["--first-parent"] if first_parent else []
            out = git(args + (["--", *paths] if paths else []), cwd=repo).stdout
        commits = []
        for chunk in out.split("\x01")[1:]:
            head, _, names = chunk.partition("\n")
            sha, _, subject = head.partition("\0")
            commits.append(Commit(sha, subject, tuple(n for n in names.splitlines() if n.strip())))
        return commits
