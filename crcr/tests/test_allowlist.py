import pytest

from crcr.callback_client.errors import ConfigError
from crcr.dispatch import allowlist_tool
from crcr.dispatch.allowlist import LEVELS, level_of, parse_allowlist, render_entry

REAL_SHAPE = """\
L1:
  - riseproject-dev/pytorch-ci
  - NVIDIA/pytorch-windows-ci: alice, bob
L2:
  - TorchedHat/pytorch-redhat-ci
  - Ascend/pytorch
L3:
  crcr-test:
    pytorch/crcr-test: [carol, dave]
L4: []
"""


def test_parses_every_shape():
    e = parse_allowlist(REAL_SHAPE)
    assert e["NVIDIA/pytorch-windows-ci"].oncalls == ("alice", "bob")
    assert (e["pytorch/crcr-test"].level, e["pytorch/crcr-test"].device) == ("L3", "crcr-test")
    assert level_of(e, "Ascend/pytorch") == 2 and level_of(e, "ascend/pytorch") == 0


@pytest.mark.parametrize(
    "text,needle",
    [
        ("L5: []\n", "x.yml:1: unknown key 'L5'"),
        ("L1:\n  - a/b\nL2:\n  - a/b\n", "listed twice"),
        ("L1:\n  - not-a-repo\n", "bad repo name"),
        ("L1: a/b\n", "must be a list"),
        ("L3:\n  - a/b\n", "L3 must map"),
        ("L3:\n  spyre: a/b\n", "must map owner/repo"),
        ("L1:\n  - a/b: [ok, 'bad handle!']\n", "bad oncall handle"),
        ("L1: [a/b\n", "x.yml:2: YAML error"),
    ],
)
def test_errors_name_file_and_line(text, needle):
    with pytest.raises(ConfigError) as err:
        parse_allowlist(text, "x.yml")
    assert needle in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("level", LEVELS)
def test_rendered_entries_round_trip(level):
    device = "spyre" if level == "L3" else None
    snippet = render_entry("acme/oot-ci", level, ("alice", "bob"), device)
    entry = parse_allowlist(snippet)["acme/oot-ci"]
    assert (entry.level, entry.oncalls, entry.device) == (level, ("alice", "bob"), device)


def test_l3_needs_a_device_and_others_refuse_one():
    with pytest.raises(ConfigError, match="L3 needs --device"):
        render_entry("acme/oot-ci", "L3")
    with pytest.raises(ConfigError, match="only applies to L3"):
        render_entry("acme/oot-ci", "L2", device="spyre")


def test_tool_print_and_validate(tmp_path, capsys):
    assert (
        allowlist_tool.main(
            ["print", "--repo", "acme/oot-ci", "--level", "L3", "--device", "spyre", "--oncall", "alice,bob"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "L3:\n  spyre:\n    acme/oot-ci: [alice, bob]\n" in out
    f = tmp_path / "allowlist.yml"
    f.write_text(REAL_SHAPE + "\n")
    assert allowlist_tool.main(["validate", str(f), "--repo", "Ascend/pytorch", "--expect-level", "L2"]) == 0
    assert allowlist_tool.main(["validate", str(f), "--repo", "Ascend/pytorch", "--expect-level", "L3"]) == 2
    assert allowlist_tool.main(["validate", str(f), "--repo", "ascend/pytorch"]) == 2
    assert "casing differs" in capsys.readouterr().err
