"""Run one leg: build its test command, run it (argument list, never a shell),
and turn the exit status and JUnit XML into a conclusion and counts.

Two runners:
- `bazel`: `tools/bazel test <targets>` reusing the build/remote cache; used
  when we are not already inside Bazel (CI legs).
- `pytest`: the host interpreter we run under (sys.executable, from runfiles
  under `bazel run`) runs pytest on the in-tree suites directly. Used inside
  `bazel run`, where a nested `bazel test` would wait forever on the server
  lock held by the outer command.
A user template (`--test-command`) replaces either; placeholders are
substituted per argument, so no value is ever re-parsed by a shell.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

from crcr.callback_client.errors import ConfigError
from crcr.callback_client.junit import Counts, Report, read_report
from crcr.dispatch.plan import Leg
from crcr.handler.outcome import (
    NO_TESTS_NOTE,
    conclusion_for,
    file_of_testcase,
    leg_conclusion,
    promotion_note,
    pytest_status,
)
from crcr.upstream.bisect import Bisection
from crcr.upstream.exactness import Exactness
from testing.config import runs
from testing.config.features import Suites, config_suites
from testing.supervisor.children import stop_group

__all__ = ["conclusion_for", "run_leg", "LegResult", "LegSettings", "Upstream"]

SUITES = "testing/suites"
# The generated target of a leg's config (testing/config/runs.py names them).
DEFAULT_TARGET_TEMPLATE = runs.TARGET_PACKAGE + ":" + runs.TARGET_PREFIX + "{key}"
BAZEL_RAN_TESTS = (0, 3)  # bazel exit codes: 0 all passed, 3 some tests failed
BAZEL_NO_TESTS = 4
PLACEHOLDERS = (
    "python",
    "workspace",
    "config",
    "configs",
    "feature",
    "junit",
    "shard_index",
    "shard_total",
    "job_name",
    "upstream_root",
)


@dataclass(frozen=True)
class Upstream:
    """What of upstream a leg runs against (DESIGN.md "three candidates")."""

    root: Optional[Path] = None  # checkout at the suite SHA, for ${TORCH_ROOT} config paths
    sha: str = ""  # the suite SHA of that checkout ("" = unknown, e.g. a hand-made tree)
    core_path: Optional[Path] = None  # put first on PYTHONPATH: the wheel with the core overlay
    core_note: str = ""  # "core: ..." line for results and summaries


NO_UPSTREAM = Upstream()


@dataclass(frozen=True)
class LegSettings:
    """How each leg of a run is run and where it writes (the handler's Options.leg_settings)."""

    ws: Path  # the workspace: configs, and the leg's working directory
    out: Path  # logs and JUnit
    runner: str  # pytest | bazel
    env: Mapping[str, str]  # the leg process's environment (child_env puts our paths first)
    timeout: float = 900.0
    select: Optional[str] = None  # pytest -m expression (pytest runner)
    template: Optional[str] = None  # --test-command: a command template instead of either runner
    target_template: str = DEFAULT_TARGET_TEMPLATE
    smoke: int = 1  # run 1/N of the leg (the local cycle); 1 = the whole leg
    # the bazel runner's own flags for the leg (a card's pinning: Bazel passes a test no
    # environment of ours, only --test_env; handler/devices.py)
    bazel_flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class LegResult:
    conclusion: str
    exit_code: int
    counts: Counts
    seconds: float
    junit: tuple[Path, ...]
    notes: tuple[str, ...] = ()
    failing_files: tuple[str, ...] = ()  # upstream test files (checkout-relative) with failures
    details: Optional[Path] = None  # <job>.results.json: counts, notes, attribution
    failing_tests: tuple[str, ...] = ()  # file::Class::test of upstream failures, as instantiated
    selection: Optional[dict] = None  # testing.changes.decide.Selection.as_json(): what the leg ran
    report: Report = Report()  # the JUnit, read once: counts and failed-tests-detail derive from it
    timed_out: bool = False
    verdict: Optional[dict] = None  # triage verdict as sent (crcr.handler.triage)
    bisection: Optional[Bisection] = None  # when one ran (as_json() for reports)
    runner: str = "pytest"  # what ran it: pytest | bazel | template (triage re-runs follow it)
    core: Optional[Exactness] = None  # how exact the core it ran on was (None: no upstream core)
    reuse_key: str = ""  # its inputs' key (crcr/dispatch/reuse_key.py): a green one serves later legs
    reused_from: str = ""  # the source leg's warehouse key when this result was reused, not run
    device: str = ""  # the card its results come from ("spyre:1"; "" = not pinned: handler/devices.py)
    drained: tuple[str, ...] = ()  # when it lost every card: their probe lines (its results are infra)

    def failed_tests_detail(self) -> list[dict]:
        return self.report.failed_tests_detail().as_json()


def runner_of(how: LegSettings) -> str:
    """What runs a leg under these settings: pytest | bazel | template (LegResult.runner)."""
    return "template" if how.template else how.runner


def check_runner_can_run(legs: Sequence[Leg], runner: str, template: Optional[str]) -> None:
    """Before any callback: a leg on another core (--core-config) runs only through Bazel,
    since the pytest runner and command templates have just the handler's own torch."""
    for leg in legs:
        if leg.candidate.bazel_config and (runner != "bazel" or template):
            raise ConfigError(
                f"{leg.job_name}: testing the core of --config={leg.candidate.bazel_config} "
                "needs --runner bazel and no --test-command"
            )


def leg_suites(leg: Leg, ws: Path, upstream: Upstream = NO_UPSTREAM) -> Suites:
    return config_suites(ws, leg.config, upstream.root) if leg.config else Suites()


def pytest_command(
    leg: Leg,
    ws: Path,
    junit: Path,
    select: Optional[str],
    extra: Sequence[str] = (),
    smoke: int = 1,
    upstream: Upstream = NO_UPSTREAM,
    only: Sequence[str] = (),
    selection: Optional[Path] = None,
) -> list[str]:
    """`only`: pytest node ids to run instead of the leg's files (re-running failing tests);
    `selection`: a change-aware selection file (testing/changes/only.py), run whole."""
    suites = leg_suites(leg, ws, upstream)
    adapted = runs.has_module(ws, runs.PLUGIN)
    if selection and adapted:  # the plugin filters it before instantiation; no smoke slice
        extra, smoke = [*extra, "--oot-only", str(selection)], 1
    # smoke > 1 runs one duration-balanced slice of the leg's shard (local quick cycle);
    # legs on upstream's files run whole: they are what the dispatch is about
    total = leg.shard_total * (1 if suites.upstream else max(1, smoke))
    on_checkout = bool(upstream.root) and ((suites.upstream and not suites.files) or bool(only))
    return runs.PytestCommand(
        paths=list(only) or list(suites.files + suites.upstream) or [SUITES],
        plugins=[runs.PLUGIN] if adapted else [],
        configs=leg.configs if adapted else [],
        # xunit1: pytest writes each test's properties (op, dtype, rule ...) only in this family
        extra=["-o", "junit_family=xunit1", *extra],
        quiet=True,
        cache=False,
        upstream_root=str(upstream.root) if adapted and upstream.root else None,
        # node ids (and JUnit classnames) relative to the checkout: test/nn/test_x.py::...;
        # in-tree ones relative to the workspace (pytest's own guess, the common ancestor of
        # the path arguments, took --upstream-root's too: `--full` named promotion candidates
        # `clone.testing.suites...` after the checkout's directory)
        rootdir=str(upstream.root) if on_checkout else str(ws),
        junitxml=str(junit),
        summary=str(summary_path(junit)) if adapted else None,
        shard=(leg.shard_index, total)
        if total > 1 and not only and runs.has_module(ws, runs.SHARD_PLUGIN)
        else None,
        markexpr=select or None,
    ).argv()


def summary_path(junit: Path) -> Path:
    """The plugin's JSON summary beside the leg's JUnit XML."""
    return junit.with_name(junit.stem + ".summary.json")


def read_summary(junit: Path) -> dict:
    """The plugin's summary beside `junit`; {} when it wrote none or it cannot be read."""
    try:
        return json.loads(summary_path(junit).read_text())
    except (OSError, ValueError):
        return {}


def adapter_note(junit: Path) -> Optional[str]:
    """'adapter: native (rules: 30 native, 12 patched)' from the plugin's summary, if it wrote one."""
    adapter = read_summary(junit).get("adapter")
    if not adapter:
        return None
    c = adapter["counts"]
    return f"adapter: {adapter['used']} (asked {adapter['requested']}; rules: {c['native']} native, {c['patched']} patched)"


def left_out_files(report: Report, upstream: Upstream) -> list[dict]:
    """The files the leg's configs left out, with why (the plugin's JUnit suite properties),
    named relative to the checkout where they lie in it."""
    root = os.path.realpath(upstream.root) + os.sep if upstream.root else None
    return [
        {"path": path[len(root) :] if root and path.startswith(root) else path, "why": why}
        for path, why in report.left_out
    ]


def left_out_note(report: Report, upstream: Upstream, named: int = 3) -> Optional[str]:
    """'left out by the configs: 2 files: test/x.py (collect: false: ... (cfg.yaml:4)), ...'"""
    found = left_out_files(report, upstream)
    if not found:
        return None
    shown = "; ".join(f"{f['path']} ({f['why']})" for f in found[:named])
    more = f"; and {len(found) - named} more (the leg's results JSON)" if len(found) > named else ""
    return f"left out by the configs: {len(found)} file{'s' if len(found) != 1 else ''}: {shown}{more}"


def bazel_targets(leg: Leg, template: str) -> list[str]:
    if not leg.config:
        return ["//testing/..."]
    try:
        return [
            template.format(feature=leg.feature, stem=Path(leg.config).stem, key=runs.config_key(leg.config))
        ]
    except (KeyError, IndexError, ValueError) as err:
        raise ConfigError(f"--target-template {template!r}: {err}") from None


def bazel_command(
    leg: Leg, ws: Path, template: str, upstream: Upstream = NO_UPSTREAM, selection: Optional[Path] = None
) -> list[str]:
    argv = [str(ws / "tools" / "bazel"), "test", *bazel_targets(leg, template), "--test_output=errors"]
    if upstream.root:
        argv.append(f"--test_arg=--upstream-root={upstream.root}")
    if selection:
        argv.append(f"--test_arg=--oot-only={selection}")
    if leg.candidate.bazel_config:
        argv.append(f"--config={leg.candidate.bazel_config}")
    if leg.shard_total > 1:
        # The generated targets run tools/shard's plugin; these are its CI-leg-level
        # options (Bazel's own shard_count splits further inside the leg).
        argv += [f"--test_arg=--shard-index={leg.shard_index}", f"--test_arg=--shard-total={leg.shard_total}"]
    return argv


def split_template(template: str) -> list[str]:
    """--test-command's words; checked at the entry too, so every mode refuses a bad one."""
    try:
        parts = shlex.split(template)
    except ValueError as err:
        raise ConfigError(f"--test-command: {err}") from None
    if not parts:
        raise ConfigError("--test-command is empty")
    return parts


def template_command(
    template: str, leg: Leg, ws: Path, junit: Path, upstream: Upstream = NO_UPSTREAM
) -> list[str]:
    """Split the user's template once, then fill placeholders inside each argument."""
    parts = split_template(template)
    values = {
        "python": sys.executable,
        "workspace": str(ws),
        "config": leg.config or "",
        "configs": ",".join(leg.configs),
        "feature": leg.feature,
        "junit": str(junit),
        "shard_index": str(leg.shard_index),
        "shard_total": str(leg.shard_total),
        "job_name": leg.job_name,
        "upstream_root": str(upstream.root or ""),
    }
    out = []
    for part in parts:
        for key in PLACEHOLDERS:
            part = part.replace("{" + key + "}", values[key])
        out.append(part)
    return out


def child_env(ws: Path, env: Mapping[str, str], core_path: Optional[Path] = None) -> dict[str, str]:
    """Our sys.path (runfiles: pip deps, built extensions) plus the workspace;
    the core overlay first, so `import torch` finds the wheel at the dispatched SHA."""
    paths = (
        ([str(core_path)] if core_path else []) + [str(ws)] + [p for p in sys.path if p and Path(p).is_dir()]
    )
    merged = dict(env)
    merged["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    merged.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    return merged


def bazel_junit(ws: Path, targets: Sequence[str]) -> list[Path]:
    """test.xml of each target (one per Bazel shard), cached results included."""
    found: list[Path] = []
    for label in targets:
        pkg, _, name = label.lstrip("/").partition(":")
        if pkg.endswith("/..."):
            pkg, name = pkg[:-4], ""
        base = ws / "bazel-testlogs" / pkg / name
        found += sorted(base.rglob("test.xml")) if base.is_dir() else []
    return found


def run_command(
    argv: list[str], cwd: Path, env: Mapping[str, str], timeout: float, log_path: Optional[Path] = None
) -> tuple[int, bool]:
    """(exit code, timed out). Output goes to `log_path` (or ours), never through a shell."""
    out = open(log_path, "wb") if log_path else None
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdout=out,
            stderr=subprocess.STDOUT if out else None,
            start_new_session=True,
        )
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            stop_group(proc, grace=10)
            return proc.returncode, True
        except KeyboardInterrupt:
            stop_group(proc, grace=10)
            raise
    except FileNotFoundError as err:
        raise ConfigError(f"cannot run {argv[0]}: {err.strerror}") from None
    finally:
        if out:
            out.close()


def skipped_leg(leg: Leg, upstream: Upstream, suites: Suites) -> Optional[str]:
    """Why a leg cannot run at all (its upstream files are not there), else None."""
    if suites.missing and not (suites.files or suites.upstream):
        where = (
            f"the checkout at {upstream.sha[:12] or upstream.root}"
            if upstream.root
            else "no upstream checkout"
        )
        return f"{leg.config}: {where} lacks {', '.join(suites.missing)}"
    return None


def run_leg(
    leg: Leg, how: LegSettings, upstream: Upstream = NO_UPSTREAM, selection: Optional[Path] = None
) -> LegResult:
    """`selection`: the change-aware selection file (testing/changes/only.py); None runs the leg whole."""
    ws, out_dir, runner, template, target_template = (
        how.ws,
        how.out,
        how.runner,
        how.template,
        how.target_template,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    junit = out_dir / f"{leg.job_name}.xml"
    junit.unlink(missing_ok=True)
    started = time.time()
    suites = leg_suites(leg, ws, upstream)
    notes = [upstream.core_note] if upstream.core_note else []
    if suites.missing and (suites.files or suites.upstream):
        notes.append(f"not in the checkout: {', '.join(suites.missing)}")
    reason = skipped_leg(leg, upstream, suites)
    if reason:
        return LegResult("neutral", 0, Counts(), time.time() - started, (), tuple(notes + [reason]))
    if template:
        argv = template_command(template, leg, ws, junit, upstream)
    elif runner == "pytest":
        argv = pytest_command(
            leg, ws, junit, how.select, smoke=how.smoke, upstream=upstream, selection=selection
        )
    else:
        argv = bazel_command(leg, ws, target_template, upstream, selection) + list(how.bazel_flags)
        if upstream.core_path:
            notes.append("core overlay not applied by the bazel runner (use --runner pytest)")
    code, timed_out = run_command(
        argv, ws, child_env(ws, how.env, upstream.core_path), how.timeout, out_dir / f"{leg.job_name}.log"
    )
    bazel = runner == "bazel" and not template
    files = [junit] if junit.exists() else []
    if bazel and code in BAZEL_RAN_TESTS:  # on a build failure test.xml files are stale
        files = bazel_junit(ws, bazel_targets(leg, target_template))
    if bazel and code == BAZEL_NO_TESTS:
        code = 5  # same meaning as pytest's "nothing collected"
    report = read_report(files)
    notes += list(report.problems + report.notes)
    counts = report.counts
    notes += [n for n in (adapter_note(junit), promotion_note(report), left_out_note(report, upstream)) if n]
    # pytest's own status (the bazel runner's shard runner already says 0 for a strict XPASS)
    status = code if bazel else pytest_status(code, report)
    conclusion = leg_conclusion(status, timed_out, counts, not report.problems)
    if conclusion == "neutral" and code == 0:
        notes.append(NO_TESTS_NOTE)
    failing, tests = locate_failures(report, upstream)
    return LegResult(
        conclusion,
        code,
        counts,
        time.time() - started,
        tuple(files),
        tuple(notes),
        failing,
        failing_tests=tests,
        report=report,
        timed_out=timed_out,
        runner=runner_of(how),
    )


def locate_failures(report: Report, upstream: Upstream) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(upstream test files with failures, their `file::Class::test` ids), checkout-relative."""
    roots = [upstream.root] if upstream.root else []
    located = [(file_of_testcase(c.classname, roots), c) for c in report.failures]
    files = tuple(dict.fromkeys(f for f, _ in located if f))
    tests = tuple(node_id(f, c.classname, c.name) for f, c in located if f)
    return files, tests


def node_id(file: str, classname: str, name: str) -> str:
    """pytest's node id from a JUnit case: the classname past the module is the class path
    (none for a module-level test function)."""
    inner = classname[len(file[: -len(".py")].replace("/", ".")) :].lstrip(".")
    return "::".join([file, *filter(None, inner.split(".")), name])
