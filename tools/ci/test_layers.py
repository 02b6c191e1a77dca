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
    if not (TREE / "crcr" / "handler" / "plan.py").is_file():
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
        ("crcr/handler/plan.py", "from tools.shard.runner import main\n", "tools.shard.runner"),
        # the results vocabulary importing the callback client
        ("testing/results/outcomes.py", "import crcr.junit\n", "crcr.junit"),
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
    # an arrow up may also close a circle (crcr.junit reads the outcomes): reported apart
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
        ("testing/results/outcomes.py", 'ENTRY = "crcr-callback = crcr.cli:main"\n', "crcr.cli"),
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
        "from crcr.junit import Counts\nimport testing.results\n"
    )
    (tree / "crcr" / "extra.py").write_text("from testing.matrix import legs\nimport torch_spyre\n")
    assert run(tree).returncode == 0


def test_an_import_circle_fails_the_check_even_through_a_lazy_import(tree):
    # the shape the handler had: upstream imported main inside a function, main imports upstream
    (tree / "crcr" / "handler" / "upstream.py").write_text(
        (tree / "crcr" / "handler" / "upstream.py").read_text()
        + "\n\ndef _late():\n    from crcr.handler.main import event_source  # noqa\n"
    )
    result = run(tree)
    assert result.returncode == 1
    (line,) = [x for x in result.stdout.splitlines() if "import circle" in x]
    circle = line.split(": ", 2)[2].split(" -> ")
    assert circle[0] == circle[-1] and {"crcr.handler.main", "crcr.handler.upstream"} <= set(circle)


def test_not_a_workspace_is_a_usage_error(tmp_path):
    result = run(tmp_path)
    assert result.returncode == 2 and "no room" in result.stderr


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
