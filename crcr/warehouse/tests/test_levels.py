"""The level history (crcr/warehouse/levels.py): tenure as HUD counts it, demotions, and each
bad input as one line naming file:line; and the L3 standing every surface shows (the command
line, its JSON, the HUD's panel), from one function, on both warehouse engines."""

from __future__ import annotations

import json

import pytest

from crcr.callback_client.errors import ConfigError
from crcr.relay.panels import PageContext, l3_panel
from crcr.warehouse import __main__ as tool
from crcr.warehouse import queries
from crcr.warehouse.ingest import ingest
from crcr.warehouse.levels import DAY, parse_level_history, read_level_history
from crcr.warehouse.tests.history import HOUR, NOW, leg, spec_of

REPO = "acme/oot-ci"
GOOD = f"""# acme's CRCR levels
repo {REPO}
2026-08-01 L1
2026-09-01 L2   # allowlisted at L2
2026-11-01 L3
2026-11-20 demoted until 2026-11-25
2027-01-10 demoted until ongoing
"""


def parse(text: str):
    return parse_level_history(text, "levels.txt", NOW)


def test_a_history_gives_tenure_level_and_demotions():
    h = parse(GOOD)
    assert h.repo == REPO and [e.level for e in h.entries] == ["L1", "L2", "L3"]
    assert h.tenure_days(NOW) == pytest.approx((NOW - h.l2_since()) / DAY)
    assert h.l2_since() == parse(f"repo {REPO}\n2026-09-01 L2").l2_since()
    assert h.level_at(h.entries[1].since + 1) == "L2" and h.level_at(h.entries[0].since - 1) is None
    assert h.on_temporary_demotion(NOW) and not h.on_temporary_demotion(h.demotions[0].end + 1)


@pytest.mark.parametrize(
    "lines, message",
    [
        (["2026-09-01 L2", "2026-08-01 L3"], "levels.txt:3: 2026-08-01 overlaps the entry before it"),
        (["2026-09-01 L2", "2027-02-01 L3"], "levels.txt:3: 2027-02-01 is in the future"),
        (["2026-09-01 L5"], "levels.txt:2: unknown level 'L5' (expected one of L1, L2, L3, L4)"),
        (["2026-09-01 L2", "2026-10-01 L3", "2026-11-01 demoted"], "levels.txt:4: a demotion without an end"),
        (
            ["2026-09-01 L3", "2026-10-01 demoted until ongoing", "2026-11-01 L2"],
            "levels.txt:4: 2026-11-01 overlaps",
        ),
        (
            ["2026-09-01 L3", "2026-10-01 demoted until 2026-10-20", "2026-10-10 demoted until 2026-10-30"],
            "levels.txt:4: 2026-10-10 overlaps",
        ),
        (
            ["2026-09-01 L2", "2026-10-01 demoted until 2026-10-20"],
            "levels.txt:3: a temporary demotion needs the repo at L3",
        ),
        (["2026-09-31 L2"], "levels.txt:2: '2026-09-31' is not a date"),
        (["2026-09-01 L2", "2026-10-01 L2"], "levels.txt:3: already at L2 since line 2"),
    ],
)
def test_bad_input_is_one_line_naming_file_and_line(lines, message):
    with pytest.raises(ConfigError) as err:
        parse("\n".join([f"repo {REPO}", *lines]))
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_a_history_must_name_its_repo(tmp_path):
    with pytest.raises(ConfigError, match=r"levels.txt:1: the first line must name the repo"):
        parse("2026-09-01 L2")
    with pytest.raises(ConfigError, match=r"cannot read the level history"):
        read_level_history(tmp_path / "absent.txt", NOW)


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch):
    """The command line's clock at the histories' NOW (2027-01-15 08:00 UTC)."""
    monkeypatch.setattr(tool.time, "time", lambda: NOW)


def l3_json(wh, tmp_path, capsys, levels_text: str):
    path = tmp_path / "levels.txt"
    path.write_text(levels_text)
    assert tool.run(["--warehouse", spec_of(wh), "--level-history", str(path), "--json", "l3"], {}) == 0
    return json.loads(capsys.readouterr().out)


