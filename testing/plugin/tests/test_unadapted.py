"""A collected file whose device-generic tests no given config adapts is named once, with the
configs given and how to fix it; the run goes on (--oot-strict: a usage error). Files a config
names, exactly or by a glob, and runs without a config say nothing (testing/plugin/unadapted.py)."""

import json

import pytest

from testing.plugin.tests.helpers import PLUGIN

DEVICE_TESTS = """
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase


class Test{name}(TestCase):
    def test_one(self, device):
        pass

    def test_two(self, device):
        pass


class TestPlain{name}(TestCase):
    def test_plain(self):
        pass


instantiate_device_type_tests(Test{name}, globals())
"""

WARNING = "no config adapts this file"


@pytest.fixture
def two_files(pytester):
    named = pytester.makepyfile(test_named=DEVICE_TESTS.format(name="Named"))
    pytester.makepyfile(test_unnamed=DEVICE_TESTS.format(name="Unnamed"))
    return str(named)


def config_for(write_yaml, path: str) -> str:
    return write_yaml(f"""
        test_suite_config:
          global:
            device_type: cpu
          files:
            - path: {path}
              unlisted_test_mode: mandatory_success
    """)


def run(pytester, tmp_path, *args):
    summary = tmp_path / "summary.json"
    result = pytester.runpytest(*PLUGIN, f"--rootdir={pytester.path}", f"--oot-summary={summary}", *args)
    problems = json.loads(summary.read_text())["config_problems"] if summary.exists() else []
    return result, problems


def test_a_file_no_config_adapts_is_named_once_and_the_run_goes_on(pytester, two_files, write_yaml, tmp_path):
    cfg = config_for(write_yaml, two_files)
    result, problems = run(pytester, tmp_path, "--config", cfg)
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes() == {"passed": 6, "warnings": 1}  # both files ran: 2 + 2 + 2 plain
    assert [p.split(": ")[:2] for p in problems] == [["test_unnamed.py:6", "files"]]  # its first test
    assert f"configs given: {cfg}" in problems[0] and "its 2 generated device-generic test(s)" in problems[0]
    assert "pass the config that lists this file" in problems[0]
    result.stdout.fnmatch_lines([f"*OotConfigWarning: test_unnamed.py:6: files: {WARNING} (configs given: *"])
    assert "test_named.py:6: files" not in result.stdout.str()

    strict, _ = run(pytester, tmp_path, "--config", cfg, "--oot-strict")
    assert strict.ret == pytest.ExitCode.USAGE_ERROR
    strict.stderr.fnmatch_lines([f"ERROR: test_unnamed.py:6: files: {WARNING}*[--oot-strict]"])


def test_files_a_config_names_or_a_run_without_config_say_nothing(pytester, two_files, write_yaml, tmp_path):
    by_glob = config_for(write_yaml, f"{pytester.path}/test_*named.py")
    for args in (["--config", by_glob], []):
        result, problems = run(pytester, tmp_path, *args)
        assert result.ret == pytest.ExitCode.OK
        assert result.parseoutcomes() == {"passed": 6}, args  # no warning
        assert problems == [] and WARNING not in result.stdout.str()
    # named alone, the adapted file says nothing either
    result, problems = run(pytester, tmp_path, "--config", config_for(write_yaml, two_files), two_files)
    assert result.parseoutcomes() == {"passed": 3} and problems == []


@pytest.mark.parametrize("mode", ["fork", "restart"])
def test_isolated_runs_name_it_as_a_plain_run_does(
    pytester, two_files, write_yaml, tmp_path, subprocess_env, mode
):
    """fork: the zygote collects in the invoked process; restart: a worker collects and sends
    its config problems to the controller, which configured nothing itself."""
    cfg = config_for(write_yaml, two_files)
    _, plain = run(pytester, tmp_path, "--config", cfg)
    result, problems = run(pytester, tmp_path, "--config", cfg, "--isolate", f"--isolate-mode={mode}")
    assert problems == plain and len(problems) == 1
    assert result.parseoutcomes() == {"passed": 6, "warnings": 1}
    result.stdout.fnmatch_lines([f"*OotConfigWarning: test_unnamed.py:6: files: {WARNING} (configs given: *"])
