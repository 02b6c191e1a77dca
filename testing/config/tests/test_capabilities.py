import pytest

from testing.config.capabilities import CapabilityError, read_table

SPYRE_SHAPE = {
    "version": 1,
    "tolerances": {"float16": {"float32": {"atol": 1e-3, "rtol": 1e-3}}},
    "ops": {
        "add": {
            "aten": ["add.Tensor", "add_.Tensor"],
            "dtypes": ["float32", "float16"],
            "precision": "float16",
        },
        "copy": {
            "aten": "_copy_from",
            "dtypes": ["float32"],
            "storage_dtypes": ["float64"],
            "layout": "contiguous",
        },
    },
}


def test_the_backend_shape():
    table = read_table(SPYRE_SHAPE, "spyre")
    add = table.lookup("aten::add.Tensor")
    assert add.dtypes == {"float32", "float16"} and add.internal_precision == "float16"
    assert table.supports("add_", "float16") and not table.supports("add", "int64")
    assert (
        table.supports("copy", "float64", storage=True) and table.lookup("_copy_from").layout == "contiguous"
    )
    assert table.device == "privateuse1" and table.with_device("spyre").device == "spyre"


def test_the_plugins_view_keys_by_aten_packet_and_groups_aliases():
    table = read_table(SPYRE_SHAPE)
    assert table.by_aten() == {
        "add": {"float16": None, "float32": None},
        "add_": {"float16": None, "float32": None},
        "copy": {"float32": None},
        "_copy_from": {"float32": None},
    }
    assert table.groups()["_copy_from"] == {"copy", "_copy_from"}


@pytest.mark.parametrize(
    "data, caps",
    [
        ({"mul": {"float32": {"atol": 1e-3}}}, {"mul": {"float32": (1e-3, 0.0)}}),
        (
            {"mul": {"float32": {"precision": {"atol": 1e-3, "rtol": 2e-3}}}},
            {"mul": {"float32": (1e-3, 2e-3)}},
        ),
        ({"aten::mul.Tensor": ["torch.float32"]}, {"mul": {"float32": None}}),
        ({"ops": {"mul": {"dtypes": {"float16": {"atol": 0.1}}}}}, {"mul": {"float16": (0.1, 0.0)}}),
        (
            {"ops": {"mul": {"dtypes": ["float16"], "precision": {"float16": {"rtol": 0.5}}}}},
            {"mul": {"float16": (0.0, 0.5)}},
        ),
    ],
)
def test_accepted_shapes(data, caps):
    assert read_table(data).by_aten() == caps


def test_the_first_entry_naming_a_key_owns_it():
    table = read_table({"ops": {"a": {"aten": ["x"], "dtypes": ["float32"]}, "x": ["int64"]}})
    assert table.by_aten()["x"] == {"float32": None}


@pytest.mark.parametrize(
    "data, message",
    [
        ([1], r"src: capabilities must be a mapping, got list"),
        ({}, r"src: capabilities have no 'ops' mapping"),
        ({"ops": 3}, r"no 'ops' mapping"),
        ({"add": 3}, r"src: op 'add' has int, expected a dtype list or mapping"),
        ({"ops": {"add": []}, "features": [1]}, r"'features' must be a mapping"),
    ],
)
def test_bad_tables_are_one_line_errors(data, message):
    with pytest.raises(CapabilityError, match=message):
        read_table(data, "src")


def test_an_empty_table_when_allowed():
    assert read_table({"ops": {}}, allow_empty=True).by_aten() == {}
