import io

from ruamel.yaml import YAML

from testing.config import edit
from testing.config.modes import Mode
from tools.select.bucket import rules
from tools.select.bucket.bucket import load_decisions, save_decisions
from tools.select.bucket.configgen import build_config
from tools.select.bucket.engines import Context, DeterministicEngine
from tools.select.common import yamlio
from tools.select.tests.helpers import FIXTURES, unit


def _units():
    return [
        unit(variant="add"),
        unit(variant="exp", kernel_ops=("aten::exp",)),
        unit(variant="mm", kernel_ops=("aten::mm",)),
        unit(name="test_plain", variant="", dtypes=()),
    ]


def _config(small_caps):
    units = _units()
    verdicts = DeterministicEngine().decide(units, Context(small_caps, {}, {}))
    return (
        units,
        verdicts,
        edit.dump(build_config(units, verdicts, "spyre", "torch_spyre", "deterministic")),
    )


def test_entries_group_by_bucket_and_dtypes_with_comments(small_caps):
    _, _, text = _config(small_caps)
    doc = YAML(typ="safe").load(text)
    tests = doc["test_suite_config"]["files"][0]["tests"]
    by_ops = {tuple(t.get("ops", ())): t for t in tests}
    assert by_ops[("add",)] == {
        "names": "TestA::test_x",
        "ops": ["add"],
        "dtypes": ["float32", "int64"],
        "mode": "mandatory_success",
    }
    assert by_ops[("exp",)]["dtypes"] == ["float32"]
    assert by_ops[("mm",)]["mode"] == "skip" and "mm" in by_ops[("mm",)]["reason"]
    assert doc["test_suite_config"]["files"][0]["unlisted_test_mode"] == "skip"
    lines = text.splitlines()
    for i, line in enumerate(lines):  # every entry has a rationale comment right above it
        if line.strip().startswith("- names:"):
            assert lines[i - 1].strip().startswith("#"), line
    assert "needs aten ops missing from the spyre table: mm" in text


def test_an_op_variant_is_not_decided_by_its_base_ops_entry(tmp_path, small_caps):
    """`ops: [round]` names every OpInfo variant of round in the plugin (first entry wins a
    tie): a skipped round.decimals_3 must not become mandatory through round's entry."""
    from testing.plugin import selection
    from testing.plugin.plan import load_plan
    from tools.select.bucket import generation

    def dev(name, *dtypes):
        return tuple((f"test_x_{name}_{{device}}_{d}", (d,)) for d in dtypes)

    units = [
        unit(variant="round", aten="round", device=dev("round", "float32")),
        unit(variant="round.decimals_3", aten="round", device=dev("round_decimals_3", "float32")),
    ]
    verdicts = {
        units[0].unit_id: rules.Verdict(
            Mode.mandatory_success, "every kernel is in the table", dtypes=("float32",)
        ),
        units[1].unit_id: rules.Verdict(Mode.skip, "fails on CPU already"),
    }
    path = tmp_path / "gen.yaml"
    edit.write(path, build_config(units, verdicts, "spyre", "torch_spyre", "deterministic"))
    plan = load_plan([str(path)], {"REPO_ROOT": str(tmp_path)})
    fp = plan.files[0]
    import json

    from tools.select.common import capabilities

    table = json.loads((FIXTURES / "caps_small.json").read_text())
    table["ops"]["round"] = {"aten": ["round"], "dtypes": ["float32"], "precision": "exact", "layout": "any"}
    (tmp_path / "caps.json").write_text(json.dumps(table))
    support = generation.device_view(capabilities.from_file(tmp_path / "caps.json")).support

    def mode(v):  # the plugin does not generate a skipped variant at all
        decision = selection.decide(fp, support, v)
        return decision.mode.value if decision else "not generated"

    modes = {u.variant: {mode(v) for v in generation.variants(u, "spyre")} for u in units}
    assert modes == {"round": {"mandatory_success"}, "round.decimals_3": {"not generated"}}


def test_config_is_valid_for_the_plugin(small_caps):
    from testing.config import models  # a hard dependency: this is the schema check

    _, _, text = _config(small_caps)
    models.ConfigDocument.model_validate(YAML(typ="safe").load(io.StringIO(text)))


def test_control_characters_never_reach_the_yaml(tmp_path, small_caps):
    """A CPU error with ANSI colours (as test_pickle prints them) goes through bucket into a
    rationale and a reason; the plugin's own loader must still read the config."""
    from testing.plugin.plan import load_plan
    from tools.select.bucket.bucket import write_config

    ansi = "\x1b[1mAssertionError\x1b[0m: pickled \x1b[31mtensor\x1b[0m differs\x07\x00 at\rline"
    units = [unit(status="failed", error=ansi), unit(variant="exp", kernel_ops=("aten::exp",))]
    verdicts = DeterministicEngine().decide(units, Context(small_caps, {}, {}))
    assert "\x1b" in verdicts[units[0].unit_id].rationale
    path = write_config(tmp_path / "gen.yaml", units, verdicts, small_caps, "torch_spyre", "deterministic")
    text = path.read_text()
    assert "\x1b" not in text and "\x07" not in text and "\x00" not in text
    assert "AssertionError: pickled tensor differs\\x07\\x00 at line" in text
    plan = load_plan([str(path)], {"REPO_ROOT": str(tmp_path)})
    reasons = [r.entry.reason for fp in plan.files for r in fp.rules if r.entry.reason]
    assert any("pickled tensor differs" in r for r in reasons)


def test_clean_keeps_tabs_and_escapes_the_rest():
    assert yamlio.clean("a\tb\x1b[0;31mc\x1bd\x7f") == "a\tbc\\x1bd\\x7f"
    assert yamlio.clean("one\ntwo") == "one two" and yamlio.clean("one\ntwo", one_line=False) == "one\ntwo"


def test_decisions_round_trip(tmp_path, small_caps):
    units, verdicts, _ = _config(small_caps)
    path = tmp_path / "d.json"
    save_decisions(path, units, verdicts)
    again, tests = load_decisions(path)
    assert again == verdicts and tests[units[0].unit_id] == units[0].test_id
    assert again[units[2].unit_id].mode == Mode.skip
