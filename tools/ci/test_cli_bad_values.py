"""Every command line given malformed values: one line on stderr, exit 2, never a traceback.

Each CLI runs as a subprocess exactly as `python -m <module>` would (what `bazel run` runs),
from a scratch directory. Also the one rule for paths: under `bazel run` a path the user
types is read against BUILD_WORKING_DIRECTORY (the README's `--event e.json`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path("crcr/examples/pull_request_synchronize.json")

# (module, arguments, a phrase the one line must hold)
CASES = [
    ("crcr.relay", ["--port", "70000"], "out of range"),
    ("crcr.relay", ["--port", "-1"], "out of range"),
    ("crcr.relay", ["--port", "eighty"], "not a port number"),
    ("crcr.relay", ["--fault-rate", "2"], "within 0..1"),
    ("crcr.relay", ["--token-file", "t", "--repo", "a/b", "--repo", "c/d"], "needs exactly one --repo"),
    ("crcr.relay", ["--allowlist", "missing.yml"], "missing.yml"),
    ("crcr.relay", ["--bogus"], "unknown option --bogus"),
    ("crcr.relay.browser", ["missing.html", "out.png"], "missing.html: no such HUD page"),
    ("crcr.handler.main", ["bogus"], "invalid choice: 'bogus'"),
    ("crcr.handler.main", ["--event", "missing.json", "plan"], "missing.json"),
    ("crcr.handler.main", ["--shards", "-3", "plan"], "must be >= 0"),
    ("crcr.handler.main", ["--smoke", "0"], "must be >= 1"),
    # plan refuses what run-leg refuses (its legs would fail on them later)
    ("crcr.handler.main", ["plan", "--runner", "bogus"], "--runner must be auto, pytest or bazel"),
    ("crcr.handler.main", ["plan", "--select-budget", "150%"], "at most 100 %"),
    ("crcr.handler.main", ["plan", "--test-command", "'unclosed"], "--test-command: No closing quotation"),
    ("crcr.handler.main", ["--leg-timeout", "soon"], "'soon' is not a number"),
    (
        "crcr.handler.main",
        ["plan", "--inject-fault", "corrupt:3", "--devices", "0,1"],
        "names device spyre:3",
    ),
    ("crcr.handler.main", ["plan", "--inject-fault", "melt"], "KIND one of hang, corrupt, error, held"),
    ("crcr.handler.main", ["--leg", "x", "run-leg"], "'x' is not a whole number"),
    ("crcr.handler.main", ["--relay-url", "http://127.0.0.1:9"], "ACTIONS_ID_TOKEN_REQUEST_URL"),
    ("crcr.handler.main", ["--nope"], "unknown option --nope"),
    ("crcr.handler.main", ["--evnt", "e.json"], "unknown option --evnt (closest: --event)"),
    ("crcr.callback_client", ["bogus"], "invalid choice: 'bogus'"),
    ("crcr.callback_client", ["flush", "--timeout", "-1"], "must be > 0"),
    ("crcr.callback_client", ["flush", "--max-retries", "many"], "not a whole number"),
    # flush only replays: a missing state dir is named, never created
    (
        "crcr.callback_client",
        ["flush", "--url", "http://127.0.0.1:9", "--repo", "a/b", "--state-dir", "typo"],
        "no outbox under ",
    ),
    ("crcr.dispatch.allowlist_tool", ["bogus"], "invalid choice: 'bogus'"),
    ("crcr.dispatch.allowlist_tool", ["validate", "missing.yml"], "missing.yml"),
    ("crcr.dispatch.allowlist_tool", ["print", "--repo", "a/b", "--level", "L9"], "invalid choice: 'L9'"),
    ("tools.shard", ["bogus"], "invalid choice: 'bogus'"),
    ("tools.shard", ["plan", "missing.txt", "--shards", "2"], "missing.txt"),
    ("tools.shard", ["plan", "-", "--shards", "0"], "must be >= 1"),
    ("tools.shard", ["matrix", "--generated", "--max-leg-seconds", "-5"], "must be > 0"),
    ("tools.shard", ["update", "--weight", "5", "r.xml"], "(0, 1]"),
    ("tools.shard", ["update"], "give result files"),
    ("tools.shard", ["update", "--from-testlogs", "nowhere"], "not a directory"),
    ("tools.shard.runner", ["--reruns", "x", "--", "-q"], "not a whole number"),
    ("tools.shard.runner", ["--isolate-mode", "spoon", "--", "-q"], "invalid choice: 'spoon'"),
    ("tools.select.cli", ["bogus"], "invalid choice: 'bogus'"),
    ("tools.select.cli", ["query"], "required: op"),
    ("testing.targets.generate", ["--root", "nowhere"], "no configs/ directory"),
    ("testing.targets.generate", ["--bogus"], "unknown option --bogus"),
    ("crcr.warehouse", ["bogus"], "invalid choice: 'bogus'"),
    ("crcr.warehouse", ["flaky", "--days", "-2"], "must be >= 1"),
    ("crcr.warehouse", ["--warehouse", "clickhouse://h:99999/db", "flaky"], "bad port"),
    ("crcr.warehouse", ["--simulate-days", "x", "page"], "is not a whole number"),
    ("crcr.upstream.core_sha", ["--bogus"], "unknown option --bogus"),
    ("crcr.handler.main", ["--core-wheel", "http://h/torch.whl"], "a URL must end in #sha256=<64 hex>"),
    ("tools.bench.fault_campaign", ["--legs", "0"], "must be >= 1"),
    ("testing.check.cli", ["missing.yaml"], "missing.yaml: not a config file"),
    ("testing.check.cli", ["--bogus"], "unknown option --bogus"),
    ("testing.config.schema", ["--bogus"], "unknown option --bogus"),
    ("testing.plugin.native.export", ["--config", "missing.yaml", "-o", "x.py"], "missing.yaml"),
    ("testing.plugin.skip_audit", ["--config", "missing.yaml"], "required: -o/--output"),
    ("tools.models.capture", ["nowhere"], "no config.json"),
    ("tools.ci.readme_commands.run", ["--only"], "expected one argument"),
    ("tools.select.e2e", ["--bogus"], "unknown option --bogus"),
    ("backend.demo", ["--bogus"], "takes no arguments"),
    *[
        (f"tools.bench.{name}", ["--bogus"], "unknown option --bogus")
        for name in (
            "backend_bench",
            "bisect_bench",
            "core_exactness",
            "crash_bench",
            "crcr_bench.crcr_bench",
            "model_bench",
            "native_bench",
            "plugin_bench",
            "select_bench",
            "select_mutation_bench",
            "shard_bench",
            "stream_bench",
            "warehouse_bench",
        )
    ],
]

# Programs that are no user's command line: (module, why)
NOT_COMMANDS = {
    "tools.build.private.import_root": "a build action's tool, run by Bazel with arguments it makes",
}


def binaries(root: Path) -> dict[str, str]:
    """Every py_binary of the tree's BUILD files: its main module -> its label."""
    found = {}
    for build in sorted(root.glob("**/BUILD.bazel")):
        package = build.parent.relative_to(root).as_posix()
        if package.startswith("third_party"):
            continue
        for block in re.finditer(r"^py_binary\(\n(.*?)^\)", build.read_text(), re.S | re.M):
            name = re.search(r'name = "([^"]+)"', block[1])[1]
            main = (
                re.search(r'main = "([^"]+)"', block[1]) or re.search(r'srcs = \[\s*"([^"]+)"', block[1])
            )[1]
            module = f"{package}/{main}".removesuffix(".py").removesuffix("/__main__").replace("/", ".")
            found[ALIASES.get(module, module)] = f"//{package}:{name}"
    return found


