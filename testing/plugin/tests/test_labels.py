"""labels.py: the test type and what suite/entry labels leave out (pure, no torch)."""

import pytest

from testing.base.errors import Loc
from testing.config.models import Mode, TestEntry
from testing.plugin.labels import ENV, applies, entry_for_test_type, resolve_test_type, suite_left_out
from testing.plugin.plan import FilePlan, Rule
from testing.plugin.selection import Support, Variant, decide, should_instantiate


def test_test_type_from_option_else_environment():
    assert resolve_test_type(None, {}) is None
    assert resolve_test_type(None, {ENV: ""}) is None  # empty variable: no filtering
    assert resolve_test_type(None, {ENV: "smoke"}) == "smoke"
    assert resolve_test_type("nightly", {ENV: "smoke"}) == "nightly"  # the option wins


def test_an_empty_option_can_never_be_a_label():
    with pytest.raises(ValueError) as exc:
        resolve_test_type("", {ENV: "smoke"})
    assert str(exc.value).startswith("'' can never be a label") and "\n" not in str(exc.value)


def test_labels_apply_without_test_type_or_labels_or_when_named():
    assert applies(["smoke"], None) and applies([], "smoke")
    assert applies(["smoke", "full"], "smoke")
    assert not applies(["full"], "smoke")


def test_suite_without_files_is_never_left_out():
    assert suite_left_out(["full"], True, "smoke")
    assert not suite_left_out(["full"], False, "smoke")  # device-wide settings always apply
    assert not suite_left_out(["full", "smoke"], True, "smoke")
    assert not suite_left_out([], True, "smoke")
    assert not suite_left_out(["full"], True, None)


def test_entry_whose_labels_exclude_the_test_type_becomes_skip():
    entry = TestEntry(names="TestA::test_x", mode="xfail", reason="r", labels=["nightly"], tags=["slow"])
    assert entry_for_test_type(entry, None) is entry
    assert entry_for_test_type(entry, "nightly") is entry
    dropped = entry_for_test_type(entry, "smoke")
    assert dropped.mode == Mode.skip and "exclude test type 'smoke'" in dropped.reason
    assert (dropped.names, dropped.tags, dropped.labels) == (entry.names, entry.tags, entry.labels)
    plain = TestEntry(names="TestA::test_y")  # no labels: always applies
    assert entry_for_test_type(plain, "smoke") is plain


def test_dropped_entry_generates_nothing_and_wins_over_wider_entries():
    def plan(test_type):
        entries = [TestEntry(names="TestA::*"), TestEntry(names="TestA::test_x", labels=["nightly"])]
        rules = tuple(
            Rule(entry_for_test_type(e, test_type), Loc("c.yaml", i + 1)) for i, e in enumerate(entries)
        )
        return FilePlan("/t.py", Mode.skip, None, False, False, rules, Loc("c.yaml", 0))

    x, y = Variant("TestA", "test_x", "test_x_dev"), Variant("TestA", "test_y", "test_y_dev")
    assert decide(plan("nightly"), Support(), x) is not None
    assert decide(plan("smoke"), Support(), x) is None  # the variants it governs: not generated
    assert decide(plan("smoke"), Support(), y) is not None  # the glob entry has no labels
    assert should_instantiate(plan("smoke"), "TestA", "test_y")
