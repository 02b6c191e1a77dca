"""New in scope, not regressions: tests a leg runs at the dispatched SHA that did not exist
at the job's last green suite SHA (upstream added them, or a rename brought a class in).

Read from upstream's files at both SHAs and upstream's diff between them (crcr/upstream/scope.py:
a class rename the diff shows keeps its tests' history) and the plugin's summary of the leg
(``<job>.summary.json``: per test its generic class and test, outcome). The result is a typed
value in the leg's results JSON (``new_in_scope``) that triage and the HUD read, a one-line
note, and a ready config diff (``config_diff``, ``<job>.new_in_scope.diff``): against the
leg's own configs, through the comment-preserving writer (testing/config/edit.py), it buckets
the new tests and re-keys entries naming a renamed class.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from crcr.upstream.gitcmd import UpstreamError
from crcr.upstream.scope import Scope, diff_renames, new_in_scope, read_tests, reclassified_into
from testing.base.errors import ConfigError
from testing.config import edit, hwclass
from testing.proposals.textedit import render


@dataclass(frozen=True)
class NewInScope:
    since: str  # last green suite SHA
    sha: str  # the dispatched suite SHA
    tests: tuple[str, ...] = ()  # file::Class::test (generic) new at sha
    renamed: dict[str, str] = field(default_factory=dict)  # file::NewClass -> file::OldClass
    passed: int = 0  # instantiated variants of the new tests that passed
    failed: int = 0  # ... that failed or errored
    failing: tuple[str, ...] = ()  # their node ids as the leg's failing_tests name them
    hw_classification: bool = False  # the checkout at sha classifies tests by hardware
    diff: str = ""  # unified diff of the leg's configs bucketing them (patch -p0 from the repo root)
    reclassified: dict[str, tuple[str, str]] = field(default_factory=dict)  # file::Class -> (was, is)

    @property
    def count(self) -> int:
        return self.passed + self.failed

    def line(self) -> str:
        hw = (
            ""
            if self.hw_classification
            else "; hardware classification: none in the checkout at this SHA (scope from the configs only)"
        )
        renamed = (
            f"; renamed (history kept): {', '.join(f'{o} -> {n}' for n, o in sorted(self.renamed.items()))}"
            if self.renamed
            else ""
        ) + (
            f"; reclassified into scope: {', '.join(f'{c} ({a} -> {b})' for c, (a, b) in sorted(self.reclassified.items()))}"
            if self.reclassified
            else ""
        )
        return (
            f"new in scope: {self.count} ({self.passed} passed/{self.failed} failed) since {self.since[:12]}: "
            f"{len(self.tests)} new tests, not regressions{renamed}{hw}"
        )

    def as_json(self) -> dict:
        return {
            "since": self.since,
            "sha": self.sha,
            "count": self.count,
            "passed": self.passed,
            "failed": self.failed,
            "tests": list(self.tests),
            "renamed": dict(sorted(self.renamed.items())),
            "reclassified": {k: list(v) for k, v in sorted(self.reclassified.items())},
            "failing": list(self.failing),
            "hw_classification": self.hw_classification,
            "config_diff": self.diff,
        }


def has_hw_classification(root: Path) -> bool:
    return hwclass.checkout_carries(str(root)) is not None


def file_scopes(
    source, root: Path, since: str, sha: str, files: list[str], wanted: tuple[str, ...] = ()
) -> dict[str, Scope]:
    """Checkout-relative test file -> what is new in it since `since` (renames: upstream's diff;
    `wanted`: the leg's global.scope, where the checkout classifies: reclassified classes too)."""
    classify = bool(wanted) and has_hw_classification(root)
    out = {}
    for rel in files:
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except OSError:
            continue
        new = read_tests(text)
        old_text = source.file_at(since, rel) or ""
        try:
            renamed = diff_renames(source.diff_hunks(since, sha, [rel]))
        except UpstreamError:
            renamed = None  # no diff to read: the shared-methods guess
        scope = new_in_scope(read_tests(old_text), new, diff_renamed=renamed)
        if classify:
            scope = reclassified_into(scope, hwclass.classes(old_text), hwclass.classes(text), new, wanted)
        out[rel] = scope
    return out


def configs_scope(configs: tuple[Path, ...]) -> tuple[str, ...]:
    """The leg's global.scope (the last config writing it), () when none asks for one."""
    from testing.config.load import load

    wanted: tuple[str, ...] = ()
    for cfg in configs:
        try:
            scope = load(str(cfg)).doc.test_suite_config.global_.scope
        except ConfigError:
            continue  # the leg's own run reports it, with file:line
        wanted = tuple(scope) if scope else wanted
    return wanted


def _summary_tests(summary_path: Path) -> list[dict]:
    try:
        return json.loads(summary_path.read_text()).get("tests", [])
    except (OSError, ValueError):
        return []


def measure(
    scopes: dict[str, Scope],
    summary_path: Path,
    since: str,
    sha: str,
    root: Path,
    failing: tuple[str, ...],
    configs: tuple[Path, ...] = (),
    repo: Optional[Path] = None,
) -> Optional[NewInScope]:
    """`configs`: the leg's config files (the feature's own last), `repo`: what their diff paths
    are relative to."""
    new = {(f, c, t) for f, s in scopes.items() for c, t in s.new}
    if not new and not any(s.renamed for s in scopes.values()):
        return None
    passed = failed = 0
    failing_new = []
    for t in _summary_tests(summary_path):
        file = t["nodeid"].split("::", 1)[0]
        if (file, t.get("class"), t.get("test")) not in new:
            continue
        bad = t["outcome"] in ("failed", "error", "crashed", "xpassed_strict")
        failed += bad
        passed += not bad
        if bad:
            failing_new += [
                f
                for f in failing
                if f.startswith(file + "::") and f.endswith("::" + t["nodeid"].rsplit("::", 1)[1])
            ]
    renamed = {f"{f}::{n}": f"{f}::{o}" for f, s in scopes.items() for n, o in s.renamed.items()}
    moved = {f"{f}::{c}": v for f, s in scopes.items() for c, v in s.reclassified.items()}
    diff = config_diff(scopes, sha, configs, repo or Path.cwd())
    return NewInScope(
        since,
        sha,
        tuple(sorted(f"{f}::{c}::{t}" for f, c, t in new)),
        renamed,
        passed,
        failed,
        tuple(failing_new),
        has_hw_classification(root),
        diff,
        moved,
    )


def config_diff(scopes: dict[str, Scope], sha: str, configs: tuple[Path, ...], repo: Path) -> str:
    """The leg's configs edited (testing/config/edit.bucket_new): renamed classes re-keyed in
    every config naming the file; new tests bucketed in the first config naming it (else the
    feature's own, the last)."""
    texts = {}
    for cfg in configs:
        try:
            texts[cfg] = cfg.read_text(encoding="utf-8")
        except OSError:
            continue
    after = dict(texts)
    for rel, scope in sorted(scopes.items()):
        if not scope.new and not scope.renamed:
            continue
        renamed = {o: n for n, o in scope.renamed.items()}
        naming = [c for c in texts if _names_file(texts[c], rel)]
        home = naming[0] if naming else (list(texts)[-1] if texts else None)
        for cfg in naming or ([home] if home else []):
            tests = [f"{c}::{t}" for c, t in scope.new] if cfg == home else []
            after[cfg] = edit.bucket_new(after[cfg], rel, tests, renamed, sha)
    return render((_rel(cfg, repo), texts[cfg], after[cfg]) for cfg in texts)


def _names_file(text: str, rel: str) -> bool:
    try:
        return edit.file_entry_for(edit.parse_yaml(text, "<config>"), rel) is not None
    except ConfigError:
        return False


def _rel(cfg: Path, repo: Path) -> str:
    try:
        return str(cfg.resolve().relative_to(repo.resolve()))
    except ValueError:
        return str(cfg)