# a binary whose main only hands over to another module's main (checked through that one)
ALIASES = {"testing.targets.generate_main": "testing.targets.generate"}


def own_runfiles(listing: Path) -> dict[str, list[str]]:
    """label -> the binary's first-party runfiles (runfiles_listing's lines; external
    repositories, `../name/...`, are the pinned packages every program shares)."""
    files: dict[str, list[str]] = {}
    for line in listing.read_text().splitlines():
        label, _, path = line.partition("\t")
        if not path.startswith("../"):
            files.setdefault(label, []).append(path)
    return files


OWN = own_runfiles(Path(os.environ["CLI_RUNFILES"]))
BINARIES = binaries(Path.cwd())


def test_every_command_line_program_has_a_bad_value_case():
    # A new `bazel run` entry point without a case here fails: its bad values are untried.
    tried = {module for module, _, _ in CASES} | set(NOT_COMMANDS)
    untried = {m: label for m, label in BINARIES.items() if m not in tried}
    assert untried == {}, f"add a CASES entry for: {untried}"
    unlisted = {label for m, label in BINARIES.items() if m not in NOT_COMMANDS} - set(OWN)
    assert unlisted == set(), f"add to CLI_BINARIES in tools/ci/BUILD.bazel: {sorted(unlisted)}"


def test_a_program_runs_over_its_own_runfiles_only(trees, scratch):
    # backend_bench imported testing.results without depending on it: this test (which has
    # testing on its path) passed while `tools/bazel run //tools/bench:backend_bench` died.
    tree = trees("tools.bench.backend_bench")
    assert (tree / "tools/bench/backend_bench.py").is_symlink()
    assert (tree / "testing/base/cliargs.py").exists()
    assert not (tree / "crcr").exists()  # another room's modules stay out
    result = run("crcr.dispatch.allowlist_tool", ["bogus"], scratch, tree)
    assert "ModuleNotFoundError: No module named 'crcr'" in result.stderr


