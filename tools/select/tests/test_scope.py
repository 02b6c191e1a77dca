import pytest

from tools.errors import SelectError
from tools.select.scope import scope
from tools.select.scope.symbols import parse_source

SOURCE = (
    "import torch\n"
    "class TestKeep(TestCase):\n"
    "    def test_a(self, device):\n        torch.ones(2, device=device)\n"
    "    def test_b(self, device):\n        torch.ones(2, device=device, requires_grad=True).sum().backward()\n"
    "class TestGrad(TestCase):\n"
    "    def test_g(self, device):\n        x = torch.ones(1, requires_grad=True)\n"
    "class TestDist(MultiProcessTestCase):\n"
    "    def test_d(self, device):\n        pass\n"
    "class TestHost(TestCase):\n"
    "    def test_h(self):\n        pass\n"
    "for c in (TestKeep, TestGrad, TestDist):\n    instantiate_device_type_tests(c, globals())\n"
)


def _choices(spec, caps):
    out = scope.out_features(spec, caps)
    return scope.decide_file(parse_source(SOURCE, "${REPO_ROOT}/t/test_x.py"), spec, out)


def test_features_out_drop_classes_with_reasons(small_caps):
    spec = scope.ScopeSpec(features={"distributed": "out"})
    choice = _choices(spec, small_caps)  # autograd is out because the backend declares it
    classes = {c.name: c for c in choice.classes}
    assert choice.analyse
    assert classes["TestKeep"].analyse  # only one test uses autograd
    assert not classes["TestGrad"].analyse and "autograd" in classes["TestGrad"].reason
    assert "declares no autograd" in scope.out_features(spec, small_caps)["autograd"]
    assert not classes["TestDist"].analyse and "distributed" in classes["TestDist"].reason
    assert not classes["TestHost"].analyse and "not instantiated" in classes["TestHost"].reason


def test_scope_file_can_bring_a_feature_back(small_caps):
    spec = scope.ScopeSpec(features={"autograd": "in"})
    classes = {c.name: c for c in _choices(spec, small_caps).classes}
    assert classes["TestGrad"].analyse


def test_path_rules(small_caps):
    spec = scope.ScopeSpec(paths=scope.PathRules(exclude=["*/t/*"]))
    assert not _choices(spec, small_caps).analyse


def test_record_round_trip(small_caps):
    spec = scope.ScopeSpec()
    choice = _choices(spec, small_caps)
    record = scope.record([choice], spec, small_caps, scope.out_features(spec, small_caps))
    assert scope.chosen_classes(record) == {"${REPO_ROOT}/t/test_x.py": {"TestKeep", "TestDist"}}


def test_bad_scope_file_names_line_and_key(tmp_path):
    path = tmp_path / "scope.yaml"
    path.write_text("scope:\n  features:\n    autograd: out\n    teleport: in\n")
    with pytest.raises(SelectError, match=r"scope.yaml:4: scope.features.teleport"):
        scope.load_scope(path)
    path.write_text("scope:\n  features:\n    autograd: maybe\n")
    with pytest.raises(SelectError, match=r"scope.yaml:3: scope.features.autograd"):
        scope.load_scope(path)
