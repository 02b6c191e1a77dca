"""Black-box acceptance tests: the plugin driving an upstream-style file via pytester."""

import json
import os
import time
import xml.etree.ElementTree as ET

import pytest

from testing.plugin.tests.helpers import PLUGIN


def buckets_config(write_yaml, suite: str, extra: str = "") -> str:
    return write_yaml(f"""
        test_suite_config:
          global:
            device_type: cpu
            supported_dtypes: [float32, int64]
            supported_ops: [add, mul, abs]
          files:
            - path: {suite}
              tests:
                - names: [TestFake::test_op, "TestFake::test_dt", TestFake::test_op_nodtype]
                - names: TestFake::test_op
                  ops: [mul]
                  dtypes: [int64]
                  mode: xfail_strict
                  reason: "claims int64 mul fails (it passes: promotion candidate)"
                - names: TestFake::test_fail
                  mode: xfail
                  reason: fails on purpose
                - names: TestFake::test_pass
                  mode: xfail
                  reason: stale xfail, passes now
                - names: TestFake::test_crash
                  mode: skip
                  reason: aborts the interpreter
                - names: TestPlain::test_one
              {extra}
    """)


def test_each_bucket_gives_expected_outcome(pytester, fake_suite, write_yaml, tmp_path):
    cfg = buckets_config(write_yaml, fake_suite)
    summary = tmp_path / "summary.json"
    junit = tmp_path / "junit.xml"
    promo = tmp_path / "promotion.json"
    result = pytester.runpytest(
        *PLUGIN,
        "--config",
        cfg,
        f"--oot-summary={summary}",
        f"--junitxml={junit}",
        f"--oot-promotion={promo}",
        "-rxX",
    )
    # add/mul/abs x float32/int64 (abs: 2 dtypes) -> 6 test_op; 3 nodtype; test_dt float32+int64;
    # test_pass (xpass), test_fail (xfail), TestPlain::test_one. sub, float64, crash, hang, only_cuda: not collected.
    outcomes = result.parseoutcomes()
    assert outcomes == {"passed": 11, "failed": 1, "xfailed": 1, "xpassed": 1}, result.stdout.str()
    # the strict xfail of an @ops variant is torch's expectedFailure under the native adapter (the
    # default): its "Unexpected success" is reported as the strict pytest xfail's XPASS(strict)
    assert "[XPASS(strict)] claims int64 mul fails" in result.stdout.str()
    assert result.ret == 1  # the strict xpass fails the run

    data = json.loads(summary.read_text())
    assert data["by_bucket"]["xfail_strict"] == {"xpassed_strict": 1}
    assert data["by_bucket"]["xfail"] == {"xfailed": 1, "xpassed": 1}
    assert data["by_op"]["mul"] == {"passed": 2, "xpassed_strict": 1}
    assert all(t["duration"] >= 0 for t in data["tests"]) and len(data["tests"]) == 14
    assert sorted(n.split("::")[-1] for n in data["promotion_candidates"]) == [
        "test_op_mul_cpu_int64",
        "test_pass_cpu",
    ]
    assert not any("crash" in t["nodeid"] or "sub" in t["nodeid"] for t in data["tests"])

    props = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in ET.parse(junit).getroot().iter("testcase")
    }
    assert props["test_op_add_cpu_float32"]["bucket"] == "mandatory_success"
    assert "op__add" in props["test_op_add_cpu_float32"]["marks"].split(",")
    assert props["test_fail_cpu"]["reason"] == "fails on purpose"

    promotion = json.loads(promo.read_text())
    assert len(promotion["candidates"]) == 2
    diff = (tmp_path / "promotion.json.diff").read_text()
    assert (
        "-          mode: xfail_strict\n" in diff and "-          reason: stale xfail, passes now\n" in diff
    )
    assert diff.count("+          mode: mandatory_success\n") == 2
    assert "test_fail" not in "".join(x for x in diff.splitlines() if x.startswith(("+", "-")))