@pytest.fixture(scope="session")
def trees(tmp_path_factory):
    """A program's own tree: only its binary's first-party runfiles, linked from this test's.
    A module run over it imports what `bazel run` gives that program, not what this test has."""
    made: dict[str, Path] = {}

    def tree(module: str) -> Path | None:
        label = BINARIES.get(module)
        if label is None:
            return None  # no py_binary: a wheel's entry point (crcr-callback), run with the test's path
        if label not in made:
            root = tmp_path_factory.mktemp(label.replace("/", "_").replace(":", "_"))
            for rel in OWN[label]:
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).symlink_to(Path.cwd() / rel)
            made[label] = root
        return made[label]

    return tree


def _moved(entry: str, tree: Path) -> str:
    """A sys.path entry in this test's workspace (the root, `imports` roots such as backend/)
    to the same place in `tree`; external ones (the pinned packages) as they are."""
    here, where = Path.cwd().resolve(), Path(entry).resolve()
    return str(tree / where.relative_to(here)) if where.is_relative_to(here) else entry


def run(
    module: str, args: list[str], cwd: Path, tree: Path | None = None, **env: str
) -> subprocess.CompletedProcess:
    path = [p for p in sys.path if p]
    if tree is not None:  # the checkout's modules only from the program's own runfiles
        path = [str(tree)] + [_moved(p, tree) for p in path]
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    environ.pop("BUILD_WORKING_DIRECTORY", None)
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "r.xml").write_text('<testsuite><testcase classname="t" name="a" time="1"/></testsuite>')
    return tmp_path


def _one_line_exit_2(result: subprocess.CompletedProcess, phrase: str) -> None:
    err = result.stderr.strip()
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert len(err.splitlines()) == 1, err
    assert phrase in err, err


@pytest.mark.parametrize(("module", "args", "phrase"), CASES, ids=[f"{m} {' '.join(a)}" for m, a, _ in CASES])
def test_bad_value_is_one_line_and_exit_2(trees, scratch, module, args, phrase):
    _one_line_exit_2(run(module, args, scratch, trees(module)), phrase)


def test_relay_emulator_port_in_use_is_one_line(scratch):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run("crcr.relay", ["--port", str(port)], scratch)
    _one_line_exit_2(result, f"port {port} is in use")


def test_handler_reads_event_where_the_user_stands_under_bazel_run(scratch, tmp_path_factory):
    # `tools/bazel run //crcr:dispatch_handler -- --event e.json plan` from the directory that
    # holds e.json: bazel starts the program in its runfiles, BUILD_WORKING_DIRECTORY says where.
    user = tmp_path_factory.mktemp("user")
    shutil.copy(EXAMPLE, user / "e.json")
    result = run(
        "crcr.handler.main", ["--event", "e.json", "plan"], scratch, BUILD_WORKING_DIRECTORY=str(user)
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "include" in json.loads(result.stdout.splitlines()[0])
    assert "run: PR #" in result.stderr


def test_allowlist_and_shard_paths_are_read_where_the_user_stands(scratch, tmp_path_factory):
    user = tmp_path_factory.mktemp("user")
    (user / "allowlist.yml").write_text("L2:\n  - acme/acme-torch\n")
    result = run(
        "crcr.dispatch.allowlist_tool",
        ["validate", "allowlist.yml", "--repo", "acme/acme-torch"],
        scratch,
        BUILD_WORKING_DIRECTORY=str(user),
    )
    assert result.returncode == 0 and "acme/acme-torch: L2" in result.stdout, result.stderr
    (user / "nodeids.txt").write_text("t.py::a\nt.py::b\n")
    result = run(
        "tools.shard",
        ["plan", "nodeids.txt", "--shards", "2", "--timings", "timings.json"],
        scratch,
        BUILD_WORKING_DIRECTORY=str(user),
    )
    assert result.returncode == 0, result.stderr
    assert [s["nodeids"] for s in json.loads(result.stdout)["shards"]] == [["t.py::a"], ["t.py::b"]]


BLOCKER = """import sys


class _Block:  # a host python3 without the pinned packages
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("ruamel", "torch"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Block())
"""


@pytest.mark.parametrize(
    ("module", "args"),
    [
        ("tools.shard", ["matrix", "--generated", ".", "--shards", "1", "--out", "{scratch}/out/m.json"]),
        ("pytest", ["-p", "no:cacheprovider", "testing/tests"]),
    ],
)
def test_a_python_without_the_environment_says_which_it_needs(tmp_path_factory, scratch, module, args):
    # Both ended in a traceback ("No module named 'ruamel'") deep inside an import, and the
    # README's `> out/matrix.json` left an empty file behind.
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text(BLOCKER)
    result = run(
        module,
        [a.format(scratch=scratch) for a in args],
        Path.cwd(),
        PYTHONPATH=os.pathsep.join([str(site)] + [p for p in sys.path if p]),
    )
    err = result.stderr.strip() or result.stdout.strip()
    assert "Traceback" not in result.stderr and result.returncode == 2, result.stderr[-2000:]
    assert len(err.splitlines()) == 1 and "needs the repository's Python environment" in err, err
    assert "has no ruamel, torch" in err or "has no ruamel" in err
    assert not (scratch / "out").exists()
