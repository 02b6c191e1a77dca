"""promotions.py: which config edits promotion candidates propose."""

from testing.proposals.promotions import plan_changes


def t(nodeid, outcome, rule=None, cls="T", variant=None):
    return {"nodeid": nodeid, "outcome": outcome, "rule": rule, "class": cls, "variant": variant or nodeid}


def test_flip_when_every_variant_passed_else_add_exact_variants():
    summary = {
        "tests": [
            t("a1", "xpassed", "c.yaml:5"),
            t("a2", "xpassed_strict", "c.yaml:5"),
            t("b1", "xpassed", "c.yaml:9"),
            t("b2", "xfailed", "c.yaml:9"),
            t("u1", "xpassed"),
            t("p", "passed", "c.yaml:3"),
        ]
    }
    changes = plan_changes(summary, lambda nodeid: ("c.yaml", 2))
    assert sorted(changes["c.yaml"]) == [
        ("add", 2, "T::u1", "u1"),
        ("add", 9, "T::b1", "b1"),
        ("flip", 5, "T::a1", "a1"),
        ("flip", 5, "T::a2", "a2"),
    ]
