import pytest

from testing.base.errors import ConfigError
from testing.config import modelops as fmt
from testing.config.load import load

# Their model-op test entry, down to the list of cases.
ENTRY = """\
    - path: ${TORCH_DEVICE_ROOT}/tests/models/test_model_ops_v2.py
      tests:
        - names: [TestSpyreModelOps::test_model_ops_db]
          tags: [model__m]
          edits:
            ops:
              include:
"""

THEIRS = (
    """\
test_suite_config:
  files:
"""
    + ENTRY
    + """\
                - name: torch.add
                  sample_inputs_func:
                    args:
                      - tensor: {shape: [2, 3], stride: [3, 1], dtype: torch.float16, device: cuda:0}
                      - value: 1
                    kwargs:
                      alpha: 2
                  description: 'x + 1'
                  tags: [torch.add.1]
"""
)

CASES = """\
model: old
defaults: {dtype: fp16, seed: 5, atol: 0.01, rtol: 0.02}
cases:
  - name: first
    op: torch.mul
    inputs:
      - tensor: {shape: [4]}
      - value: 2
    marks: constant
  - name: second
    op: torch.nn.functional.softmax
    attrs: {dim: -1}
    kwmap: {dtype: torch.float32}
    inputs:
      - tensor: {shape: [2, 4], dtype: fp32}
"""


