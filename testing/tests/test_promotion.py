"""promotion.py: which config edits a run proposes."""

from testing.plugin.promotion import _apply, plan_changes


def t(nodeid, outcome, rule=None, cls="T", variant=None):
    return {"nodeid": nodeid, "outcome": outcome, "rule": rule, "class": cls, "variant": variant or nodeid}


def test_flip_when_every_variant_passed_else_add_exact_variants():
    summary = {"tests": [
        t("a1", "xpassed", "c.yaml:5"), t("a2", "xpassed_strict", "c.yaml:5"),
        t("b1", "xpassed", "c.yaml:9"), t("b2", "xfailed", "c.yaml:9"),
        t("u1", "xpassed"), t("p", "passed", "c.yaml:3"),
    ]}
    changes = plan_changes(summary, lambda nodeid: ("c.yaml", 2))
    assert sorted(changes["c.yaml"]) == [
        ("add", 2, "T::u1", "u1"), ("add", 9, "T::b1", "b1"), ("flip", 5, "T::a1", "a1"), ("flip", 5, "T::a2", "a2")]


def test_apply_edits_yaml(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "test_suite_config:\n"
        "  files:\n"
        "    - path: t.py\n"
        "      tests:\n"
        "        - names: T::a\n"
        "          mode: xfail\n"
        "          reason: old bug\n"
        "        - names: T::b\n"
        "          mode: xfail\n"
        "          reason: flaky numerics\n"
    )
    before, after = _apply(str(cfg), [("flip", 5, "T::a_x", "n"), ("add", 8, "T::b_x", "m")])
    assert "reason: old bug" not in after and "mode: mandatory_success" in after
    assert "reason: flaky numerics" in after
    assert "- names: [T::b_x]  # promoted: passed in this run" in after or "T::b_x" in after
    assert cfg.read_text() == before  # the config itself is not modified
