"""The warehouse CLI: every question on a hand-made history, and bad input as one line, exit 2."""

from __future__ import annotations

import json
import socket

import pytest

from crcr.warehouse import __main__ as cli
from crcr.warehouse.backends import open_warehouse
from crcr.warehouse.ingest import ingest
from crcr.warehouse.tests.history import DAY, case, leg


@pytest.fixture
def filled(tmp_path):
    import time

    now = time.time()
    wh = open_warehouse(str(tmp_path / "wh"), {})
    for run, outcome in enumerate(["passed", "failed", "passed", "failed"]):
        ingest(
            wh, leg(run, [case("test_add", outcome, op="add", dtype="float32")], started=now - DAY + run * 60)
        )
    return str(tmp_path / "wh")


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["history", "--op", "add"], "{'passed': 1}"),
        (["flaky"], "flip rate 100% over 4 runs"),
        (["failing"], "TestXSPYRE::test_add: failed"),
        (["pass-rate"], "ops: 2/4"),
        (["dispatches"], "legs 1/1"),
        (["l3"], "Job Pass Rate"),
        (["promotions"], ""),
    ],
)
def test_each_question(filled, argv, needle, capsys):
    assert cli.run(["--warehouse", filled, *argv], {}) == 0
    assert needle in capsys.readouterr().out


def test_json_output(filled, capsys):
    assert cli.run(["--warehouse", filled, "--json", "flaky"], {}) == 0
    (flake,) = json.loads(capsys.readouterr().out)
    assert flake["reason"] == "flip rate" and len(flake["evidence"]) == 4


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--warehouse", "clickhouse://127.0.0.1:{port}/db", "l3"], "warehouse clickhouse://127.0.0.1:"),
        (["--warehouse", "clickhouse:///db", "l3"], "expected clickhouse://host:port/database"),
        (["--warehouse", "clickhouse://h:1/bad-name", "l3"], "expected clickhouse://host:port/database"),
        (["--warehouse", "clickhouse://u:s3cret@127.0.0.1:{port}/db", "l3"], "u:***@127.0.0.1"),
        (["--warehouse", "{file}", "l3"], "not a directory"),
        (["--warehouse", "{dir}", "history"], "history needs --test or --op"),
        # a read-only question never creates the store it asks (it answered "none found")
        (["--warehouse", "{missing}/wh", "flaky"], "no warehouse at "),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, tmp_path, capsys):
    (tmp_path / "f").write_text("")
    (tmp_path / "wh").mkdir()
    fill = {
        "port": closed_port(),
        "file": tmp_path / "f",
        "dir": tmp_path / "wh",
        "missing": tmp_path / "typo",
    }
    assert cli.main([a.format(**fill) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err and "s3cret" not in err
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize("days", ["0", "x"])
def test_bad_simulate_days_is_a_usage_error(days, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--simulate-days", days, "l3"])
    assert exc.value.code == 2 and "--simulate-days" in capsys.readouterr().err


def test_where_the_warehouse_is():
    from crcr.warehouse.backends import describe

    assert describe(None, {"HOME": "/home/u"}) == "/home/u/.cache/oot-ci/warehouse"
    assert describe(None, {"XDG_CACHE_HOME": "/c", "HOME": "/home/u"}) == "/c/oot-ci/warehouse"
    assert describe(None, {"OOT_WAREHOUSE": "clickhouse://h:9000/db"}) == "clickhouse://h:9000/db"
    assert describe("wh", {"BUILD_WORKING_DIRECTORY": "/home/user/here"}) == "/home/user/here/wh"  # bazel run
    assert describe("/abs", {"BUILD_WORKING_DIRECTORY": "/home/user/here"}) == "/abs"
