"""The warehouse bench run end to end at a tiny size: its generated rows must fit the schema
as it stands (a column added to the warehouse and not to the generator broke the 100 M run),
and chdb and SQLite must give the same answer to every page question."""

import pytest

from tools.bench import warehouse_bench

TINY = ["--rows", "20000", "--chunk", "10000", "--days", "1", "--repeat", "1"]


def test_both_engines_answer_every_page_question_alike(capsys):
    assert warehouse_bench.main(TINY) == 0
    out = capsys.readouterr().out
    asked = [
        line for line in out.splitlines() if line.split()[:1] and line.split()[0] in warehouse_bench.PAGE
    ]
    assert len(asked) == len(warehouse_bench.PAGE), out
    assert all(" yes" in line for line in asked), out


def test_page_only_renders_the_page_and_keeps_the_warehouse(tmp_path, capsys):
    keep = tmp_path / "kept"
    assert warehouse_bench.main([*TINY, "--page-only", "--keep", str(keep)]) == 0
    assert "whole HUD page" in capsys.readouterr().out
    assert warehouse_bench.main([*TINY, "--page-only", "--keep", str(keep)]) == 0
    assert "kept from an earlier run" in capsys.readouterr().out


def test_a_kept_warehouse_of_another_plan_is_refused(tmp_path, capsys):
    keep = tmp_path / "kept"
    assert warehouse_bench.main([*TINY, "--page-only", "--keep", str(keep)]) == 0
    with pytest.raises(SystemExit) as exit_:
        warehouse_bench.main(["--rows", "40000", *TINY[2:], "--page-only", "--keep", str(keep)])
    assert exit_.value.code == 2
    assert "holds a warehouse of another plan (rows 20000 days 1 chunk 10000)" in capsys.readouterr().err
