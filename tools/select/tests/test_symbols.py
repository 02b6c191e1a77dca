import pytest

from tools.errors import SelectError
from tools.select.memory import summaries
from tools.select.scope.symbols import parse_file, parse_source


def _by_name(symbols):
    return {t.name: t for t in symbols.tests}


def test_fixture_suite_symbols(fixtures):
    path = fixtures / "suite" / "test_fixture_ops.py"
    symbols = parse_file(path, "${REPO_ROOT}/suite/test_fixture_ops.py")
    (cls,) = symbols.classes
    assert cls.name == "TestFixtureOps" and cls.device_generic
    tests = _by_name(symbols)
    assert tests["test_matches_cpu"].kind == "ops" and tests["test_matches_cpu"].op_list == "PICKED"
    assert tests["test_matmul_square"].kind == "dtypes"
    assert tests["test_matmul_square"].dtypes == ("float32", "float64")
    assert "autograd" in tests["test_backward_sum"].features
    assert tests["test_where_plain"].kind == "plain"
    assert tests["test_matches_cpu"].test_id.endswith("::TestFixtureOps::test_matches_cpu")


def test_hash_tracks_the_test_and_what_it_calls_only():
    base = (
        "import torch\n"
        "def helper(x):\n    return x + 1\n\n"
        "class TestA(TestCase):\n"
        "    def test_one(self, device):\n        helper(1)\n"
        "    def test_two(self, device):\n        pass\n"
        "instantiate_device_type_tests(TestA, globals())\n"
    )
    before = _by_name(parse_source(base, "a.py"))
    after = _by_name(parse_source(base.replace("return x + 1", "return x + 2"), "a.py"))
    assert before["test_one"].content_hash != after["test_one"].content_hash
    assert before["test_two"].content_hash == after["test_two"].content_hash


def test_class_without_instantiation_is_not_device_generic():
    symbols = parse_source("class TestB(TestCase):\n    def test_x(self):\n        pass\n", "b.py")
    assert not symbols.classes[0].device_generic


def test_syntax_error_names_file_and_line():
    with pytest.raises(SelectError, match=r"^bad.py:2: cannot parse"):
        parse_source("x = 1\ndef (:\n", "bad.py")


def test_summary_is_extractive(fixtures):
    symbols = parse_file(fixtures / "suite" / "test_fixture_ops.py", "s.py")
    test = _by_name(symbols)["test_matches_cpu"]
    summary = summaries.summarise_test(test)
    assert summary.startswith("Each sample computed on the device equals the CPU result.")
    # every code line in the summary is a real line of the test
    for line in summaries.salient_lines(test.source):
        assert line in test.source
