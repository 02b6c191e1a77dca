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

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

from crcr.errors import ConfigError
from crcr.handler.plan import Leg, config_suites
from crcr.junit import Counts, parse_junit

PLUGIN_MODULE = "testing.plugin.plugin"
SHARD_PLUGIN = "tools.shard.plugin"
SUITES = "testing/suites"
BAZEL_RAN_TESTS = (0, 3)  # bazel exit codes: 0 all passed, 3 some tests failed
BAZEL_NO_TESTS = 4
PLACEHOLDERS = ("python", "workspace", "config", "configs", "feature", "junit", "shard_index", "shard_total", "job_name")


@dataclass(frozen=True)
class LegResult:
    conclusion: str
    exit_code: int
    counts: Counts
    seconds: float
    junit: tuple[Path, ...]


def inside_bazel(env: Mapping[str, str]) -> bool:
    return bool(env.get("BUILD_WORKSPACE_DIRECTORY") or env.get("TEST_SRCDIR"))


def choose_runner(requested: str, env: Mapping[str, str]) -> str:
    if requested == "auto":
        return "pytest" if inside_bazel(env) else "bazel"
    if requested not in ("pytest", "bazel"):
        raise ConfigError(f"--runner must be auto, pytest or bazel, not {requested!r}")
    return requested


def check_runner_can_run(legs: Sequence[Leg], runner: str, template: Optional[str]) -> None:
    """Before any callback: a leg on another core (--core-config) runs only through Bazel,
    since the pytest runner and command templates have just the handler's own torch."""
    for leg in legs:
        if leg.candidate.bazel_config and (runner != "bazel" or template):
            raise ConfigError(f"{leg.job_name}: testing the core of --config={leg.candidate.bazel_config} "
                              "needs --runner bazel and no --test-command")


def pytest_command(leg: Leg, ws: Path, junit: Path, select: Optional[str], extra: Sequence[str] = (),
                   smoke: int = 1) -> list[str]:
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"]
    if (ws / "testing" / "plugin" / "plugin.py").exists():
        argv += ["-p", PLUGIN_MODULE]
        for config in leg.configs:
            argv += ["--config", config]
    # smoke > 1 runs one duration-balanced slice of the leg's shard (local quick cycle)
    total = leg.shard_total * max(1, smoke)
    if total > 1 and (ws / "tools" / "shard" / "plugin.py").exists():
        argv += ["-p", SHARD_PLUGIN, "--shard-index", str(leg.shard_index), "--shard-total", str(total)]
    if select:
        argv += ["-m", select]
    suites = config_suites(ws, leg.config) if leg.config else []
    return argv + list(extra) + (suites or [SUITES])


def config_key(config: str) -> str:
    """configs/spyre/op_consistency.yaml -> spyre_op_consistency (testing/targets' naming)."""
    rel = Path(config).with_suffix("")
    parts = rel.parts[1:] if rel.parts and rel.parts[0] == "configs" else rel.parts
    return re.sub(r"[^A-Za-z0-9_]", "_", "_".join(parts))


def bazel_targets(leg: Leg, template: str) -> list[str]:
    if not leg.config:
        return ["//testing/..."]
    try:
        return [template.format(feature=leg.feature, stem=Path(leg.config).stem, key=config_key(leg.config))]
    except (KeyError, IndexError, ValueError) as err:
        raise ConfigError(f"--target-template {template!r}: {err}") from None


def bazel_command(leg: Leg, ws: Path, template: str) -> list[str]:
    argv = [str(ws / "tools" / "bazel"), "test", *bazel_targets(leg, template), "--test_output=errors"]
    if leg.candidate.bazel_config:
        argv.append(f"--config={leg.candidate.bazel_config}")
    if leg.shard_total > 1:
        # The generated targets run tools/shard's plugin; these are its CI-leg-level
        # options (Bazel's own shard_count splits further inside the leg).
        argv += [f"--test_arg=--shard-index={leg.shard_index}", f"--test_arg=--shard-total={leg.shard_total}"]
    return argv


def template_command(template: str, leg: Leg, ws: Path, junit: Path) -> list[str]:
    """Split the user's template once, then fill placeholders inside each argument."""
    try:
        parts = shlex.split(template)
    except ValueError as err:
        raise ConfigError(f"--test-command: {err}") from None
    if not parts:
        raise ConfigError("--test-command is empty")
    values = {"python": sys.executable, "workspace": str(ws), "config": leg.config or "",
              "configs": ",".join(leg.configs),
              "feature": leg.feature, "junit": str(junit), "shard_index": str(leg.shard_index),
              "shard_total": str(leg.shard_total), "job_name": leg.job_name}
    out = []
    for part in parts:
        for key in PLACEHOLDERS:
            part = part.replace("{" + key + "}", values[key])
        out.append(part)
    return out


def child_env(ws: Path, env: Mapping[str, str]) -> dict[str, str]:
    """Our sys.path (runfiles: pip deps, built extensions) plus the workspace."""
    paths = [str(ws)] + [p for p in sys.path if p and Path(p).is_dir()]
    merged = dict(env)
    merged["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    merged.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    return merged


def conclusion_for(exit_code: int, timed_out: bool, interrupted: bool) -> str:
    if timed_out:
        return "timed_out"
    if interrupted or exit_code in (-signal.SIGINT, -signal.SIGTERM, 130):
        return "cancelled"
    if exit_code == 0:
        return "success"
    if exit_code == 5:  # pytest: nothing collected for this leg
        return "neutral"
    return "failure"


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


def run_command(argv: list[str], cwd: Path, env: Mapping[str, str], timeout: float,
                log_path: Optional[Path] = None) -> tuple[int, bool]:
    """(exit code, timed out). Output goes to `log_path` (or ours), never through a shell."""
    out = open(log_path, "wb") if log_path else None
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=dict(env), stdout=out, stderr=subprocess.STDOUT if out else None,
                                start_new_session=True)
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            return proc.returncode, True
        except KeyboardInterrupt:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
            raise
    except FileNotFoundError as err:
        raise ConfigError(f"cannot run {argv[0]}: {err.strerror}") from None
    finally:
        if out:
            out.close()


def run_leg(leg: Leg, ws: Path, out_dir: Path, *, runner: str, env: Mapping[str, str], timeout: float,
            select: Optional[str] = None, template: Optional[str] = None,
            target_template: str = "//testing:config_{key}", smoke: int = 1) -> LegResult:
    out_dir.mkdir(parents=True, exist_ok=True)
    junit = out_dir / f"{leg.job_name}.xml"
    junit.unlink(missing_ok=True)
    started = time.time()
    if template:
        argv = template_command(template, leg, ws, junit)
    elif runner == "pytest":
        argv = pytest_command(leg, ws, junit, select, smoke=smoke)
    else:
        argv = bazel_command(leg, ws, target_template)
    code, timed_out = run_command(argv, ws, child_env(ws, env), timeout, out_dir / f"{leg.job_name}.log")
    bazel = runner == "bazel" and not template
    files = [junit] if junit.exists() else []
    if bazel and code in BAZEL_RAN_TESTS:  # on a build failure test.xml files are stale
        files = bazel_junit(ws, bazel_targets(leg, target_template))
    if bazel and code == BAZEL_NO_TESTS:
        code = 5  # same meaning as pytest's "nothing collected"
    counts = parse_junit(files) if files else Counts()
    return LegResult(conclusion_for(code, timed_out, False), code, counts, time.time() - started, tuple(files))
