"""Test targets implied by configs/: generated, do not edit.

Regenerate: python3 -m testing.targets.generate (checked by //testing/targets:generated_test).
"""

CONFIGS = {
    "cpu_smoke": {
        "config": "configs/cpu/smoke.yaml",
        "configs": [
            "configs/cpu/smoke.yaml"
        ],
        "data": [
            "//configs:cpu/smoke.yaml",
            "//testing:suites/test_op_consistency.py",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_module_consistency.py",
            "//testing:suites/test_tensor_basics.py"
        ],
        "suites": [
            "testing/suites/test_op_consistency.py",
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_module_consistency.py",
            "testing/suites/test_tensor_basics.py"
        ],
        "upstream": []
    },
    "spyre_device": {
        "config": "configs/spyre/device.yaml",
        "configs": [
            "configs/spyre/device.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml"
        ],
        "suites": [],
        "upstream": []
    },
    "spyre_module_consistency": {
        "config": "configs/spyre/module_consistency.yaml",
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/module_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/module_consistency.yaml",
            "//testing:suites/test_module_consistency.py"
        ],
        "suites": [
            "testing/suites/test_module_consistency.py"
        ],
        "upstream": []
    },
    "spyre_noncontiguous": {
        "config": "configs/spyre/noncontiguous.yaml",
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//testing:suites/test_noncontiguous.py"
        ],
        "suites": [
            "testing/suites/test_noncontiguous.py"
        ],
        "upstream": []
    },
    "spyre_op_consistency": {
        "config": "configs/spyre/op_consistency.yaml",
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "upstream": []
    },
    "spyre_tensor_basics": {
        "config": "configs/spyre/tensor_basics.yaml",
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_tensor_basics.py"
        ],
        "suites": [
            "testing/suites/test_tensor_basics.py"
        ],
        "upstream": []
    }
}

