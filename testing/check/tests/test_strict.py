"""The plugin's own runs on the examples of issue 28: a dtype typo warns once and the run
passes, --oot-strict or pytest's --strict make it a failed run; an op the device lacks
is a warning where there was none."""

import pytest

from testing.check.tests.examples import LACKS, REPO, TYPO_LINE, run_plugin, typo_config

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


def test_an_op_the_device_lacks_is_a_warning_not_silence(tmp_path):
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
