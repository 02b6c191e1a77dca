"""import_root.py: the `testing` import root renamed the way a wheel installs it."""

import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path("tools/build/private/import_root.py").resolve()
sys.path.insert(0, str(TOOL.parent))
from import_root import RenameError, parse_renames, rename_source  # noqa: E402

R = {"testing": "oot_ci_testing"}


@pytest.mark.parametrize(
    "before, after",
    [
        ("from testing.results import junit\n", "from oot_ci_testing.results import junit\n"),
        ("import testing.supervisor.supervisor as s\n", "import oot_ci_testing.supervisor.supervisor as s\n"),
        ("import os, testing.plugin\n", "import os, oot_ci_testing.plugin\n"),
        ("if x: import testing.a\n", "if x: import oot_ci_testing.a\n"),
        ("def f():\n    from testing import results\n", "def f():\n    from oot_ci_testing import results\n"),
        # a module that binds the bare name: its uses follow
        (
            "import testing.results\ntesting.results.f()\n",
            "import oot_ci_testing.results\noot_ci_testing.results.f()\n",
        ),
        # module paths in strings and comments (-p, entry points, docstrings)
        (
            'PLUGIN = "testing.plugin"  # -p testing.plugin\n',
            'PLUGIN = "oot_ci_testing.plugin"  # -p oot_ci_testing.plugin\n',
        ),
        ('cmd = ["-p", "testing.supervisor.zygote"]\n', 'cmd = ["-p", "oot_ci_testing.supervisor.zygote"]\n'),
        ('f"{x} testing.plugin"\n', 'f"{x} oot_ci_testing.plugin"\n'),
    ],
)
def test_renamed(before, after):
    assert rename_source(before, R) == after


@pytest.mark.parametrize(
    "kept",
    [
        "from torch import testing\n",
        "import torch.testing\nx = torch.testing._internal\n",
        "from torch.testing._internal import common_utils\n",
        'M = "torch.testing._internal.common_device_type"\n',
        "testing = 1\nprint(testing)\n",  # a local name, no import binds it
        "# see testing/README.md\n",
        "from x import testing as t\n",
        "def g():\n    yield from testing_things()\n",
    ],
)
def test_left_alone(kept):
    assert rename_source(kept, R) == kept


def test_layout_and_the_rest_of_the_line_are_kept():
    src = "from testing.results import (  # why\n    junit,\n    atomic,\n)\n\n\nx = 1  # testing/x\n"
    assert rename_source(src, R) == src.replace("from testing.", "from oot_ci_testing.")


def test_errors_name_the_problem(tmp_path):
    with pytest.raises(RenameError, match=r"bad\.py:1: not Python"):
        rename_source("def (:\n", R, "bad.py")
    with pytest.raises(RenameError, match="expected OLD=NEW"):
        parse_renames(["testing"])
    (tmp_path / "bad.py").write_text("def (:\n")
    cli = subprocess.run(
        [sys.executable, str(TOOL), "--rename", "testing=oot_ci_testing", "--out-dir", str(tmp_path / "o")]
        + [f"{tmp_path / 'bad.py'}=testing/bad.py"],
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 2 and cli.stderr.count("\n") == 1 and "not Python" in cli.stderr


def test_the_cli_renames_paths_and_copies_data(tmp_path):
    (tmp_path / "m.py").write_text("from testing.results import junit\n")
    (tmp_path / "s.json").write_text('{"testing.plugin": 1}')
    subprocess.run(
        [sys.executable, str(TOOL), "--rename", "testing=oot_ci_testing", "--out-dir", str(tmp_path / "o")]
        + [f"{tmp_path / 'm.py'}=testing/plugin/m.py", f"{tmp_path / 's.json'}=testing/plugin/s.json"],
        check=True,
    )
    out = tmp_path / "o" / "oot_ci_testing" / "plugin"
    assert (out / "m.py").read_text() == "from oot_ci_testing.results import junit\n"
    assert (out / "s.json").read_text() == '{"testing.plugin": 1}'  # data is copied as is
