"""Stage 3 decides on what the plugin will generate, through the plugin's own code."""

import pytest

from testing.config.modes import Mode
from tools.select.bucket import bucket, generation
from tools.select.bucket.engines import Context, DeterministicEngine
from tools.select.tests.helpers import unit


def _device(test, variant, *dtypes):
    return tuple((f"{test}_{variant}_{{device}}_{d}", (d,)) for d in dtypes)


@pytest.fixture(scope="module")
def view():
    from tools.select.common import capabilities
    from tools.select.tests.helpers import FIXTURES

    return generation.device_view(capabilities.from_file(FIXTURES / "caps_small.json"))


def _units():
    return [
        unit(variant="add", aten="add", device=_device("test_x", "add", "float32", "float16", "int64")),
        # sgn's kernel is in the table under another name, but the plugin looks up OpInfo.aten_name
        unit(
            variant="sgn", aten="sgn", kernel_ops=("aten::abs",), device=_device("test_x", "sgn", "float32")
        ),
        # a python reference: its aten_name is not an aten op at all
        unit(
            variant="_refs.abs",
            aten="_refs.abs",
            kernel_ops=("aten::abs",),
            device=_device("test_x", "_refs_abs", "float32"),
        ),
        unit(name="test_plain", variant="", dtypes=(), kind="plain", device=(("test_plain_{device}", ()),)),
    ]


def _decide(small_caps, view, units):
    verdicts = DeterministicEngine().decide(units, Context(small_caps, {}, {}))
    return generation.narrow(units, verdicts, view)


def test_ops_the_plugin_never_instantiates_are_not_mandatory(small_caps, view):
    units = _units()
    raw = DeterministicEngine().decide(units, Context(small_caps, {}, {}))
    assert raw[units[1].unit_id].mode == Mode.mandatory_success  # every kernel is in the table ...
    verdicts = generation.narrow(units, raw, view)
    sgn = verdicts[units[1].unit_id]
    assert sgn.mode == Mode.skip  # ... but no test of it is generated
    assert (
        "the plugin generates no test of it on spyre: op sgn (aten::sgn) is not in the spyre table"
        in sgn.rationale
    )
    assert verdicts[units[2].unit_id].mode == Mode.skip
    assert (
        verdicts[units[0].unit_id].mode == Mode.mandatory_success
        and verdicts[units[3].unit_id].mode == Mode.mandatory_success
    )


def test_dtypes_narrow_to_what_the_plugin_generates(small_caps, tmp_path):
    from tools.select.common import capabilities
    from tools.select.tests.helpers import FIXTURES

    base = tmp_path / "device.yaml"  # the device config supports no float16 at all
    base.write_text("test_suite_config:\n  global:\n    supported_dtypes: [float32, int64, bool]\n")
    view = generation.device_view(capabilities.from_file(FIXTURES / "caps_small.json"), [base])
    units = _units()[:1]
    verdict = _decide(small_caps, view, units)[units[0].unit_id]
    assert verdict.mode == Mode.mandatory_success and verdict.dtypes == ("float32", "int64")
    assert "the plugin does not generate float16 on spyre" in verdict.rationale


def test_every_mandatory_unit_yields_a_test_in_the_written_config(small_caps, view, tmp_path):
    units = _units()
    verdicts = _decide(small_caps, view, units)
    written, check = bucket.write_checked(
        tmp_path / "gen.yaml", units, verdicts, small_caps, "torch_spyre", "deterministic", view
    )
    assert check.silent_units == () and check.silent_entries == ()
    assert sum(v.mode == Mode.mandatory_success for v in written.values()) == 2


def test_entries_selecting_nothing_are_found_and_demoted(small_caps, view, tmp_path):
    units = _units()
    # skip the plugin-side narrowing: the rules alone would make sgn and _refs.abs mandatory
    verdicts = DeterministicEngine().decide(units, Context(small_caps, {}, {}))
    path = tmp_path / "gen.yaml"
    bucket.write_config(path, units, verdicts, small_caps, "torch_spyre", "deterministic")
    check = generation.verify(path, units, verdicts, view)
    assert set(check.silent_units) == {units[1].unit_id, units[2].unit_id}
    assert check.silent_entries and all(e.startswith(str(path) + ":") for e in check.silent_entries)
    fixed, check = bucket.write_checked(
        path, units, verdicts, small_caps, "torch_spyre", "deterministic", view
    )
    assert (
        fixed[units[1].unit_id].mode == Mode.skip and "no entry selects" in fixed[units[1].unit_id].rationale
    )
    assert generation.verify(path, units, fixed, view).silent_units == ()


def test_a_config_the_plugin_rejects_is_an_error(small_caps, view, tmp_path):
    from tools.errors import SelectError

    units = [unit(variant="no_such_op_anywhere", aten="add", device=_device("test_x", "nope", "float32"))]
    verdicts = DeterministicEngine().decide(units, Context(small_caps, {}, {}))
    path = tmp_path / "gen.yaml"
    bucket.write_config(path, units, verdicts, small_caps, "torch_spyre", "deterministic")
    with pytest.raises(SelectError, match="does not load in the plugin: .*unknown op 'no_such_op_anywhere'"):
        generation.verify(path, units, verdicts, view)
