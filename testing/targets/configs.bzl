"""Test targets implied by configs/: generated, do not edit.

Regenerate: tools/bazel run //testing/targets:generate (checked by //testing/targets:generated_test).
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
    "spyre_model_minilm": {
        "config": "configs/spyre/model_minilm.yaml",
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/model_minilm.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/model_minilm.yaml",
            "//testing:suites/test_model_ops.py"
        ],
        "suites": [
            "testing/suites/test_model_ops.py"
        ],
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
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
        ]
    }
}

DTYPES = {
    "bfloat16": {
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
        "mark": "dtype__bfloat16",
        "suites": [
            "testing/suites/test_module_consistency.py",
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py",
            "testing/suites/test_tensor_basics.py"
        ]
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
        ]
    },
    "complex64": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_tensor_basics.py"
        ],
        "mark": "dtype__complex64",
        "suites": [
            "testing/suites/test_tensor_basics.py"
        ]
    },
    "float16": {
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
        "mark": "dtype__float16",
        "suites": [
            "testing/suites/test_module_consistency.py",
            "testing/suites/test_noncontiguous.py",
            "testing/suites/test_op_consistency.py",
            "testing/suites/test_tensor_basics.py"
        ]
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
        ]
    },
    "float64": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_tensor_basics.py"
        ],
        "mark": "dtype__float64",
        "suites": [
            "testing/suites/test_tensor_basics.py"
        ]
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
        ]
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
        ]
    },
    "uint8": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/tensor_basics.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/tensor_basics.yaml",
            "//testing:suites/test_tensor_basics.py"
        ],
        "mark": "dtype__uint8",
        "suites": [
            "testing/suites/test_tensor_basics.py"
        ]
    }
}

MODELS = {
    "minilm": {
        "configs": [
            "configs/spyre/device.yaml",
            "configs/spyre/model_minilm.yaml"
        ],
        "data": [
            "//configs:spyre/device.yaml",
            "//configs:spyre/model_minilm.yaml",
            "//testing:suites/test_model_ops.py"
        ],
        "mark": "model__minilm",
        "suites": [
            "testing/suites/test_model_ops.py"
        ]
    }
}