def test_change_aware_selection_filters_before_instantiation(pytester, fake_suite, write_yaml, tmp_path):
    cfg = buckets_config(write_yaml, fake_suite)
    real = os.path.realpath(fake_suite)
    only = tmp_path / "only.json"
    picked = [f"{real}::TestFake::test_op_add_cpu_float32", f"{real}::TestFake::test_dt_cpu_int64"]
    only.write_text(json.dumps({"tests": picked, "files": []}))
    result = pytester.runpytest(*PLUGIN, "--config", cfg, f"--oot-only={only}", "--collect-only", "-q")
    ids = [line for line in result.stdout.lines if "test_fake.py::" in line]
    assert sorted(i.split("::")[-1] for i in ids) == ["test_dt_cpu_int64", "test_op_add_cpu_float32"]
    assert "generate none" not in result.stdout.str()  # a selection narrows on purpose, as -m does
    # generic tests without a selected variant were never instantiated; the plain class is deselected
    assert "2/3 tests collected (1 deselected)" in result.stdout.str()
    only.write_text(json.dumps({"tests": [], "files": [real]}))  # a whole file: everything it has
    whole = pytester.runpytest(*PLUGIN, "--config", cfg, f"--oot-only={only}", "--collect-only", "-q")
    assert "14 tests collected" in whole.stdout.str()
    only.write_text("{")
    bad = pytester.runpytest(*PLUGIN, "--config", cfg, f"--oot-only={only}")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--oot-only {only}: not a selection" in bad.stderr.str()


def test_mark_expression_filters_at_generation_time(pytester, fake_suite, write_yaml):
    cfg = buckets_config(write_yaml, fake_suite)
    result = pytester.runpytest(*PLUGIN, "--config", cfg, "-m", "op__add", "--collect-only", "-q")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert sorted(i.split("::")[-1] for i in ids) == [
        "test_op_add_cpu_float32",
        "test_op_add_cpu_int64",
        "test_op_nodtype_add_cpu",
    ]
    # other ops were never instantiated; only the plain (non-generic) TestPlain::test_one is deselected
    assert "3/4 tests collected (1 deselected)" in result.stdout.str()

    result = pytester.runpytest(
        *PLUGIN, "--config", cfg, "-m", "dtype__int64 and not op__mul", "--collect-only", "-q"
    )
    ids = sorted(line.split("::")[-1] for line in result.stdout.lines if "::" in line)
    assert ids == ["test_dt_cpu_int64", "test_op_abs_cpu_int64", "test_op_add_cpu_int64"]


def test_without_config_everything_is_generated_and_marked(pytester, fake_suite):
    result = pytester.runpytest(*PLUGIN, "-m", "op__sub and dtype__float64", "--collect-only", "-q")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert [i.split("::")[-1] for i in ids] == ["test_op_sub_cpu_float64"]