OPS = {
    "_refs_nn_functional_hardtanh": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//testing:suites/test_noncontiguous.py"
        ],
        "mark": "op___refs_nn_functional_hardtanh",
        "suites": [
            "testing/suites/test_noncontiguous.py"
        ],
        "tests": 3
    },
    "_refs_nn_functional_relu": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//testing:suites/test_noncontiguous.py"
        ],
        "mark": "op___refs_nn_functional_relu",
        "suites": [
            "testing/suites/test_noncontiguous.py"
        ],
        "tests": 5
    },
    "_softmax_backward_data": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op___softmax_backward_data",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "abs": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__abs",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "add": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__add",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "addcdiv": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__addcdiv",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "addcmul": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__addcmul",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "addmm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__addmm",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "addmm_decomposed": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__addmm_decomposed",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "addmv": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__addmv",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "all": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__all",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "amax": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__amax",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "amin": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__amin",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "any": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__any",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "arange": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__arange",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "argmax": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__argmax",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "argmin": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__argmin",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "as_strided": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__as_strided",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "as_strided_partial_views": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__as_strided_partial_views",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "baddbmm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__baddbmm",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "bernoulli": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__bernoulli",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "bitwise_and": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__bitwise_and",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "bitwise_or": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__bitwise_or",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "bmm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__bmm",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "bmm_triton_optimized": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__bmm_triton_optimized",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "cat": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__cat",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "ceil": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__ceil",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "chunk": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__chunk",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "clamp": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__clamp",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "clamp_max": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__clamp_max",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "clamp_min": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__clamp_min",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "clone": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__clone",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "contiguous": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__contiguous",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "cos": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__cos",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "cumsum": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__cumsum",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "div_floor_rounding": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__div_floor_rounding",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "div_no_rounding_mode": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__div_no_rounding_mode",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "div_trunc_rounding": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__div_trunc_rounding",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "dot": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__dot",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "empty": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__empty",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "empty_strided": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__empty_strided",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "eq": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__eq",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 13
    },
    "equal": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__equal",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "erf": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__erf",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "exp": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__exp",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "expand": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__expand",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "eye": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__eye",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "fill": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__fill",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 13
    },
    "flip": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__flip",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "floor": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__floor",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "full": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__full",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "gather": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__gather",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "ge": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__ge",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "gt": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__gt",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "index_put": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__index_put",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "index_select": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__index_select",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "isnan": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__isnan",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "item": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__item",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "le": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__le",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "lerp": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__lerp",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "linalg_vector_norm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__linalg_vector_norm",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "linspace": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__linspace",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "linspace_tensor_overload": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__linspace_tensor_overload",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "log": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__log",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "log_softmax": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__log_softmax",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "log_softmax_with_dtype": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__log_softmax_with_dtype",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "logical_and": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__logical_and",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 13
    },
    "logical_not": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__logical_not",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 13
    },
    "logical_or": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__logical_or",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 13
    },
    "lt": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__lt",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "masked_fill": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__masked_fill",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "masked_select": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__masked_select",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "matmul": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__matmul",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "max_binary": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__max_binary",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "max_reduction_no_dim": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__max_reduction_no_dim",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "max_reduction_with_dim": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__max_reduction_with_dim",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "maximum": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__maximum",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "mean": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__mean",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "min_binary": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__min_binary",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "min_reduction_no_dim": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__min_reduction_no_dim",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "min_reduction_with_dim": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__min_reduction_with_dim",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "minimum": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__minimum",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "mm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__mm",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "mul": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__mul",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 13
    },
    "mv": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__mv",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "narrow": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__narrow",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "native_batch_norm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__native_batch_norm",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "native_dropout_backward": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__native_dropout_backward",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "ne": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__ne",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 13
    },
    "neg": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__neg",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "nn_functional_batch_norm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__nn_functional_batch_norm",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "nn_functional_batch_norm_without_cudnn": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__nn_functional_batch_norm_without_cudnn",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 1
    },
    "nn_functional_gelu": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__nn_functional_gelu",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "nn_functional_hardtanh": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__nn_functional_hardtanh",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "nn_functional_layer_norm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__nn_functional_layer_norm",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "nn_functional_leaky_relu": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__nn_functional_leaky_relu",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "nn_functional_linear": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__nn_functional_linear",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "nn_functional_relu": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__nn_functional_relu",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "nonzero": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__nonzero",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "norm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__norm",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "norm_fro": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__norm_fro",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "norm_inf": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__norm_inf",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "norm_nuc": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__norm_nuc",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 2
    },
    "normal": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__normal",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "normal_in_place": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__normal_in_place",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "normal_number_mean": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__normal_number_mean",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "ones": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__ones",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "permute": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__permute",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "pow": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__pow",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "prod": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__prod",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "randint": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__randint",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "randn": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__randn",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "reciprocal": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__reciprocal",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "remainder": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__remainder",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "reshape": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__reshape",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "roll": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__roll",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "round": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__round",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "round_decimals_0": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__round_decimals_0",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "round_decimals_3": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__round_decimals_3",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 5
    },
    "round_decimals_neg_3": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__round_decimals_neg_3",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 5
    },
    "rsqrt": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__rsqrt",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "scatter": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__scatter",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "scatter_add": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__scatter_add",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "select": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__select",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "sigmoid": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__sigmoid",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "sign": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__sign",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "sin": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__sin",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "slice": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__slice",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "softmax": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__softmax",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "softmax_with_dtype": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__softmax_with_dtype",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "sort": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__sort",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "split": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__split",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "split_list_args": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__split_list_args",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "sqrt": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__sqrt",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "squeeze": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__squeeze",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "squeeze_multiple": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__squeeze_multiple",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "stack": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__stack",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "std": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__std",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "std_mean": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__std_mean",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "std_mean_unbiased": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__std_mean_unbiased",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "std_unbiased": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__std_unbiased",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "sub": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__sub",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 11
    },
    "sum": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__sum",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "tanh": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__tanh",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "to": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__to",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "topk": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__topk",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 6
    },
    "transpose": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__transpose",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "tril": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__tril",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "triu": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__triu",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "unfold": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__unfold",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "uniform": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__uniform",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "unsqueeze": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__unsqueeze",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "var": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__var",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "var_mean": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__var_mean",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "var_mean_unbiased": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__var_mean_unbiased",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "var_unbiased": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__var_unbiased",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 4
    },
    "view": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__view",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "where": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__where",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    },
    "zeros": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/op_consistency.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//testing:suites/test_op_consistency.py"
        ],
        "mark": "op__zeros",
        "suites": [
            "testing/suites/test_op_consistency.py"
        ],
        "tests": 7
    }
}

DTYPES = {
    "bfloat16": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py",
            "//testing:suites/test_tensor_basics.py"
        ],
        "mark": "dtype__bfloat16",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py",
            "testing/suites/test_tensor_basics.py"
        ],
        "tests": 206
    },
    "bool": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py",
            "//testing:suites/test_tensor_basics.py"
        ],
        "mark": "dtype__bool",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py",
            "testing/suites/test_tensor_basics.py"
        ],
        "tests": 66
    },
    "float16": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py",
            "//testing:suites/test_tensor_basics.py"
        ],
        "mark": "dtype__float16",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py",
            "testing/suites/test_tensor_basics.py"
        ],
        "tests": 203
    },
    "float32": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/module_consistency.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/module_consistency.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_module_consistency.py",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py",
            "//testing:suites/test_tensor_basics.py"
        ],
        "mark": "dtype__float32",
        "suites": [
            "testing/suites/test_module_consistency.py",
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py",
            "testing/suites/test_tensor_basics.py"
        ],
        "tests": 210
    },
    "int32": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py",
            "//testing:suites/test_tensor_basics.py"
        ],
        "mark": "dtype__int32",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py",
            "testing/suites/test_tensor_basics.py"
        ],
        "tests": 133
    },
    "int64": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/noncontiguous.yaml",
            "configs/spyre/op_consistency.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/noncontiguous.yaml",
            "//configs:spyre/op_consistency.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_noncontiguous.py",
            "//testing:suites/test_op_consistency.py",
            "//testing:suites/test_tensor_basics.py"
        ],
        "mark": "dtype__int64",
        "suites": [
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py",
            "testing/suites/test_tensor_basics.py"
        ],
        "tests": 133
    }
}
