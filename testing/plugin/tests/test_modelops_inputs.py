"""Model-op case inputs (testing/plugin/modelops.py): exact layouts, seeded values, device mapping."""

import torch

from testing.base.errors import Loc
from testing.config import modelops as fmt
from testing.plugin import modelops


def case(args, kwargs=None, name="torch.add", seed=3):
    inputs = fmt.SampleInputs.model_validate({"args": args, "kwargs": kwargs or {}})
    return modelops.Case(name, "m", 1, Loc("c.yaml", 1), Loc("c.yaml", 2), inputs, (), None, None, seed)


def test_a_tensor_has_exactly_the_recorded_shape_stride_offset_and_storage():
    c = case([{"tensor": {"shape": [3, 4], "stride": [1, 5], "storage_offset": 3, "storage_size": 40}}])
    (t,), _ = c.sample("cpu")
    assert (t.shape, t.stride(), t.storage_offset()) == (torch.Size([3, 4]), (1, 5), 3)
    assert t.untyped_storage().nbytes() // t.element_size() == 40


def test_both_sides_get_the_same_values_from_the_seed_and_other_seeds_differ():
    spec = [{"tensor": {"shape": [8], "init": "randn"}}, {"tensor": {"shape": [8], "init": "randn"}}]
    (a, b), _ = case(spec).sample("cpu")
    (a2, _), _ = case(spec).sample("cpu")
    (a3, _), _ = case(spec, seed=4).sample("cpu")
    assert torch.equal(a, a2) and not torch.equal(a, b) and not torch.equal(a, a3)


def test_inits_values_and_device_strings():
    args = [
        {
            "tensor": {
                "shape": [2, 2],
                "dtype": "torch.int64",
                "init": "randint",
                "init_args": {"low": 5, "high": 7},
            }
        },
        {"tensor": {"shape": [3], "init": "arange"}},
        {"tensor": {"shape": [2, 2], "init": "eye"}},
        {"tensor": {"shape": [2], "init": "full", "init_args": {"fill_value": 1.5}}},
        {"value": "(384,)"},
        {"value": "torch.bool"},
        {"py": "(Ellipsis, None, slice(0, 2, None))"},
        {"value": "cuda:0"},
    ]
    got, kwargs = case(args, {"device": "cuda:0", "dtype": "torch.float16"}).sample("cpu")
    assert got[0].min() >= 5 and got[0].max() < 7
    assert got[1].tolist() == [0.0, 1.0, 2.0] and torch.equal(got[2], torch.eye(2))
    assert got[3].tolist() == [1.5, 1.5]
    assert got[4:] == [(384,), torch.bool, (Ellipsis, None, slice(0, 2, None)), "cpu"]
    assert kwargs == {"device": "cpu", "dtype": torch.float16}
    _, on_device = case(args, {"device": "cuda:0"}).sample("meta")
    assert on_device == {"device": "meta"}


def test_callables_as_configs_write_them():
    assert modelops.resolve("torch.getitem")(torch.arange(4), 1) == 1
    assert modelops.resolve("torch.to") is torch.Tensor.to and modelops.resolve("float") is torch.Tensor.float
    assert modelops.resolve("torch.nn.functional.linear") is torch.nn.functional.linear
    for bad in ("torch.nn.functional.add", "torch.nope", "os.system"):
        try:
            modelops.resolve(bad)
        except LookupError as exc:
            assert str(exc) == f"unknown callable '{bad}'"
        else:
            raise AssertionError(bad)


def test_py_arguments_allow_literals_only():
    for bad in ("__import__('os')", "open('x')", "slice.__class__"):
        try:
            modelops.py_literal(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


def test_an_unsupported_case_names_the_refused_op_and_dtype():
    import unittest

    from testing.plugin.modelops import case_outcome

    refused = NotImplementedError(
        "Could not run 'aten::_embedding_bag.padding' with arguments from the 'spyre' backend.\nmore"
    )
    assert dict(case_outcome(refused, "embedding.m_1", "bfloat16")) == {
        "case_outcome": "unsupported",
        "case_reason": "unsupported: aten::_embedding_bag.padding (bfloat16): Could not run "
        "'aten::_embedding_bag.padding' with arguments from the 'spyre' backend.",
    }
    lacking = unittest.SkipTest("unsupported: spyre lacks dtype float64 (args[0])")
    assert dict(case_outcome(lacking, "sin.m_1", "float64"))["case_reason"] == (
        "unsupported: sin.m_1 (float64): spyre lacks dtype float64 (args[0])"
    )
    assert "case_reason" not in dict(case_outcome(unittest.SkipTest("bad case (x:1): y"), "c", "f"))