def test_unknown_test_name_warns_and_the_run_completes_strict_makes_it_an_error(
    pytester, fake_suite, write_yaml
):
    # a config naming a test the checkout no longer has (upstream removed or renamed it)
    cfg = write_yaml(f"""
        test_suite_config:
          files:
            - path: {fake_suite}
              tests:
                - names: TestFake::test_pass
                - names: TestFake::test_passes
    """)
    result = pytester.runpytest(*PLUGIN, "--config", cfg)
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes() == {"passed": 1, "deselected": 1, "warnings": 1}
    result.stdout.fnmatch_lines(
        [
            "*OotConfigWarning: *cfg.yaml:7: names: unknown test 'TestFake::test_passes' "
            "(no such test in test_fake.py*closest: TestFake::test_pass*"
        ]
    )

    result = pytester.runpytest(*PLUGIN, "--config", cfg, "--oot-strict", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cfg.yaml:7: names: unknown test 'TestFake::test_passes'*[--oot-strict]"])
    # pytest's own switch for warnings works too, as a usage error
    result = pytester.runpytest(
        *PLUGIN, "--config", cfg, "-W", "error::testing.plugin.reporting.OotConfigWarning"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *cfg.yaml:7: names: unknown test 'TestFake::test_passes'*"])


def test_unknown_op_warns_with_close_matches_strict_makes_it_an_error(pytester, fake_suite, write_yaml):
    cfg = write_yaml("test_suite_config:\n  global:\n    device_type: cpu\n    supported_ops: [add, mull]\n")
    result = pytester.runpytest(
        *PLUGIN, "--config", cfg, "--collect-only", "-q", "-k", "test_op and not nodtype"
    )
    ids = collected(result)
    assert ids and all(i.startswith("test_op_add_cpu_") for i in ids), ids  # mull named nothing: only add
    result.stdout.fnmatch_lines(
        ["*cfg.yaml:4: global.supported_ops: unknown op 'mull' (ignored); closest: mul*"]
    )
    result = pytester.runpytest(*PLUGIN, "--config", cfg, "--oot-strict", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cfg.yaml:4: global.supported_ops: unknown op 'mull'*"])


def labelled_configs(write_yaml, suite: str, other: str) -> tuple[str, str, str]:
    """A device-wide config (no files), a smoke+full feature config with entry labels, a full-only one."""
    device = write_yaml(
        """
        test_suite_config:
          labels: [nightly]
          global:
            device_type: cpu
            supported_dtypes: [float32]
            supported_ops: [add]
    """,
        "device.yaml",
    )
    feature = write_yaml(
        f"""
        test_suite_config:
          labels: [smoke, full]
          files:
            - path: {suite}
              tests:
                - names: TestFake::test_op
                  labels: [smoke]
                - names: TestFake::test_dt
                  labels: [nightly, full]
                - names: TestFake::test_pass
                - names: TestPlain::test_one
                  labels: [nightly]
    """,
        "feature.yaml",
    )
    full = write_yaml(
        f"""
        test_suite_config:
          files:
            - path: {other}
              tests:
                - names: TestOther::test_other
    """,
        "full.yaml",
    )
    return device, feature, full


OTHER_SUITE = """
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase


class TestOther(TestCase):
    def test_other(self, device):
        pass


instantiate_device_type_tests(TestOther, globals())
"""


def collected(result) -> list[str]:
    return sorted(line.split("::")[-1] for line in result.stdout.lines if "::" in line)


def test_test_type_filters_entries_and_configs_by_labels(pytester, fake_suite, write_yaml, monkeypatch):
    other = str(pytester.makepyfile(test_other=OTHER_SUITE))
    configs = [a for c in labelled_configs(write_yaml, fake_suite, other) for a in ("--config", c)]
    monkeypatch.delenv("OOT_TEST_TYPE", raising=False)

    # no test type: labels change nothing
    result = pytester.runpytest(*PLUGIN, *configs, "--collect-only", "-q")
    assert collected(result) == [
        "test_dt_cpu_float32",
        "test_one",
        "test_op_add_cpu_float32",
        "test_other_cpu",
        "test_pass_cpu",
    ]

    # smoke: test_dt's entry (nightly, full) is never generated, not skipped; full.yaml's file is left out,
    # while device.yaml (no files; labels [nightly]) still restricts ops and dtypes
    result = pytester.runpytest(*PLUGIN, *configs, "--oot-test-type", "smoke", "-rA")
    assert result.parseoutcomes() == {"passed": 2, "deselected": 1}, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "oot: device=cpu configs=3 test_type=smoke",
            "oot: configs left out (labels exclude test type 'smoke'): *full.yaml",
            "PASSED test_fake.py::TestFakeCPU::test_op_add_cpu_float32",
            "PASSED test_fake.py::TestFakeCPU::test_pass_cpu",
        ]
    )
    assert "test_dt" not in result.stdout.str() and "device.yaml" not in result.stdout.str()

    # the same from the environment; a matching label keeps the entry
    monkeypatch.setenv("OOT_TEST_TYPE", "full")
    result = pytester.runpytest(*PLUGIN, *configs, "--collect-only", "-q")
    assert collected(result) == ["test_dt_cpu_float32", "test_other_cpu", "test_pass_cpu"]
    assert "configs left out" not in result.stdout.str()

    # the option wins over the environment; a file named only by a left-out config is never collected
    result = pytester.runpytest(*PLUGIN, *configs, "--oot-test-type=nightly", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result = pytester.runpytest(*PLUGIN, *configs, "--oot-test-type=nightly")
    result.stdout.fnmatch_lines(
        ["oot: configs left out (labels exclude test type 'nightly'): *feature.yaml, *full.yaml"]
    )


def test_test_type_that_can_never_be_a_label_is_a_usage_error(pytester, fake_suite, write_yaml):
    cfg = buckets_config(write_yaml, fake_suite)
    result = pytester.runpytest(*PLUGIN, "--config", cfg, "--oot-test-type=", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [
        "ERROR: --oot-test-type: '' can never be a label: string should have at least 1 character"
    ]


def test_device_restriction_relaxed_only_where_configured(pytester, fake_suite, write_yaml):
    for relax, outcome in (("false", "skipped"), ("true", "passed")):
        cfg = write_yaml(f"""
            test_suite_config:
              files:
                - path: {fake_suite}
                  tests:
                    - names: TestFake::test_only_cuda
                      relax_device_restrictions: {relax}
        """)
        result = pytester.runpytest(*PLUGIN, "--config", cfg)
        # TestPlain is a plain TestCase, unlisted -> skip: removed after collection (deselected)
        assert result.parseoutcomes() == {outcome: 1, "deselected": 1}


def test_precision_from_config_reaches_assert_equal(pytester, write_yaml):
    suite = pytester.makepyfile(
        test_prec="""
        import torch
        from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
        from torch.testing._internal.common_utils import TestCase

        class TestPrec(TestCase):
            @dtypes(torch.float32)
            def test_close(self, device, dtype):
                self.assertEqual(torch.tensor([1.0], dtype=dtype), torch.tensor([1.001], dtype=dtype))

        instantiate_device_type_tests(TestPrec, globals())
    """
    )
    base = (
        f"test_suite_config:\n  files:\n    - path: {suite}\n      tests: [{{names: TestPrec::test_close}}]\n"
    )
    strict = write_yaml(base, "strict.yaml")
    loose = write_yaml(
        base + "  global:\n    supported_dtypes: [{name: float32, precision: {atol: 0.01, rtol: 0.01}}]\n",
        "loose.yaml",
    )
    assert pytester.runpytest(*PLUGIN, "--config", strict).parseoutcomes() == {"failed": 1}
    assert pytester.runpytest(*PLUGIN, "--config", loose).parseoutcomes() == {"passed": 1}


def test_crash_and_hang_are_isolated_and_the_run_goes_on(
    pytester, fake_suite, write_yaml, tmp_path, subprocess_env
):
    cfg = write_yaml(f"""
        test_suite_config:
          files:
            - path: {fake_suite}
              tests:
                - names: [TestFake::test_pass, TestFake::test_crash, TestFake::test_hang, TestFake::test_fail]
                - names: TestFake::test_dt
                  dtypes: [float32]
                - names: TestFake::test_only_cuda
    """)
    summary = tmp_path / "summary.json"
    junit = tmp_path / "junit.xml"
    result = pytester.runpytest(
        *PLUGIN,
        "--config",
        cfg,
        "--isolate",
        "--oot-timeout",
        "2",
        f"--oot-summary={summary}",
        f"--junitxml={junit}",
        "-p",
        "no:timeout",
    )
    outcomes = result.parseoutcomes()
    # crash (SIGABRT) and hang (watchdog) are ERRORs under their node ids; the rest still ran
    # (the zygote collects in this process: the deselected plain test is counted as without --isolate)
    assert outcomes == {"passed": 2, "failed": 1, "errors": 2, "skipped": 1, "deselected": 1}, (
        result.stdout.str()
    )
    out = result.stdout.str()
    assert "worker crashed: signal 6 (SIGABRT)" in out and "timeout: no result after 2s" in out
    tests = {t["nodeid"].split("::")[-1]: t for t in json.loads(summary.read_text())["tests"]}
    assert (
        tests["test_crash_cpu"]["outcome"] == "crashed"
        and tests["test_crash_cpu"]["bucket"] == "mandatory_success"
    )
    assert tests["test_hang_cpu"]["outcome"] == "crashed"
    assert tests["test_dt_cpu_float32"]["outcome"] == "passed"
    errors = [
        c.get("name") for c in ET.parse(junit).getroot().iter("testcase") if c.find("error") is not None
    ]
    assert sorted(errors) == ["test_crash_cpu", "test_hang_cpu"]


def test_timeout_without_isolation_fails_the_test(pytester, fake_suite, write_yaml):
    cfg = write_yaml(f"""
        test_suite_config:
          files:
            - path: {fake_suite}
              tests: [{{names: [TestFake::test_hang, TestFake::test_pass]}}]
    """)
    result = pytester.runpytest(*PLUGIN, "--config", cfg, "--oot-timeout", "2")
    assert result.parseoutcomes() == {"passed": 1, "failed": 1, "deselected": 1}
    assert "Timeout" in result.stdout.str()


UPSTREAM_FILE = """
import torch
from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase, run_tests


class TestViewOps(TestCase):
    @dtypes(torch.float32, torch.int64)
    def test_view_roundtrip(self, device, dtype):
        t = torch.arange(6, device=device).to(dtype)
        self.assertEqual(t.view(2, 3).view(6), t)

    def test_contiguous(self, device):
        self.assertTrue(torch.ones(2, 3, device=device).t().contiguous().is_contiguous())


instantiate_device_type_tests(TestViewOps, globals(), only_for=("cuda",))

if __name__ == "__main__":
    run_tests()
"""


def test_upstream_mode_runs_checkout_files_unpatched(pytester, write_yaml, tmp_path):
    root = tmp_path / "pytorch"
    (root / "test").mkdir(parents=True)
    (root / "version.txt").write_text("2.13.0a0\n")
    upstream = root / "test" / "test_view_ops.py"
    upstream.write_text(UPSTREAM_FILE)
    (root / "test" / "test_from_newer_torch.py").write_text(
        "from torch.testing._internal.common_utils import a_name_from_the_future\n"
    )
    before = upstream.read_text()
    cfg = write_yaml("""
        test_suite_config:
          files:
            - path: ${TORCH_ROOT}/test/test_view_ops.py
              relax_only_for: true
              tests:
                - names: TestViewOps::test_view_roundtrip
                  dtypes: [int64]
                - names: TestViewOps::test_contiguous
                  mode: xfail
                  reason: demo of an upstream xfail
            - path: ${TORCH_ROOT}/test/test_from_newer_torch.py
              collect: false
              reason: imports a name torch 2.13 lacks
    """)
    result = pytester.runpytest(
        *PLUGIN, "--config", cfg, "--upstream-root", str(root), str(root / "test"), "-v"
    )
    out = result.stdout.str()
    assert "matches torch" in out
    assert result.parseoutcomes() == {"passed": 1, "xpassed": 1}, out
    assert "TestViewOpsCPU::test_view_roundtrip_cpu_int64 PASSED" in out
    assert upstream.read_text() == before  # untouched

    # only_for=("cuda",) is honoured unless the config relaxes it
    strict = write_yaml(f"test_suite_config:\n  files:\n    - path: {upstream}\n", "strict.yaml")
    assert (
        pytester.runpytest(*PLUGIN, "--config", strict, str(upstream)).ret
        == pytest.ExitCode.NO_TESTS_COLLECTED
    )
    # without collect: false, a file importing a harness name this torch lacks is harness drift:
    # one line, not a collection error (testing/plugin/drift.py)
    result = pytester.runpytest(*PLUGIN, "--config", strict, str(root / "test"))
    result.stdout.fnmatch_lines(
        [
            "harness drift: *test_from_newer_torch.py needs a_name_from_the_future (from torch.testing._internal.common_utils)"
        ]
    )
    assert "collection error" not in result.stdout.str()


@pytest.mark.parametrize(
    "isolate",
    [(), ("--isolate",), ("--isolate", "--isolate-mode", "restart")],
    ids=["inline", "fork", "restart"],
)
def test_every_file_the_configs_leave_out_is_named_once_with_why(pytester, write_yaml, tmp_path, isolate):
    """A run that collects nothing (exit 5) still says what it left out: collect: false with its
    reason, a glob that matches no file; in the log, --oot-summary and the JUnit properties."""
    root = tmp_path / "pytorch"
    (root / "test").mkdir(parents=True)
    newer = root / "test" / "test_from_newer_torch.py"
    newer.write_text("from torch.testing._internal.common_utils import a_name_from_the_future\n")
    cfg = write_yaml("""
        test_suite_config:
          files:
            - path: ${TORCH_ROOT}/test/test_from_newer_torch.py
              collect: false
              reason: imports a name torch 2.13 lacks
            - path: ${TORCH_ROOT}/test/distributed/test_*.py
    """)
    summary, junit = tmp_path / "s.json", tmp_path / "j.xml"
    result = pytester.runpytest(
        *PLUGIN, "--config", cfg, "--upstream-root", str(root), str(newer),
        f"--oot-summary={summary}", f"--junitxml={junit}", *isolate,
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    out = result.stdout.str()
    real = os.path.realpath(root)
    said = [line for line in out.splitlines() if line.startswith("oot: left out:")]
    assert said == [
        f"oot: left out: {real}/test/test_from_newer_torch.py: collect: false: imports a name torch 2.13 "
        f"lacks ({cfg}:4)",
        f"oot: left out: {real}/test/distributed/test_*.py: matches no file ({cfg}:7)",
    ], out
    left = json.loads(summary.read_text())["left_out_files"]
    assert [(f["path"], f["reason"]) for f in left] == [
        (f"{real}/test/test_from_newer_torch.py", "collect: false: imports a name torch 2.13 lacks"),
        (f"{real}/test/distributed/test_*.py", "matches no file"),
    ]
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert props[f"left_out.{real}/test/test_from_newer_torch.py"].startswith("collect: false: imports")


def test_a_file_that_imports_the_op_database_first_collects_without_a_config(pytester, subprocess_env):
    # test_unary_ufuncs.py's order: common_methods_invocations first, which imports
    # common_device_type half-way through itself; the marks must not import op_db from the
    # half-loaded module (a circular ImportError at collection), but wait until it is whole.
    pytester.makepyfile(
        test_db_first="""
        import torch
        from torch.testing._internal.common_methods_invocations import op_db
        from torch.testing._internal.common_device_type import instantiate_device_type_tests, ops
        from torch.testing._internal.common_utils import TestCase

        class TestDbFirst(TestCase):
            @ops([op for op in op_db if op.name == "abs"], allowed_dtypes=(torch.float32,))
            def test_op(self, device, dtype, op):
                pass

        instantiate_device_type_tests(TestDbFirst, globals(), only_for="cpu")
        """
    )
    # a fresh interpreter: in this one torch's test modules are loaded already
    result = pytester.runpytest_subprocess(*PLUGIN, "-m", "op__abs", "--collect-only", "-q")
    assert result.ret == 0, result.stdout.str()
    assert [line.split("::")[-1] for line in result.stdout.lines if "::" in line] == [
        "test_op_abs_cpu_float32"
    ]


def test_a_tests_own_hang_window_and_its_configs_are_applied_under_isolation(
    pytester, fake_suite, write_yaml, tmp_path
):
    """A config's global.hang_window is every test's of that config; a test entry's own wins.
    Here the run's window is 300 s: the hung test is told after its entry's 2 s."""
    cfg = write_yaml(f"""
        test_suite_config:
          global:
            hang_window: 300
          files:
            - path: {fake_suite}
              tests:
                - names: TestFake::test_hang
                  hang_window: 2
                - names: TestFake::test_pass
    """)
    started = time.monotonic()
    result = pytester.runpytest(*PLUGIN, "--config", cfg, "--isolate", "-p", "no:timeout")
    assert result.parseoutcomes() == {"passed": 1, "errors": 1, "deselected": 1}, result.stdout.str()
    assert "hang: no progress for 2s (window 2s" in result.stdout.str()
    assert time.monotonic() - started < 120  # not the run's 300 s window


@pytest.mark.parametrize("where", ["global", "entry"])
def test_a_hang_window_that_is_not_positive_is_one_line_at_its_file_and_line(
    pytester, fake_suite, write_yaml, where
):
    window = {"global": "  global:\n    hang_window: 0\n", "entry": ""}[where]
    entry = "        hang_window: -5\n" if where == "entry" else ""
    cfg = write_yaml(
        f"test_suite_config:\n{window}  files:\n    - path: {fake_suite}\n      tests:\n"
        f"      - names: TestFake::test_pass\n{entry}"
    )
    result = pytester.runpytest(*PLUGIN, "--config", cfg)
    lines = [line for line in result.stderr.lines + result.stdout.lines if "hang_window" in line]
    assert len(lines) == 1 and f"{cfg}:{3 if where == 'global' else 6}" in lines[0], lines
    assert "greater than 0" in lines[0]
