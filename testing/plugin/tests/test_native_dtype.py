"""Parity of dtype-level skips: pytorch main's dtype-level test_exclusions form where the core
honours it (native), our patches where it does not (2.13.0); both adapters give the same ids,
buckets and outcomes either way."""

import textwrap

import pytest

from testing.plugin.tests.native_helpers import both as _both
from testing.plugin.tests.native_helpers import outcomes, suite

DTYPE_SKIP = """
test_suite_config:
  global:
    supported_dtypes: [float32, float16, int64, bool]
  files:
    - path: ${REPO_ROOT}/testing/suites/test_tensor_basics.py
      tests:
        - names: "TestTensorBasics::*"
        - names: TestTensorBasics::test_add_matches_cpu
          dtypes: [float16, int64]
          mode: skip
          reason: "dtype-level: test_exclusions where the core has the form"
        - names: TestTensorBasics::test_fill
          dtypes: [bool]
          mode: skip
          reason: "also dtype-level"
"""


@pytest.mark.parametrize("core", ["2.13.0", "main"])
def test_dtype_level_skip_native_where_the_core_has_the_form(tmp_path, core):
    """Feature-detected by the core's behaviour: 2.13.0 (no dtype form) patches these skips,
    a core with pytorch main's form (main_core_shim.py) takes them as test_exclusions; both
    adapters give the same ids, buckets and outcomes either way."""
    cfg = tmp_path / "dtype.yaml"
    cfg.write_text(textwrap.dedent(DTYPE_SKIP))
    shim = ("-p", "testing.plugin.tests.main_core_shim") if core == "main" else ()
    native, patch = _both(tmp_path, [cfg], [suite("test_tensor_basics.py")], *shim)
    assert outcomes(native) == outcomes(patch)
    got = outcomes(native)
    assert not any(
        k.endswith(("add_matches_cpu_spyre_float16", "_cpu_float16")) and "add_matches" in k for k in got
    )
    assert any("add_matches_cpu_cpu_float32" in k for k in got) and any(
        "test_fill_cpu_int64" in k for k in got
    )
    assert not any("test_fill_cpu_bool" in k for k in got)
    row = {r["what"]: r for r in native["adapter"]["rules"]}["TestTensorBasics::test_add_matches_cpu (skip)"]
    assert (row["way"], row["setting"]) == (
        ("native", "test_exclusions") if core == "main" else ("patched", "patch")
    )
