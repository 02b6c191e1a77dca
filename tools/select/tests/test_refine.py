import shutil

import pytest

from testing.config.load import read_yaml
from tools.errors import SelectError
from tools.select.refine import refine, results


@pytest.fixture
def cases(fixtures):
    return {c.variant: c for c in results.read_junit(fixtures / "run.xml")}


def test_classification(cases):
    assert cases["test_matches_cpu_add_spyre_float32"].failure is None
    numerical = cases["test_matches_cpu_exp_spyre_float32"].failure
    assert numerical.kind == "numerical"
    assert numerical.numerics.abs_diff == pytest.approx(
        0.0021
    ) and numerical.numerics.rel_diff == pytest.approx(0.00048)
    assert numerical.numerics.index == "1, 2" and numerical.numerics.mismatched == "3/25"
    assert cases["test_matches_cpu_mul_spyre_float32"].failure.numerics.abs_diff == pytest.approx(1.99)
    assert cases["test_matches_cpu_cumsum_spyre_int64"].failure.kind == "layout"
    unsupported = cases["test_matmul_square_spyre_float32"].failure
    assert unsupported.kind == "unsupported_op" and unsupported.op == "mm"
    assert cases["test_where_plain_spyre"].outcome == "crashed"
    assert cases["test_where_plain_spyre"].failure.kind == "crash"
    assert cases["test_matches_cpu_abs_spyre_int64"].outcome == "xpassed_strict"
    assert cases["test_matches_cpu_abs_spyre_float32"].outcome == "xfailed"


def test_dtype_and_timeout_messages():
    dtype = results.classify(
        "failed", "TypeError: spyre: aten::exp does not support dtype Long (supported: ...)"
    )
    assert (dtype.kind, dtype.op, dtype.dtype) == ("unsupported_dtype", "exp", "Long")
    assert results.classify("failed", "Failed: Timeout >30.0s").kind == "timeout"
    assert results.classify("failed", "AssertionError: boom").kind == "other"


def test_proposals(cases):
    props = {p.case.variant: p for p in map(refine.propose, cases.values()) if p}
    knob = props["test_matches_cpu_exp_spyre_float32"]
    assert knob.mode == "mandatory_success" and knob.precision == ("float32", 0.004, 0.0008)
    assert props["test_matches_cpu_mul_spyre_float32"].mode == "xfail"  # beyond max tolerance
    assert props["test_matmul_square_spyre_float32"].mode == "xfail_strict"
    assert "aten::mm is not supported" in props["test_matmul_square_spyre_float32"].reason
    assert props["test_where_plain_spyre"].mode == "skip"
    assert props["test_matches_cpu_abs_spyre_int64"].mode == "mandatory_success"  # promotion
    assert "test_matches_cpu_add_spyre_float32" not in props
    assert "test_matches_cpu_abs_spyre_float32" not in props  # xfailed as expected


def test_refine_diff_keeps_comments_and_writes_only_on_request(fixtures, tmp_path, cases):
    config = tmp_path / "config.yaml"
    shutil.copy(fixtures / "config_before.yaml", config)
    before = config.read_text()
    outcome = refine.refine([config], list(cases.values()), source="run.xml")
    assert config.read_text() == before  # nothing written yet
    diff = outcome.diffs[str(config)]
    assert "+        - names: TestFixtureOps::test_matches_cpu_exp_spyre_float32" in diff
    assert "atol: 0.004" in diff and "rtol: 0.0008" in diff
    assert "+          mode: skip" in diff
    outcome.write()
    after = config.read_text()
    for kept in (
        "# Reviewed by a human: keep this header.",
        "# xfail_strict: a human note that must survive",
        "# mandatory_success: every traced kernel is in the table",
    ):
        assert kept in after
    assert "# refined from run.xml: promote" in after
    # a second refinement with the same results changes nothing new (idempotent per variant)
    again = refine.refine([config], list(cases.values()), source="run.xml")
    assert all("+        - names" not in d for d in again.diffs.values())


def test_bad_inputs(tmp_path, fixtures):
    broken = tmp_path / "broken.xml"
    broken.write_text("<testsuite><testcase")
    with pytest.raises(SelectError, match="broken.xml: cannot read JUnit XML"):
        results.read_junit(broken)
    not_config = tmp_path / "x.yaml"
    not_config.write_text("hello: 1\n")
    with pytest.raises(SelectError, match="x.yaml:1: not a test_suite_config"):
        refine.refine([not_config], [], source="r")


