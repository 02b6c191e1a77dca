"""device_support.py: the backend table, name checks, config ∩ capabilities."""

import pytest

from testing.config.paths import default_roots
from testing.plugin import device_support
from testing.plugin.device_support import (
    build_support,
    capability_groups,
    normalize_capabilities,
    validate_names,
)
from testing.plugin.plan import load_plan

# The shape torch_spyre.capabilities() returns (a tiny fake).
FAKE = {
    "version": 1,
    "ops": {
        "add": {
            "aten": ["add"],
            "dtypes": ["float16", "float32", "int64"],
            "precision": "float16",
            "layout": "any",
        },
        "softmax": {
            "aten": ["_softmax"],
            "dtypes": ["float16", "float32"],
            "precision": "float16",
            "layout": "any",
        },
    },
}


@pytest.fixture(scope="module")
def known():
    return device_support.known_names()


def support_for(write_yaml, body, known, caps=FAKE, problems=None):
    plan = load_plan([write_yaml("test_suite_config:\n  global:\n" + body)], default_roots())
    groups = capability_groups(caps) if caps else None
    found = validate_names(plan, known, groups)
    support = build_support(
        plan, known, normalize_capabilities(caps) if caps else None, "spyre", found, groups
    )
    if problems is not None:
        problems.extend(str(p) for p in found if p.severity == "warning")
    return support


def warnings_for(write_yaml, body, known, caps=FAKE) -> list[str]:
    out: list[str] = []
    support_for(write_yaml, body, known, caps, out)
    return out


def test_normalize_accepts_several_shapes():
    caps = normalize_capabilities(FAKE)
    assert caps["add"] == {"float16": None, "float32": None, "int64": None} and "_softmax" in caps
    assert normalize_capabilities({"mul": {"float32": {"atol": 1e-3}}}) == {"mul": {"float32": (1e-3, 0.0)}}
    assert normalize_capabilities({"aten::mul.Tensor": ["torch.float32"]}) == {"mul": {"float32": None}}


def test_capabilities_drive_ops_and_dtypes(write_yaml, known):
    support = support_for(write_yaml, "    capabilities: backend\n", known)
    assert "add" in support.ops and "mul" not in support.ops
    assert "nn.functional.relu" not in support.ops
    assert {"softmax", "softmax.with_dtype"} <= set(support.ops)  # variants share aten_name
    assert support.ops["add"].dtypes == {"float16", "float32", "int64"}
    assert support.dtypes == {"float16", "float32", "int64"}
    narrowed = support_for(write_yaml, "    capabilities: backend\n    supported_dtypes: [float32]\n", known)
    assert narrowed.ops["add"].dtypes == {"float32"}  # capability dtypes ∩ supported_dtypes


def test_what_the_device_lacks_is_left_out_with_a_warning_unless_reasoned(write_yaml, known):
    problems = []
    support = support_for(
        write_yaml, "    capabilities: backend\n    supported_ops: [add, mul]\n", known, problems=problems
    )
    assert set(support.ops) == {"add"}
    assert [
        p
        for p in problems
        if "cfg.yaml:4: global.supported_ops: 'mul': spyre has no aten::mul (capabilities): mul left out" in p
    ]
    problems = []
    support = support_for(
        write_yaml, "    supported_ops: [{name: add, dtypes: [float64, float32]}]\n", known, problems=problems
    )
    assert support.ops["add"].dtypes == {"float32"}
    assert [p for p in problems if "'add': spyre has no aten::add for float64" in p]
    problems = []
    support = support_for(write_yaml, "    supported_dtypes: [bool, float16]\n", known, problems=problems)
    assert support.dtypes == {"float16"} and [
        p for p in problems if "supported_dtypes: 'bool': no op of spyre supports it" in p
    ]
    support = support_for(
        write_yaml, "    supported_ops: [add, {name: mul, reason: checks the refusal path}]\n", known
    )
    assert set(support.ops) == {"add", "mul"}


def test_unknown_names_are_warnings_with_close_matches(write_yaml, known):
    for body, message in (
        ("    supported_ops: [addd]\n", "unknown op 'addd' (ignored); closest: add"),
        ("    supported_dtypes: [float33]\n", "unknown dtype 'float33' (ignored); closest: float32"),
        (
            "    supported_modules: [nn.Linearr]\n",
            "unknown module 'nn.Linearr' (ignored); closest: nn.Linear",
        ),
        ("    supported_ops: [{name: add, dtypes: [f32]}]\n", "unknown dtype 'f32'"),
    ):
        problems = warnings_for(write_yaml, body, known, caps=None)
        assert len(problems) == 1 and message in problems[0], problems


