"""tools/ci/layers.py: the tree has no upward import nor a higher module named in a string,
and the check fails on either added."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LAYERS = Path(__file__).with_name("layers.py")
# Under Bazel the runfiles hold every package's sources (//:lint_packages) at their paths.
TREE = Path.cwd()


def run(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(LAYERS), str(root)], capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def tree(tmp_path):
    """A copy of the four rooms' Python sources, to break on purpose."""
    if not (TREE / "crcr" / "dispatch" / "plan.py").is_file():
        pytest.skip("run under Bazel (tools/bazel test //tools/ci:layers_test) or from the repo root")
    for room in ("backend", "testing", "crcr", "tools"):
        for path in (TREE / room).rglob("*.py"):
            dest = tmp_path / path.relative_to(TREE)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
    return tmp_path


def test_the_tree_has_no_upward_import(tree):
    result = run(TREE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no upward import" in result.stdout
    files = int(result.stdout.split()[1])
    assert files > 200  # it read the whole tree, not an empty runfiles dir


@pytest.mark.parametrize(
    "room_file, line, culprit",
    [
        # crcr's dispatch plan reaching into tools again (what issue 23 removed)
        ("crcr/dispatch/plan.py", "from tools.shard.runner import main\n", "tools.shard.runner"),
        # the results vocabulary importing the callback client
        ("testing/results/outcomes.py", "import crcr.callback_client.junit\n", "crcr.callback_client.junit"),
        # the backend package importing the plugin is fine; importing tools is not
        ("backend/torch_spyre/device.py", "    from tools.select import cli\n", "tools.select"),
    ],
)
def test_a_deliberate_upward_import_fails_the_check(tree, room_file, line, culprit):
    path = tree / room_file
    text = path.read_text()
    if line.startswith("    "):  # inside a function: still an import
        line = "def _late():\n" + line
    path.write_text(text + "\n\n" + line)
    result = run(tree)
    assert result.returncode == 1, result.stdout
    # an arrow up may also close a circle (crcr.callback_client.junit reads the outcomes): reported apart
    (reported,) = [x for x in result.stdout.splitlines() if "import circle" not in x]
    assert reported.startswith(f"{room_file}:") and f"imports {culprit}, a higher room" in reported


@pytest.mark.parametrize(
    "room_file, line, culprit",
    [
        # the config contract naming tools' plugin for `pytest -p` again (what issue 23 removed)
        ("testing/config/runs.py", 'SHARD_PLUGIN = "tools.shard.plugin"\n', "tools.shard.plugin"),
        # one argument holding option and module
        ("testing/matrix/legs.py", 'ARGS = ["-q", "-p tools.shard.plugin"]\n', "tools.shard.plugin"),
        # a module loaded by name, and an entry point spec
        (
            "crcr/handler/runner.py",
            'MOD = __import__("importlib").import_module("tools.select.cli")\n',
            "tools.select.cli",
        ),
        (
            "testing/results/outcomes.py",
            'ENTRY = "crcr-callback = crcr.callback_client.__main__:main"\n',
            "crcr.callback_client.__main__",
        ),
    ],
)
def test_a_higher_module_named_in_a_string_fails_the_check(tree, room_file, line, culprit):
    path = tree / room_file
    path.write_text(path.read_text() + "\n\n" + line)
    result = run(tree)
    assert result.returncode == 1, result.stdout
    (reported,) = result.stdout.splitlines()
    assert reported.startswith(f"{room_file}:") and f"names in a string {culprit}, a higher room" in reported


def test_docstrings_paths_and_lower_names_in_strings_pass(tree):
    (tree / "testing" / "config" / "extra.py").write_text(
        '"""Read by tools.shard.runner (python -m tools.shard.runner)."""\n\n'
        'def f():\n    """Loads crcr.relay."""\n\n'
        'TIMINGS = "tools/shard/timings/timings.json"\nPLUGIN = "-p testing.matrix.plugin"\n'
    )
    (tree / "tools" / "shard" / "extra.py").write_text('PLUGINS = ["crcr.relay", "tools.shard.plugin"]\n')
    result = run(tree)
    assert result.returncode == 0, result.stdout


def test_a_package_public_by_default_fails_the_check(tree):
    (tree / "crcr" / "BUILD.bazel").write_text('package(default_visibility = ["//visibility:public"])\n')
    result = run(tree)
    assert result.returncode == 1
    assert result.stdout.strip() == (
        "crcr/BUILD.bazel: package(default_visibility) is public; list the public targets instead"
    )


def test_downward_and_sideways_imports_pass(tree):
    (tree / "tools" / "shard" / "extra.py").write_text(
        "from crcr.callback_client.junit import Counts\nimport testing.results\n"
    )
    (tree / "crcr" / "extra.py").write_text("from testing.matrix import legs\nimport torch_spyre\n")
    assert run(tree).returncode == 0


def test_an_import_circle_fails_the_check_even_through_a_lazy_import(tree):
    # the shape the handler had: upstream imported main inside a function, main imports upstream
    (tree / "crcr" / "handler" / "upstream_setup.py").write_text(
        (tree / "crcr" / "handler" / "upstream_setup.py").read_text()
        + "\n\ndef _late():\n    from crcr.handler.main import event_source  # noqa\n"
    )
    result = run(tree)
    assert result.returncode == 1
    (line,) = [x for x in result.stdout.splitlines() if "import circle" in x]
    circle = line.split(": ", 2)[2].split(" -> ")
    assert circle[0] == circle[-1] and {"crcr.handler.main", "crcr.handler.upstream_setup"} <= set(circle)


def test_not_a_workspace_is_a_usage_error(tmp_path):
    result = run(tmp_path)
    assert result.returncode == 2 and "no room" in result.stderr


# (file, line added, the module it reaches) between crcr's packages, one tree for all three
UP_A_FLOOR = [
    # the installable client reaching into dispatch (the wheel would no longer install alone)
    (
        "crcr/callback_client/api.py",
        "from crcr.dispatch.event import Dispatch\n",
        "crcr.dispatch.event",
    ),
    # the warehouse's queries rendering through the relay (only its command line may)
    ("crcr/warehouse/queries.py", "def _late():\n    from crcr.relay import hud\n", "crcr.relay"),
    # the leg plan calling back into the handler that runs it
    ("crcr/dispatch/plan.py", "def _late():\n    import crcr.handler.runner\n", "crcr.handler.runner"),
]


def test_an_import_of_a_higher_crcr_package_fails_the_check(tree):
    for room_file, line, _ in UP_A_FLOOR:
        path = tree / room_file
        path.write_text(path.read_text() + "\n\n" + line)
    result = run(tree)
    assert result.returncode == 1, result.stdout
    # the plan importing the handler also closes a circle (the runner reads the plan): reported apart
    reported = {x.split(":")[0]: x for x in result.stdout.splitlines() if "import circle" not in x}
    assert set(reported) == {room_file for room_file, _, _ in UP_A_FLOOR}, result.stdout
    for room_file, _, culprit in UP_A_FLOOR:
        assert f"imports {culprit}, a higher floor of crcr/" in reported[room_file]


def test_crcr_floors_on_a_synthetic_tree(tmp_path):
    files = {
        "crcr/__init__.py": "",
        "crcr/callback_client/__init__.py": "",
        "crcr/callback_client/errors.py": "import testing.results\n",
        "crcr/dispatch/plan.py": "from crcr.callback_client import errors\nfrom crcr.upstream import source\n",
        "crcr/upstream/source.py": "from crcr.dispatch import event  # a sibling floor: fine\n",
        "crcr/dispatch/event.py": "",
        "crcr/warehouse/queries.py": "from crcr.callback_client.errors import x\n",
        "crcr/warehouse/__main__.py": "from crcr.relay import hud  # its page renders the HUD\n",
        "crcr/relay/hud.py": "from crcr.dispatch import plan\n",
        "crcr/relay/panels.py": "from crcr.warehouse import queries\n",
        "crcr/handler/main.py": "import crcr.relay.hud\nfrom crcr.warehouse import __main__\n",
        "crcr/tests/test_main.py": "from crcr.handler import main\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert run(tmp_path).returncode == 0, run(tmp_path).stdout
    # the warehouse's command line may render the relay's HUD; the warehouse's library may not,
    # nor may the relay name the warehouse's command line (one floor up) in a string
    (tmp_path / "crcr/warehouse/queries.py").write_text("import crcr.relay.hud\n")
    (tmp_path / "crcr/relay/server.py").write_text('ARGS = ["-m", "crcr.warehouse.__main__"]\n')
    (tmp_path / "crcr/callback_client/api.py").write_text("from crcr.handler.main import x\n")
    result = run(tmp_path)
    assert result.returncode == 1
    assert sorted(result.stdout.splitlines()) == [
        "crcr/callback_client/api.py:1: imports crcr.handler.main, a higher floor of crcr/"
        " (callback_client < dispatch, upstream, warehouse < relay < handler, warehouse.__main__ < tests, warehouse.tests)",
        "crcr/relay/server.py:1: names in a string crcr.warehouse.__main__, a higher floor of crcr/"
        " (callback_client < dispatch, upstream, warehouse < relay < handler, warehouse.__main__ < tests, warehouse.tests)",
        "crcr/warehouse/queries.py:1: imports crcr.relay.hud, a higher floor of crcr/"
        " (callback_client < dispatch, upstream, warehouse < relay < handler, warehouse.__main__ < tests, warehouse.tests)",
    ]


def test_the_ground_floor_imports_nothing_above_it(tree):
    # testing/base is below testing: an import of the config contract is an arrow up
    path = tree / "testing" / "base" / "command.py"
    path.write_text(path.read_text() + "\n\nfrom testing.config.load import load\n")
    result = run(tree)
    assert result.returncode == 1, result.stdout
    (reported,) = [x for x in result.stdout.splitlines() if "import circle" not in x]
    assert (
        reported.startswith("testing/base/command.py:")
        and "imports testing.config.load, a higher room" in reported
    )
