"""Parity on the real spyre device: the in-tree suites with configs/spyre/*.yaml (capability-driven
ops, per-dtype precision, xfail_strict of @ops variants, module entries) give the same ids, buckets
and outcomes through torch's set_test_configs (auto) and through our patches only."""

import os
from pathlib import Path

from testing.config.features import suite_configs
from testing.plugin.tests.helpers import REPO_ROOT
from testing.plugin.tests.native_helpers import outcomes, run_adapter

CONFIGS = suite_configs(Path(REPO_ROOT) / "configs" / "spyre")


def test_spyre_configs_same_both_ways(tmp_path):
    files = [os.path.join(REPO_ROOT, "testing", "suites")]
    extra = (
        "-m",
        "op__add or op__mul or op__masked_select or op__softmax_with_dtype or op__bmm or module__nn_Linear",
    )
    code_n, native, out_n = run_adapter(tmp_path, "auto", CONFIGS, files, *extra)
    code_p, patch, out_p = run_adapter(tmp_path, "patch", CONFIGS, files, *extra)
    assert native["adapter"]["used"] == "native", out_n
    assert code_n == code_p, (out_n[-3000:], out_p[-3000:])
    got = outcomes(native)
    assert got == outcomes(patch)
    assert {"mandatory_success", "xfail", "xfail_strict"} <= {b for _, b in got.values()}
    way = {r["what"]: r["way"] for r in native["adapter"]["rules"]}
    assert way["capabilities: backend"] == "native"
    native_strict = [
        r for r in native["adapter"]["rules"] if r["what"].endswith("(xfail_strict)") and r["way"] == "native"
    ]
    assert native_strict, native["adapter"]["rules"]