def test_op_names_resolve_like_torch_spyre_writes_them(write_yaml, known):
    body = (
        "    supported_ops: [gelu, 'aten::layer_norm', add.Tensor, copy_, absolute, div, realdiv, relufwd]\n"
    )
    problems = []
    support = support_for(write_yaml, body, known, caps=None, problems=problems)
    assert {"nn.functional.gelu", "nn.functional.layer_norm", "add", "abs"} <= set(support.ops)
    assert {"div.no_rounding_mode", "div.trunc_rounding", "div.floor_rounding"} <= set(
        support.ops
    )  # OpInfo.name: every variant
    # Torch Spyre's own kernel names resolve to nothing: warnings, not errors
    assert [p.split(": ", 2)[2].split(" (")[0] for p in problems] == [
        "unknown op 'copy_'",
        "unknown op 'realdiv'",
        "unknown op 'relufwd'",
    ]
    # a name of the backend's capability table resolves to the OpInfos of every aten kernel in its group
    table = {"ops": {"relufwd": {"aten": ["relu", "threshold"], "dtypes": ["float32"]}}}
    support = support_for(write_yaml, "    supported_ops: [relufwd]\n", known, caps=table)
    assert "nn.functional.relu" in set(support.ops) and "add" not in support.ops
    plan = load_plan(
        [write_yaml("test_suite_config:\n  global:\n    supported_ops: [gelu, add]\n")], default_roots()
    )
    hygiene = [str(p) for p in validate_names(plan, known) if p.severity == "hygiene"]
    assert hygiene == [
        f"{plan.sources[0]}:3: global.supported_ops: 'gelu' is not an OpInfo name: resolved by aten_name to "
        "nn.functional.gelu"
    ]


def test_config_precision_overrides_and_no_caps(write_yaml, known):
    support = support_for(
        write_yaml,
        "    supported_ops: [{name: add, dtypes: [{name: float32, precision: {atol: 0.01}}]}]\n"
        "    supported_dtypes: [{name: float16, precision: {atol: 0.1, rtol: 0.01}}]\n",
        known,
        caps=None,
    )
    assert support.ops["add"].precision == (("float32", 0.01, 0.0),)
    assert support.dtype_precision == {"float16": (0.1, 0.01)}


def test_dtype_aliases_are_torch_names_before_any_check(write_yaml, known):
    """'half' is torch.float16 (no warning at all); an unknown name is said to be unknown, with
    the closest names, and nothing else: never 'no op supports it' for a name torch lacks."""
    warned = warnings_for(write_yaml, "    supported_dtypes: [half, double, flaot16]\n", known)
    assert not any("half" in w for w in warned)
    assert any("'float64': no op of spyre supports it" in w for w in warned)  # the alias, resolved
    about = [w for w in warned if "flaot16" in w]
    assert len(about) == 1 and "unknown dtype 'flaot16' (ignored); closest: float16" in about[0], warned


def test_the_alias_table_is_torchs():
    import torch

    from testing.config.dtypes import TORCH_ALIASES

    torch_aliases = {
        name: str(v).removeprefix("torch.")
        for name, v in vars(torch).items()
        if isinstance(v, torch.dtype) and str(v).removeprefix("torch.") != name
    }
    assert TORCH_ALIASES == torch_aliases


# ---------------------------------------------------------------- names_cache.py

NAMES_CONFIG = """\
test_suite_config:
  global:
    supported_ops: [add, adx, absolute]
    supported_dtypes: [float16, flaot32]
    supported_modules: [nn.Linear, nn.Linearr]
"""


def test_names_from_the_cache_check_a_config_as_torch_itself_does(tmp_path, write_yaml, known):
    from testing.plugin import names_cache

    plan = load_plan([write_yaml(NAMES_CONFIG)], default_roots())
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    direct = validate_names(plan, known)
    built = validate_names(plan, names_cache.known_names(env))  # builds and keeps the entry
    (entry,) = (tmp_path / "oot-ci" / "known-names").iterdir()
    names_cache._kept.cache_clear()  # a new process: the names read back from the entry
    kept = validate_names(plan, names_cache.known_names(env))
    assert [str(p) for p in direct] == [str(p) for p in built] == [str(p) for p in kept]
    for name in ("unknown op 'adx'", "flaot32", "nn.Linearr", "'absolute' is not an OpInfo name"):
        assert any(name in str(p) for p in kept), (name, kept)
    entry.write_text("{not json")  # a broken entry is rebuilt, never trusted
    names_cache._kept.cache_clear()
    assert [str(p) for p in validate_names(plan, names_cache.known_names(env))] == [str(p) for p in direct]
    assert entry.read_text().startswith("{")  # and rewritten whole
    import json

    assert json.loads(entry.read_text())["format"] == names_cache.FORMAT


def test_a_kept_entry_spares_the_op_database_import(tmp_path, write_yaml):
    import subprocess
    import sys

    from testing.plugin import names_cache

    names_cache.known_names({"XDG_CACHE_HOME": str(tmp_path)})
    cfg = write_yaml(NAMES_CONFIG)
    code = (
        "import sys; from testing.plugin import precheck; "
        f"found = precheck.config_problems([{str(cfg)!r}], {{}}, {{'XDG_CACHE_HOME': {str(tmp_path)!r}}}); "
        "assert any('adx' in str(p) for p in found), found; "
        "print('torch.testing._internal.common_methods_invocations' in sys.modules)"
    )
    env = {"PYTHONPATH": ":".join(sys.path), "PATH": "/usr/bin:/bin", "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_the_cache_key_follows_the_harness_files(tmp_path):
    from testing.plugin.names_cache import harness_key

    root = tmp_path / "torch"
    (root / "testing" / "_internal" / "opinfo").mkdir(parents=True)
    (root / "version.py").write_text("__version__ = '2.13.0'\n")
    db = root / "testing" / "_internal" / "opinfo" / "definitions.py"
    db.write_text("op_db = []\n")
    first = harness_key(root)
    assert harness_key(root) == first
    db.write_text("op_db = ['added upstream']\n")  # the harness an overlay brings
    second = harness_key(root)
    (root / "version.py").write_text("__version__ = '2.14.1'\n")
    assert len({first, second, harness_key(root)}) == 3
