from testing.config import dtypes
from testing.config.load import load

ALIASED = """\
test_suite_config:
  global:
    supported_dtypes: [half, {name: torch.double}, bool, flaot16]
    supported_ops:
      - {name: add, dtypes: [long, {name: cfloat}], exclude_dtypes: [short]}
  files:
    - path: ${REPO_ROOT}/testing/suites/test_op_consistency.py
      tests:
        - names: [TestOpConsistency::test_matches_cpu]
          dtypes: [float]
          edits:
            dtypes: {include: [int], exclude: [{name: chalf}, cdouble]}
"""


def test_aliases_are_torch_names_wherever_a_config_names_a_dtype(tmp_path):
    path = tmp_path / "aliased.yaml"
    path.write_text(ALIASED)
    suite = load(str(path)).doc.test_suite_config
    g = suite.global_
    names = [d if isinstance(d, str) else d.name for d in g.supported_dtypes]
    assert names == ["float16", "float64", "bool", "flaot16"]  # an unknown name is left as written
    add = g.supported_ops[0]
    assert [d if isinstance(d, str) else d.name for d in add.dtypes] == ["int64", "complex64"]
    assert add.exclude_dtypes == ["int16"]
    entry = suite.files[0].tests[0]
    assert entry.dtypes == ["float32"] and entry.edits.dtypes.include == ["int32"]
    assert [d if isinstance(d, str) else d.name for d in entry.edits.dtypes.exclude] == [
        "complex32",
        "complex128",
    ]


def test_canonical():
    assert dtypes.canonical("torch.half") == dtypes.canonical("float16") == "float16"
    assert dtypes.canonical("bfloat16") == "bfloat16"
