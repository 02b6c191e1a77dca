"""The check command and target generation on the examples of issue 28: a dtype typo that
passed everywhere, an op the device lacks that generated nothing without a word, a config
that does not load, bad arguments (the plugin's own runs: test_strict.py)."""

import json
import shutil
from pathlib import Path

import pytest

from testing.base.errors import Loc
from testing.check import cli, report
from testing.check.tests.examples import LACKS, REPO, TYPO_LINE, check, typo_config
from testing.plugin.problems import Problem

# ---------------------------------------------------------------- a dtype typo


# testing/README.md quotes these two lines as what `check` prints (tools/ci/readme_commands/quoted.py
# holds the README to them, this test holds a real run to them)
README_QUOTE = [
    "cpu/smoke.yaml:7: global.supported_dtypes: unknown dtype 'flaot16' (ignored); closest: float16, bfloat16, float64 [warning]",
    "check: ok: 1 configs in 1 sets: 0 errors, 1 warnings, 0 hygiene notes",
]


def test_check_names_the_typo_with_file_line_and_the_closest_dtypes(tmp_path, capsys, monkeypatch):
    typo_config(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = check(capsys, "cpu")
    assert code == 0 and err == [] and TYPO_LINE == 7
    assert out == README_QUOTE

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
        # the summary counts what the lines say (it said "0 errors, 1 warnings" under an [error] line)
        "check: FAILED: 1 configs in 1 sets: 1 errors, 0 warnings, 0 hygiene notes "
        "(--strict: 1 warnings or hygiene notes counted as errors)",
    ]
    clean = report.text([(Path("c.yaml"),)], [], strict=True).splitlines()
    assert clean == ["check: ok: 1 configs in 1 sets: 0 errors, 0 warnings, 0 hygiene notes"]
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


def test_check_names_an_entry_for_an_op_the_device_lacks(tmp_path, capsys, monkeypatch):
    spyre = tmp_path / "spyre"
    spyre.mkdir()
    shutil.copy(REPO / "configs/spyre/device.yaml", spyre)
    (spyre / "lacks.yaml").write_text(LACKS)
    monkeypatch.chdir(tmp_path)
    code, out, _ = check(capsys, "--strict", "spyre/lacks.yaml")
    assert code == 1
    assert out[0].startswith("spyre/lacks.yaml:5: names: entry selects no test: spyre cannot run op atan2")


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
        (["--bogus"], "unknown option --bogus"),
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


# ---------------------------------------------------------------- harness drift (#42)


def test_check_lists_a_file_needing_a_newer_harness_as_one_drift_line(tmp_path, capsys, monkeypatch):
    """A test file importing a name the harness in use lacks (2.13.0's common_methods_invocations
    has no binary_ufuncs_and_refs) is one `harness drift` line, not a collection error."""
    up = tmp_path / "up" / "test"
    up.mkdir(parents=True)
    (up / "test_binary_ufuncs.py").write_text(
        "from torch.testing._internal.common_methods_invocations import binary_ufuncs_and_refs\n"
    )
    (tmp_path / "drift.yaml").write_text(
        "test_suite_config:\n  files:\n    - path: ${TORCH_ROOT}/test/test_binary_ufuncs.py\n"
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = check(capsys, "--upstream-root", str(tmp_path / "up"), "drift.yaml")
    drift = [line for line in out if "harness drift" in line]
    assert drift == [
        "test/test_binary_ufuncs.py:0: harness drift: test/test_binary_ufuncs.py needs binary_ufuncs_and_refs "
        "(from torch.testing._internal.common_methods_invocations) [warning]"
    ], out
    assert code == 0 and not any("collection error" in line for line in out)
