"""opnames.py: op names as Torch Spyre's configs write them, resolved to OpInfo full names (no torch)."""

from types import SimpleNamespace as NS

from testing.plugin.opnames import aten_key, build_index, candidates, close_matches, resolve


def op(full_name, name=None, aten_name=None, aliases=()):
    """An OpInfo look-alike: name defaults to the full name."""
    return NS(
        full_name=full_name,
        name=name or full_name,
        aten_name=aten_name,
        aliases=[NS(name=a) for a in aliases],
    )


INDEX = build_index(
    [
        op("add"),
        op("div.no_rounding_mode", "div"),
        op("div.trunc_rounding", "div"),
        op("nn.functional.gelu", aten_name="gelu"),
        op("abs", aliases=["absolute"]),
        op("_refs.abs", "_refs.abs", "abs"),
    ],
    groups={
        "relufwd": ["relu", "threshold"],
        "relu": ["relu", "threshold"],
        "threshold": ["relu", "threshold"],
    },
)


def test_candidates_strip_prefix_overload_and_inplace_but_not_opinfo_variants():
    assert candidates("aten::add.Tensor") == ("aten::add.Tensor", "add.Tensor", "add")
    assert candidates("add.out") == ("add.out", "add")
    assert candidates("copy_") == ("copy_", "copy")
    assert candidates("div.no_rounding_mode") == ("div.no_rounding_mode",)
    assert candidates("__radd__") == ("__radd__",)


def test_resolution_order_and_what_each_name_means():
    r = resolve("div.trunc_rounding", INDEX)
    assert (r.full_names, r.via, r.canonical) == ({"div.trunc_rounding"}, "full_name", True)
    r = resolve("div", INDEX)
    assert (r.full_names, r.via) == ({"div.no_rounding_mode", "div.trunc_rounding"}, "name")
    r = resolve("aten::gelu", INDEX)
    assert (r.full_names, r.via, r.canonical) == ({"nn.functional.gelu"}, "aten_name", False)
    assert resolve("absolute", INDEX).full_names == {"abs"}  # an alias; the python ref is not dragged in
    assert resolve("add_", INDEX).full_names == {"add"}


def test_capability_group_names_and_unresolved_names():
    gelu_only = build_index([op("nn.functional.relu", aten_name="relu")], groups={"relufwd": ["relu"]})
    r = resolve("relufwd", gelu_only)
    assert (r.full_names, r.via) == ({"nn.functional.relu"}, "capability")
    r = resolve("realdiv", INDEX)
    assert (r.full_names, r.via) == (frozenset(), "")
    assert close_matches("addd", INDEX) == ["add"]


def test_functional_ops_answer_to_their_aten_name():
    index = build_index([op("nn.functional.softplus", aten_name=None)])
    assert resolve("softplus", index).full_names == {"nn.functional.softplus"}
    assert close_matches("softplu", index) == ["softplus"]


def test_torch_prefixed_opinfos_answer_to_their_aten_name():
    # op_db's 'torch._scaled_mm' keeps the prefix in its aten_name too; Torch Spyre writes '_scaled_mm'
    index = build_index([op("torch._scaled_mm", aten_name="torch._scaled_mm")])
    for written in ("_scaled_mm", "aten::_scaled_mm", "aten::_scaled_mm.out"):
        r = resolve(written, index)
        assert (r.full_names, r.via) == ({"torch._scaled_mm"}, "aten_name"), written
    assert resolve("torch._scaled_mm", index).canonical
    assert aten_key("torch._scaled_mm") == "_scaled_mm"  # the capability table's key
