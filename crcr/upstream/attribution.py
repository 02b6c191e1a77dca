"""Regression attribution: which of the three candidates moved since a job was last green.

`GreenStore` keeps, per (upstream URL, job name), the inputs of the last green
result (backend, core, suite SHA) in SQLite (each write one transaction, so a
crash never leaves half a record). `attribute` is the pure decision: when a
leg goes red and the backend did not move, the red is upstream's, and the
range `<last green suite>..<suite>` is where to look.
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from crcr.upstream.gitcmd import SHA_RE

SCHEMA = """
CREATE TABLE IF NOT EXISTS last_green (
  upstream TEXT NOT NULL, job_name TEXT NOT NULL, backend TEXT NOT NULL, core TEXT NOT NULL,
  suite TEXT NOT NULL, recorded_at REAL NOT NULL, PRIMARY KEY (upstream, job_name));
CREATE TABLE IF NOT EXISTS runs (
  upstream TEXT NOT NULL, suite TEXT NOT NULL, recorded_at REAL NOT NULL, PRIMARY KEY (upstream, suite));
"""


@dataclass(frozen=True)
class Inputs:
    backend: str  # this repo's commit (or HEAD-dirty-<hash>)
    core: str  # upstream commit whose core the leg ran (or a pinned --config)
    suite: str  # upstream commit of the test files


@dataclass(frozen=True)
class Attribution:
    job_name: str
    verdict: str  # only_upstream | backend_moved | unchanged | no_green
    message: str
    last_green: Optional[Inputs] = None
    now: Optional[Inputs] = None
    range: Optional[tuple[str, str]] = None  # upstream (old, new) to search
    commits: tuple = field(default=())  # upstream Commit values in range touching the paths
    paths: tuple[str, ...] = ()
    ops: tuple[str, ...] = ()  # aten ops the failing tests dispatch (tools/select's op index)
    error: str = ""

    def as_json(self) -> dict:
        out = {k: v for k, v in asdict(self).items() if k not in ("commits", "last_green", "now")}
        out["last_green"] = asdict(self.last_green) if self.last_green else None
        out["now"] = asdict(self.now) if self.now else None
        out["commits"] = [c.as_json() for c in self.commits]
        return out

    def summary(self) -> str:
        text = self.message
        if self.commits:
            text += "; suspects: " + ", ".join(f"{c.sha[:12]} {c.subject}" for c in self.commits[:3])
            text += f" (+{len(self.commits) - 3} more)" if len(self.commits) > 3 else ""
        elif self.range and not self.error:
            text += "; no commit in range touches the failing tests' files or the core overlay"
        return text + (f" ({self.error})" if self.error else "")


def _short(backend: str) -> str:
    """A commit to 12 digits, keeping a '-dirty-<hash>' suffix (two dirty trees differ there)."""
    sha, sep, rest = backend.partition("-")
    return sha[:12] + (sep + rest if sep else "")


def attribute(job_name: str, now: Inputs, last: Optional[Inputs]) -> Attribution:
    if last is None:
        return Attribution(job_name, "no_green", "no green result recorded for this job yet", None, now)
    if last.backend != now.backend:
        return Attribution(
            job_name,
            "backend_moved",
            f"backend moved: {_short(last.backend)}..{_short(now.backend)} "
            f"(upstream {last.suite[:12]}..{now.suite[:12]})",
            last,
            now,
        )
    if (last.suite, last.core) == (now.suite, now.core):
        return Attribution(
            job_name,
            "unchanged",
            "nothing moved since the last green run: flaky test or environment",
            last,
            now,
        )
    if last.suite == now.suite:
        # the same test files on another core (e.g. a green recorded on the pinned wheel):
        # the range to search is the core's, when both ends are upstream commits
        both = all(SHA_RE.fullmatch(c) for c in (last.core, now.core))
        return Attribution(
            job_name,
            "only_upstream",
            f"only the upstream core moved: {last.core}..{now.core} (suite unchanged at {now.suite[:12]})",
            last,
            now,
            (last.core, now.core) if both else None,
        )
    return Attribution(
        job_name,
        "only_upstream",
        f"only upstream moved: {last.suite}..{now.suite}",
        last,
        now,
        (last.suite, now.suite),
    )


class GreenStore:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), timeout=30, isolation_level=None)
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def last_green(self, upstream: str, job_name: str) -> Optional[Inputs]:
        row = self.db.execute(
            "SELECT backend, core, suite FROM last_green WHERE upstream=? AND job_name=?",
            (upstream, job_name),
        ).fetchone()
        return Inputs(*row) if row else None

    def record_green(self, upstream: str, job_name: str, inputs: Inputs) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO last_green VALUES (?, ?, ?, ?, ?, ?)",
                (upstream, job_name, inputs.backend, inputs.core, inputs.suite, time.time()),
            )

    def record_run(self, upstream: str, suite: str) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?)", (upstream, suite, time.time()))

    def has_run(self, upstream: str, suite: str) -> bool:
        return (
            self.db.execute("SELECT 1 FROM runs WHERE upstream=? AND suite=?", (upstream, suite)).fetchone()
            is not None
        )


def suspect_paths(failing_files: Sequence[str], core_files: Sequence[str]) -> tuple[str, ...]:
    """Where an upstream cause can live: the failing tests' files and the core files that changed."""
    return tuple(dict.fromkeys([*failing_files, *core_files]))


# -- the aten ops failing tests dispatch (tools/select's repository memory) ----------
DEVICE_SUFFIX = re.compile(r"(PRIVATEUSE1|SPYRE|CPU|CUDA|META)$")


def ops_of_failures(memory_db: Path, failing_tests: Sequence[str]) -> tuple[str, ...]:
    """Ops the op index records for these tests (`file::Class::test_x_spyre_float32` as run;
    the index keys the generic `file::Class::test_x`). Empty when the memory is absent."""
    if not failing_tests or not memory_db.is_file():
        return ()
    db = sqlite3.connect(f"file:{memory_db}?mode=ro", uri=True)
    try:
        ops: list[str] = []
        for test in failing_tests:
            file, _, rest = test.partition("::")
            cls, _, name = rest.partition("::")
            prefix = f"{file}::{DEVICE_SUFFIX.sub('', cls)}::"
            rows = db.execute(
                "SELECT DISTINCT test_id, op FROM op_index WHERE test_id LIKE ? ESCAPE '\\'",
                (prefix.replace("_", "\\_") + "%",),
            ).fetchall()
            ops += [op for test_id, op in rows if name.startswith(test_id[len(prefix) :])]
        return tuple(sorted(set(ops)))
    except sqlite3.DatabaseError:
        return ()  # another layout or a broken file: attribution goes on without ops
    finally:
        db.close()


def op_name(op: str) -> str:
    """'aten::add.Tensor' -> 'add'."""
    return op.split("::")[-1].split(".")[0].lower()


def touches_op(path: str, op: str) -> bool:
    """A file named for the op (torch/nn/modules/flatten.py for aten::flatten); a heuristic,
    since which sources implement an op is not recorded anywhere cheaper than a build."""
    return op_name(op) in re.split(r"[/_.\-]", path.lower())