def test_every_surface_shows_the_one_standing(wh, tmp_path, capsys):
    """A repo at L3 whose last 7 days fail the E2E gate: on temporary demotion, a demotion PR
    due; the command line, its JSON and the panel all say so, with the level changes."""
    with wh.exclusive():
        for i in range(5):  # E2E over 3 h in the last 7 days
            ingest(wh, leg(i, started=NOW - 2 * DAY - i * HOUR, exec_s=4 * HOUR, queue_s=60), settle=False)
    wh.close()
    (got,) = l3_json(wh, tmp_path, capsys, GOOD)
    assert got["demotion"]["on_temporary_demotion"] and got["demotion"]["demotion_pr"]
    assert not got["demotion"]["no_data"] and got["level"] == "L3" and got["recorded_demotion_open"]
    assert [c["what"] for c in got["level_changes"]] == [
        "L1",
        "L2",
        "L3",
        "temporary demotion, until 2026-11-25",
        "temporary demotion, ongoing",
    ]
    assert got["tenure"] == "since first reaching L2 on 2026-09-01"
    assert (
        tool.run(["--warehouse", spec_of(wh), "--level-history", str(tmp_path / "levels.txt"), "l3"], {}) == 0
    )
    text = capsys.readouterr().out
    assert "on temporary demotion: End-to-End Time (P50)" in text and "2026-11-20  temporary demotion" in text
    levels = {REPO: read_level_history(tmp_path / "levels.txt", NOW)}
    (standing,) = queries.l3_standings(wh, NOW, levels)
    panel = l3_panel(wh, PageContext(NOW, levels=levels))
    assert standing.demotion_word() in panel and "a demotion PR would be opened" in panel
    assert "2026-11-20</td><td>temporary demotion, until 2026-11-25" in panel


def test_a_silent_week_is_no_data_and_never_a_demotion_pr(wh, tmp_path, capsys):
    ingest(wh, leg(1, started=NOW - 10 * DAY))  # in the 14 days, not in the 7
    wh.close()
    (got,) = l3_json(wh, tmp_path, capsys, f"repo {REPO}\n2026-09-01 L2\n2026-11-01 L3\n")
    assert got["demotion"]["no_data"] and got["demotion"]["on_temporary_demotion"]
    assert not got["demotion"]["demotion_pr"] and got["recorded_demotion_open"] is False
    (other,) = l3_json(wh, tmp_path, capsys, f"repo {REPO}\n2026-12-01 L1\n")
    assert other["tenure"] == "no tenure data (never at L2)" and other["gates"][0]["met"] is None


def test_a_bad_level_history_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "levels.txt"
    path.write_text(f"repo {REPO}\n2026-09-01 L9\n")
    assert tool.main(["--warehouse", str(tmp_path / "wh"), "--level-history", str(path), "l3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"warehouse: {path}:2: unknown level 'L9' (expected one of L1, L2, L3, L4)"
    assert not (tmp_path / "wh").exists()  # read before the warehouse is opened


def test_the_emulator_and_the_handler_take_the_level_history(tmp_path):
    """The live /hud (relay emulator, `--level-history`) and the handler's snapshot (its
    Options, `--level-history` over $OOT_LEVEL_HISTORY) show tenure, not 'no tenure data'."""
    import requests

    from crcr.handler import main as handler
    from crcr.relay import __main__ as relay_cli
    from crcr.relay.server import RelayEmulator
    from crcr.warehouse.backends import open_warehouse

    path, other = tmp_path / "levels.txt", tmp_path / "other.txt"
    path.write_text(f"repo {REPO}\n2026-09-01 L2\n")  # dated before today: not in the future
    other.write_text("repo someone/else\n2026-09-01 L2\n")
    env = {"HOME": str(tmp_path), "OOT_LEVEL_HISTORY": str(other)}
    assert set(handler.parse_options(["plan", "--level-history", str(path)], env).levels) == {REPO}
    assert set(handler.parse_options(["plan"], env).levels) == {"someone/else"}
    levels = relay_cli.level_histories(path)
    assert set(levels) == {REPO}
    open_warehouse(str(tmp_path / "wh"), {}, create=True).close()
    with RelayEmulator(warehouse=str(tmp_path / "wh"), levels=levels) as emu:
        page = requests.get(f"{emu.url}/hud", timeout=60).text
    assert "since first reaching L2 on 2026-09-01" in page and "no tenure data" not in page