UPSTREAM_CONFIG = """\
test_suite_config:
  files:
    - path: ${TORCH_ROOT}/test/test_views_like.py
      unlisted_test_mode: skip
      tests:
        - names: TestShared::test_diagonal_view
          mode: mandatory_success
        - names: TestViewsLike::test_diagonal_view
          mode: mandatory_success
    - path: ${TORCH_ROOT}/test/test_pointwise_like.py
      unlisted_test_mode: skip
      tests:
        - names: TestShared::test_diagonal_view
          mode: mandatory_success
"""


def _upstream_junit(path, cls: str, rule: str | None) -> None:
    # a file outside pytest's rootdir: the JUnit classname has no module part
    rule_prop = f'<property name="rule" value="{rule}"/>' if rule else ""
    path.write_text(
        f'<testsuites><testsuite name="pytest"><testcase classname=".{cls}SPYRE" '
        f'name="test_diagonal_view_spyre_float32"><properties>'
        f'<property name="bucket" value="mandatory_success"/><property name="class" value="{cls}"/>'
        f'<property name="test" value="test_diagonal_view"/>{rule_prop}'
        f'<property name="variant" value="test_diagonal_view_spyre_float32"/>'
        f'<property name="dtype" value="float32"/></properties>'
        f'<failure message="boom">RuntimeError: spyre: aten::as_strided is not supported</failure>'
        f"</testcase></testsuite></testsuites>"
    )


@pytest.mark.parametrize(
    "cls, rule_line, expected_file",
    [
        # the same class in two files: the plugin's rule location (config line) decides
        ("TestShared", 6, "test_views_like.py"),
        ("TestShared", 13, "test_pointwise_like.py"),
        ("TestViewsLike", None, "test_views_like.py"),  # no rule: the one entry naming the class
    ],
)
def test_refine_reaches_torch_root_entries(tmp_path, cls, rule_line, expected_file):
    config = tmp_path / "upstream.generated.yaml"
    config.write_text(UPSTREAM_CONFIG)
    junit = tmp_path / "junit.xml"
    _upstream_junit(junit, cls, f"{config}:{rule_line}" if rule_line else None)
    cases = results.read_junit(junit)
    outcome = refine.refine([config], cases, source="junit.xml")
    assert outcome.unmatched == [] and len(outcome.proposals) == 1
    outcome.write()
    doc, _ = read_yaml(config)
    files = {str(f["path"]).rsplit("/", 1)[-1]: f for f in doc["test_suite_config"]["files"]}
    added = [t for t in files[expected_file]["tests"] if t["names"].endswith("_spyre_float32")]
    assert [(t["names"], t["mode"]) for t in added] == [
        (f"{cls}::test_diagonal_view_spyre_float32", "xfail_strict")
    ]
    other = next(name for name in files if name != expected_file)
    assert all(not t["names"].endswith("_spyre_float32") for t in files[other]["tests"])


def test_ansi_failure_text_is_refined_into_a_config_the_plugin_loads(tmp_path):
    """pytest colours in a device failure (test_pickle style) must not reach the YAML refine
    writes, neither as pytest's JUnit spells them (#x1B) nor raw from a --log file: reasons
    and comments are cleaned, and the plugin's loader reads the result."""
    from testing.plugin.plan import load_plan

    config = tmp_path / "upstream.generated.yaml"
    config.write_text(UPSTREAM_CONFIG)
    junit = tmp_path / "junit.xml"
    _upstream_junit(junit, "TestViewsLike", None)
    coloured = "#x1B[1mAssertionError#x1B[0m: pickled #x1B[31mtensor#x1B[0m differs"
    xml = junit.read_text().replace('message="boom"', f'message="{coloured}"')
    junit.write_text(xml.replace("RuntimeError: spyre: aten::as_strided is not supported", coloured))
    log = tmp_path / "run.log"
    log.write_text("FAILED test_diagonal_view_spyre_float32 - \x1b[31mE   loaded copy\x1b[0m differs\n")
    cases = results.enrich_from_logs(results.read_junit(junit), [log])
    assert "#x1B" in cases[0].text
    outcome = refine.refine([config], cases, source="junit.xml")
    assert outcome.proposals[0].mode == "xfail" and outcome.unmatched == []
    outcome.write()
    text = config.read_text()
    assert "\x1b" not in text and "#x1B" not in text
    assert "AssertionError: pickled tensor differs" in text
    plan = load_plan([str(config)], {"TORCH_ROOT": str(tmp_path)})
    reasons = [r.entry.reason for fp in plan.files for r in fp.rules if r.entry.reason]
    assert any("pickled tensor differs" in r for r in reasons)
