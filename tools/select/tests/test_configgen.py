import io

import pytest
from ruamel.yaml import YAML

from tools.select import rules, yamlio
from tools.select.bucket import load_decisions, save_decisions
from tools.select.configgen import build_config
from tools.select.engines import Context, DeterministicEngine
from tools.select.tests.helpers import unit


def _units():
    return [unit(variant="add"), unit(variant="exp", kernel_ops=("aten::exp",)),
            unit(variant="mm", kernel_ops=("aten::mm",)), unit(name="test_plain", variant="", dtypes=())]


def _config(small_caps):
    units = _units()
    verdicts = DeterministicEngine().decide(units, Context(small_caps, {}, {}))
    return units, verdicts, yamlio.dump(build_config(units, verdicts, "spyre", "torch_spyre", "deterministic"))


def test_entries_group_by_bucket_and_dtypes_with_comments(small_caps):
    _, _, text = _config(small_caps)
    doc = YAML(typ="safe").load(text)
    tests = doc["test_suite_config"]["files"][0]["tests"]
    by_ops = {tuple(t.get("ops", ())): t for t in tests}
    assert by_ops[("add",)] == {"names": "TestA::test_x", "ops": ["add"], "dtypes": ["float32", "int64"],
                                "mode": "mandatory_success"}
    assert by_ops[("exp",)]["dtypes"] == ["float32"]
    assert by_ops[("mm",)]["mode"] == "skip" and "mm" in by_ops[("mm",)]["reason"]
    assert doc["test_suite_config"]["files"][0]["unlisted_test_mode"] == "skip"
    lines = text.splitlines()
    for i, line in enumerate(lines):      # every entry has a rationale comment right above it
        if line.strip().startswith("- names:"):
            assert lines[i - 1].strip().startswith("#"), line
    assert "needs aten ops missing from the spyre table: mm" in text


def test_config_is_valid_for_the_plugin(small_caps):
    models = pytest.importorskip("testing.plugin.models")
    _, _, text = _config(small_caps)
    models.ConfigDocument.model_validate(YAML(typ="safe").load(io.StringIO(text)))


def test_decisions_round_trip(tmp_path, small_caps):
    units, verdicts, _ = _config(small_caps)
    path = tmp_path / "d.json"
    save_decisions(path, units, verdicts)
    again, tests = load_decisions(path)
    assert again == verdicts and tests[units[0].unit_id] == units[0].test_id
    assert again[units[2].unit_id].mode == rules.SKIP