def write(tmp_path, text, name="m.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def include(doc):
    return doc.test_suite_config.files[0].tests[0].edits.ops.include


def test_their_model_op_config_loads_as_our_suite_with_typed_cases(tmp_path):
    doc = load(write(tmp_path, THEIRS)).doc
    entry = doc.test_suite_config.files[0]
    assert entry.path == fmt.SUITE_PATH and entry.tests[0].name_list == [fmt.SUITE_TEST]
    case = include(doc)[0]
    assert case.source_line == 10 and case.tags == ["torch.add.1"]
    t = case.sample_inputs_func.args[0].tensor
    assert (t.shape, t.strides, t.storage_offset, fmt.dtype_name(t.dtype)) == ([2, 3], [3, 1], 0, "float16")
    assert case.sample_inputs_func.args[1].kind == "value" and case.sample_inputs_func.kwargs == {"alpha": 2}


def test_a_cases_document_is_one_entry_with_lines_defaults_and_precision(tmp_path):
    one = load(write(tmp_path, CASES, "old.yaml"))
    suite = one.doc.test_suite_config
    assert suite.global_.input_config.seed == 5
    test = suite.files[0].tests[0]
    assert test.tags == ["model__old"]
    first, second = test.edits.ops.include
    assert (first.name, first.source_line, first.tags) == ("torch.mul", 4, ["constant", "first"])
    assert first.sample_inputs_func.args[0].tensor.dtype == "fp16"  # the defaults' dtype filled in
    assert (first.precision.atol, first.precision.rtol) == (0.01, 0.02)
    assert second.sample_inputs_func.kwargs == {"dim": -1, "dtype": "torch.float32"}  # attrs + kwmap
    assert (
        one.raw["test_suite_config"]["files"][0]["tests"][0]["edits"]["ops"]["include"].lc.item(1)[0] == 9
    )  # 0-based: line 10


def test_a_bad_case_in_a_cases_document_names_its_line(tmp_path):
    bad = CASES.replace("      - value: 2\n", "      - value: 2\n        py: '1'\n")
    with pytest.raises(ConfigError, match=r"old\.yaml:4: .*exactly one of tensor, tensor_list, value, py"):
        load(write(tmp_path, bad, "old.yaml"))


@pytest.mark.parametrize(
    "spec, problem",
    [
        ({"shape": [2, -1]}, "negative size in shape [2, -1]"),
        ({"shape": [2, 3], "stride": [1]}, "stride [1] has 1 dims, shape [2, 3] has 2"),
        (
            {"shape": [2, 3], "stride": [3, 1], "storage_offset": 1, "storage_size": 6},
            "reach element 6, outside the storage of 6",
        ),
        ({"shape": [2], "storage_offset": -1}, "negative storage_offset -1"),
        ({"shape": [2], "init": "sparkles"}, "unknown init 'sparkles'"),
        ({"shape": [2], "init": "randint"}, "init randint needs init_args.high"),
        ({"shape": [2], "dtype": "torch.float17"}, "unknown dtype 'torch.float17'"),
    ],
)
def test_impossible_specs_are_named(spec, problem):
    found = fmt.problems(fmt.SampleInputs.model_validate({"args": [{"tensor": spec}]}))
    assert any(problem in p for p in found), found


def test_a_view_into_a_sized_storage_fits():
    t = fmt.TensorSpec(shape=[3, 4], stride=[1, 5], storage_offset=3, storage_size=40)
    assert t.needed_storage() == 3 + 2 * 1 + 3 * 5 + 1 and fmt.tensor_problems(t) == []
    assert fmt.TensorSpec(shape=[0, 4]).needed_storage() == 0


def test_unknown_keys_are_listed_not_fatal():
    inputs = fmt.SampleInputs.model_validate({"args": [{"tensor": {"shape": [1], "glitter": 1}}], "extra": 2})
    assert fmt.unknown_keys(None, inputs) == ["sample_inputs_func.'extra'", "args[0].'glitter'"]


def test_case_key_ignores_init_and_description_but_not_layout_or_attrs():
    def key(stride, init="rand", alpha=1):
        return fmt.case_key(
            "torch.add",
            fmt.SampleInputs.model_validate(
                {
                    "args": [{"tensor": {"shape": [2, 2], "stride": stride, "init": init}}],
                    "kwargs": {"alpha": alpha},
                }
            ),
        )

    assert key([2, 1]) == key([2, 1], init="randn")
    assert key([2, 1]) != key([1, 2]) and key([2, 1]) != key([2, 1], alpha=2)


def test_short_names_and_models():
    assert fmt.short_name("torch.nn.functional.linear") == "nn.functional.linear"
    assert (
        fmt.short_name("torch.Tensor.view") == "view" and fmt.short_name("operator.__getitem__") == "getitem"
    )
    assert fmt.model_of(["x", "model__bert"], "stem") == "bert" and fmt.model_of([], "stem") == "stem"


# Their newer captures: the new-shape body, a `cases:` list after it (empty so far), and a
# case's keyword arguments written beside sample_inputs_func instead of inside it.
NEW_SHAPE = (
    """\
test_suite_config:
  global:
    supported_dtypes: [{name: half, precision: {atol: 0.005, rtol: 0.005}}]
  files:
"""
    + ENTRY
    + """\
                - name: torch.cat
                  sample_inputs_func:
                    args:
                      - tensor_list: [{shape: [2, 3]}, {shape: [2, 3]}]
                  kwargs: {dim: -1}
                - name: torch.softmax
                  sample_inputs_func:
                    args: [{tensor: {shape: [4]}}]
                    kwargs: {dim: 0}
                  kwargs: {dim: 1, dtype: torch.float32}
CASES_AFTER
"""
)


def test_a_trailing_empty_cases_list_loads(tmp_path):
    doc = load(write(tmp_path, NEW_SHAPE.replace("CASES_AFTER", "cases: []"))).doc
    assert [f.path for f in doc.test_suite_config.files] == [fmt.SUITE_PATH]
    assert len(include(doc)) == 2


def test_cases_beside_a_suite_are_one_more_entry(tmp_path):
    after = "cases:\n  - {op: torch.neg, inputs: [{tensor: {shape: [3], dtype: fp32}}]}"
    loaded = load(write(tmp_path, NEW_SHAPE.replace("CASES_AFTER", after), "both.yaml"))
    files = loaded.doc.test_suite_config.files
    assert [f.path for f in files] == [fmt.SUITE_PATH, fmt.SUITE_PATH]
    extra = files[1].tests[0]
    assert extra.tags == ["model__both"] and extra.edits.ops.include[0].name == "torch.neg"
    assert extra.edits.ops.include[0].source_line == 23


def test_kwargs_beside_sample_inputs_func_are_the_call_kwargs(tmp_path):
    cat, softmax = include(load(write(tmp_path, NEW_SHAPE.replace("CASES_AFTER", ""))).doc)
    assert cat.sample_inputs_func.kwargs == {"dim": -1}
    assert softmax.sample_inputs_func.kwargs == {"dim": 0, "dtype": "torch.float32"}  # inside wins
    assert fmt.unknown_keys(cat, cat.sample_inputs_func) == []
