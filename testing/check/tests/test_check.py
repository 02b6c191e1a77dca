"""The check command, the plugin's strictness and target generation on the examples of
issue 28: a dtype typo that used to pass everywhere, an op the device lacks that generated
nothing without a word, and bad arguments."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testing.check import cli, report
from testing.config.errors import Loc
from testing.config.runs import PLUGIN, PytestCommand
from testing.plugin.problems import Problem

REPO = Path(__file__).resolve().parents[3]
TYPO_LINE = 7  # configs/cpu/smoke.yaml's supported_dtypes, with float16 misspelt


def typo_config(directory: Path) -> Path:
    smoke = (REPO / "configs/cpu/smoke.yaml").read_text()
    assert smoke.splitlines()[TYPO_LINE - 1].strip().startswith("supported_dtypes: [float32, float16,")
    path = directory / "cpu" / "smoke.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(smoke.replace("float32, float16,", "float32, flaot16,"))
    return path


def run_plugin(configs: list, *args: str, paths=("testing/suites/test_tensor_basics.py",)):
    cmd = PytestCommand(
        paths=paths, plugins=[PLUGIN], configs=[str(c) for c in configs], extra=args, cache=False
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO)] + sys.path))
    return subprocess.run(cmd.argv(), cwd=REPO, env=env, capture_output=True, text=True)


def check(capsys, *args: str) -> tuple[int, list[str], list[str]]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out.splitlines(), [x for x in err.splitlines() if not x.startswith("check: [")]


# ---------------------------------------------------------------- a dtype typo


def test_a_dtype_typo_runs_the_other_tests_with_one_warning(tmp_path):
    """The issue's observation, kept as the plain run's behaviour: it warns and passes."""
    result = run_plugin([typo_config(tmp_path)])
    warnings = [x for x in result.stdout.splitlines() if "OotConfigWarning: " in x]
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        len(warnings) == 1
        and f"smoke.yaml:{TYPO_LINE}: global.supported_dtypes: unknown dtype 'flaot16'" in (warnings[0])
    )


@pytest.mark.parametrize("strict", ["--oot-strict", "--strict"])
def test_strict_makes_the_typo_a_failed_run(tmp_path, strict):
    result = run_plugin([typo_config(tmp_path)], strict)
    errors = [x for x in result.stderr.splitlines() if x.startswith("ERROR:")]
    assert result.returncode == 4 and "passed" not in result.stdout
    assert (
        len(errors) == 1
        and f"smoke.yaml:{TYPO_LINE}: global.supported_dtypes: unknown dtype 'flaot16'" in (errors[0])
    )


def test_check_names_the_typo_with_file_line_and_the_closest_dtypes(tmp_path, capsys, monkeypatch):
    typo_config(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = check(capsys, "cpu")
    assert code == 0 and err == []
    assert out[0] == (
        f"cpu/smoke.yaml:{TYPO_LINE}: global.supported_dtypes: unknown dtype 'flaot16' (ignored); "
        "closest: float16, bfloat16, float64 [warning]"
    )
    assert out[1].startswith("check: ok: 1 configs in 1 sets: 0 errors, 1 warnings")
    code, out, _ = check(capsys, "--strict", "--json", "cpu/smoke.yaml")
    report = json.loads("\n".join(out))
    assert code == 1 and report["ok"] is False and report["counts"]["warning"] == 1
    (finding,) = report["findings"]
    assert (finding["file"], finding["line"], finding["key"]) == (
        "cpu/smoke.yaml",
        TYPO_LINE,
        "global.supported_dtypes",
    )
    assert finding["closest"] == ["float16", "bfloat16", "float64"] and finding["fails"] is True


def test_strict_text_marks_every_finding_as_failing():
    warning = Problem(Loc("c.yaml", 3), "dtypes", "unknown dtype 'x'", "warning")
    assert report.text([(Path("c.yaml"),)], [warning], strict=True).splitlines() == [
        "c.yaml:3: dtypes: unknown dtype 'x' [error]",
        "check: FAILED: 1 configs in 1 sets: 0 errors, 1 warnings, 0 hygiene notes (--strict: each fails)",
    ]
    assert report.exit_code([warning], strict=True) == 1 and report.exit_code([warning], strict=False) == 0


def test_target_generation_fails_on_the_typo(tmp_path, capsys):
    """Through Bazel the generator said 'already current'; now it names the problem."""
    from testing.targets import generate

    for name in ("BUILD.bazel", "testing/BUILD.bazel", "testing/targets/BUILD.bazel"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    shutil.copytree(REPO / "testing/suites", tmp_path / "testing/suites")
    typo_config(tmp_path / "configs")
    assert generate.main(["--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"configs/cpu/smoke.yaml:{TYPO_LINE}: global.supported_dtypes: unknown dtype 'flaot16'" in err
    assert not (tmp_path / generate.OUTPUT).exists()  # nothing written from a config with problems


# ---------------------------------------------------------------- an op the device lacks


LACKS = """\
test_suite_config:
  files:
    - path: ${REPO_ROOT}/testing/suites/test_op_consistency.py
      tests:
        - names: TestOpConsistency::test_matches_cpu
          ops: [atan2]
"""


def test_an_op_the_device_lacks_is_a_warning_not_silence(tmp_path, capsys, monkeypatch):
    """spyre has no atan2: the entry generated 0 tests and nothing said so."""
    lacks = tmp_path / "lacks.yaml"
    lacks.write_text(LACKS)
    result = run_plugin(
        [REPO / "configs/spyre/device.yaml", lacks],
        "--collect-only",
        paths=("testing/suites/test_op_consistency.py",),
    )
    warnings = [x for x in result.stdout.splitlines() if "OotConfigWarning: " in x]
    assert "no tests collected" in result.stdout and len(warnings) == 1, result.stdout + result.stderr
    assert "lacks.yaml:5: names: entry selects no test: spyre cannot run op atan2" in warnings[0]
    spyre = tmp_path / "spyre"
    spyre.mkdir()
    shutil.copy(REPO / "configs/spyre/device.yaml", spyre)
    shutil.copy(lacks, spyre)
    monkeypatch.chdir(tmp_path)
    code, out, _ = check(capsys, "--strict", "spyre/lacks.yaml")
    assert code == 1 and out[0].startswith(
        "spyre/lacks.yaml:5: names: entry selects no test: spyre cannot run op"
    )


# ---------------------------------------------------------------- errors and bad arguments


def test_a_config_that_does_not_load_is_an_error_at_its_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "bad.yaml").write_text("test_suite_config:\n  global:\n    bakend: torch_spyre\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = check(capsys, "bad.yaml")
    assert code == 1 and out[0] == "bad.yaml:3: global.bakend: unknown key 'bakend' [error]"


@pytest.mark.parametrize(
    "args, message",
    [
        (["nope.yaml"], "nope.yaml: not a config file (.yaml) or a directory"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--upstream-root", "no-such-dir"], "--upstream-root no-such-dir: not a directory"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    try:
        code = cli.main(args)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and err.startswith("check: error: ") and message in err
