"""The one outcome vocabulary: its severity order and what each layer derives from it."""

import pytest

from testing.results.outcomes import (
    BAD,
    PROMOTABLE,
    SEVERITY,
    Outcome,
    junit_property,
    of_phase,
    rank,
    tally,
    worst,
)


def test_severity_order_mildest_first():
    assert [o.value for o in SEVERITY] == [
        "passed",
        "xpassed",
        "xfailed",
        "skipped",
        "xpassed_strict",
        "failed",
        "error",
        "crashed",
    ]
    assert [rank(o) for o in SEVERITY] == list(range(len(SEVERITY)))


@pytest.mark.parametrize(
    "phases, expected",
    [
        ((), "passed"),
        (("passed", "skipped"), "skipped"),
        (("xfailed", "xpassed"), "xfailed"),
        (("xpassed_strict", "skipped"), "xpassed_strict"),
        (("failed", "xpassed_strict"), "failed"),
        (("passed", "error", "failed"), "error"),
        (("error", "crashed"), "crashed"),
    ],
)
def test_worst_names_the_test(phases, expected):
    assert worst(phases) == expected


def test_outcomes_are_plain_strings():
    assert Outcome.XPASSED_STRICT == "xpassed_strict" and f"{Outcome.CRASHED}" == "crashed"
    assert worst(["failed"]) in {"failed"}


def test_unknown_outcome_is_named():
    with pytest.raises(ValueError, match="'flaky' is not a valid Outcome"):
        rank("flaky")


def test_bad_promotable_and_callback_tally():
    assert BAD == {"failed", "error", "crashed"}
    assert PROMOTABLE == {"xpassed", "xpassed_strict"}
    assert {o.value: tally(o) for o in SEVERITY} == {
        "passed": "passed",
        "xpassed": "passed",
        "xfailed": "skipped",
        "skipped": "skipped",
        "xpassed_strict": "passed",
        "failed": "failed",
        "error": "failed",
        "crashed": "failed",
    }


@pytest.mark.parametrize(
    "when, outcome, wasxfail, longrepr, expected",
    [
        ("call", "passed", False, "", "passed"),
        ("setup", "passed", False, "", "passed"),
        ("call", "failed", False, "assert 1 == 2", "failed"),
        ("setup", "failed", False, "boom", "error"),
        ("teardown", "failed", False, "boom", "error"),
        ("call", "skipped", True, "", "xfailed"),
        ("setup", "skipped", True, "", "xfailed"),
        ("call", "passed", True, "", "xpassed"),
        ("call", "failed", False, "[XPASS(strict)] fixed?", "xpassed_strict"),
        ("setup", "skipped", False, "", "skipped"),
    ],
)
def test_one_mapping_from_pytest_phases(when, outcome, wasxfail, longrepr, expected):
    assert of_phase(when, outcome, wasxfail, longrepr) == expected
    assert of_phase(when, outcome, wasxfail, longrepr, crashed=True) == "crashed"


def test_only_an_xpass_needs_a_junit_property():
    assert {o.value: junit_property(o) for o in SEVERITY if junit_property(o)} == {
        "xpassed": ("outcome", "xpassed")
    }


def test_the_package_pulls_in_no_heavy_dependency():
    """crcr's callback client imports this package: it must stay standard library only."""
    import os
    import subprocess
    import sys

    code = (
        "import sys, testing.base.atomic, testing.results.junit, testing.results.outcomes\n"
        "heavy = sorted({'torch', 'pytest', 'pydantic', 'yaml', 'numpy'} & set(sys.modules))\n"
        "print(','.join(heavy))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == ""
