"""configs.bzl-shaped data for the macro's own tests (fixture/)."""

_CONFIG = "testing/targets/tests/fixture/fixture.yaml"
_SUITE = "testing/targets/tests/fixture/test_fixture_suite.py"
_DATA = ["fixture/fixture.yaml", "fixture/test_fixture_suite.py"]

FIXTURE_CONFIGS = {"fixture": {"config": _CONFIG, "configs": [_CONFIG], "suites": [_SUITE], "upstream": [], "data": _DATA}}

FIXTURE_OPS = {
    "add": {"name": "add", "mark": "op__add", "configs": [_CONFIG], "suites": [_SUITE], "data": _DATA},
    "mul": {"name": "mul", "mark": "op__mul", "configs": [_CONFIG], "suites": [_SUITE], "data": _DATA},
}

FIXTURE_DTYPES = {
    "float32": {"name": "float32", "mark": "dtype__float32", "configs": [_CONFIG], "suites": [_SUITE], "data": _DATA},
    "int64": {"name": "int64", "mark": "dtype__int64", "configs": [_CONFIG], "suites": [_SUITE], "data": _DATA},
}
