"""//tools/ci:doc_commands_test: every README command has an entry, and the fast ones run
as written from a scratch clone's root; the check fails when a README command is added
without an entry or edited into one that does not run (the test of the test)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tools.ci.readme_commands import extract, figures, manifest, run

ROOT = Path.cwd()  # the runfiles' workspace directory: the READMEs and what the commands need
_, COVERAGE = run.check(ROOT)
FAST = {c.key: (c, e) for c, e in COVERAGE.matched if e.run == "fast"}
MATRIX = "python3 -m tools.shard matrix --generated . --max-leg-seconds 600 --out out/matrix.json"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("doc")


@pytest.fixture(scope="module")
def clone(scratch):
    return run.clone_from_runfiles(scratch / "clone")


@pytest.fixture(scope="module")
def venv(scratch):
    return run.Venv(scratch / "venv", run.wheels())


def test_every_readme_command_has_an_entry_and_every_entry_a_command():
    found, coverage = run.check(ROOT)
    assert found == []
    # every directory's README is in this test's data (a README missing there would hide its commands)
    documents = {p.relative_to(ROOT).as_posix() for p in extract.documents(ROOT)}
    assert {"README.md", "docs/adopting.md", "crcr/README.md", "tools/shard/README.md"} <= documents
    assert len(coverage.matched) >= 80 and len(FAST) >= 3


@pytest.mark.parametrize("key", sorted(FAST))
def test_fast_command_runs_as_written(clone, venv, tmp_path, key):
    command, entry = FAST[key]
    outcome = run.run_one(command, entry, clone, tmp_path, venv)
    assert outcome.ok, f"{outcome.where}: {outcome.command}\n{outcome.detail}"


def _copy(clone: Path, dest: Path) -> Path:
    shutil.copytree(clone, dest, symlinks=True)
    return dest


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def test_a_readme_command_without_an_entry_fails_the_check(clone, tmp_path):
    copy = _copy(clone, tmp_path / "copy")
    readme = copy / "tools" / "shard" / "README.md"
    readme.write_text(readme.read_text() + "\n```\npython3 -m tools.shard plan --help\n```\n")
    found, _ = run.check(copy)
    line = len(readme.read_text().splitlines()) - 1
    assert found == [
        f"tools/shard/README.md:{line}: no entry in {manifest.MANIFEST} for "
        "`python3 -m tools.shard plan --help` (add one: run, reason, expect)"
    ]


def test_an_entry_whose_command_left_the_readmes_fails_the_check(clone, tmp_path):
    copy = _copy(clone, tmp_path / "copy")
    _edit(copy / "tools" / "shard" / "README.md", MATRIX, "")
    found, _ = run.check(copy)
    assert found == [f"{manifest.MANIFEST}: `{MATRIX}` is in no README any more (remove or update the entry)"]


def test_a_readme_command_edited_into_one_that_does_not_run_fails(clone, venv, tmp_path):
    # The careless edit: README and entry changed together, so only running it can tell.
    copy = _copy(clone, tmp_path / "copy")
    broken = MATRIX.replace("--generated .", "--generated nowhere")
    _edit(copy / "tools" / "shard" / "README.md", MATRIX, broken)
    _edit(copy / manifest.MANIFEST, f'"{MATRIX}"', f'"{broken}"')
    found, coverage = run.check(copy)
    assert found == []
    outcomes = run.run_selected(coverage, "fast", copy, tmp_path, ["nowhere"], run.wheels(), venv)
    assert [o.ok for o in outcomes] == [False]
    assert outcomes[0].detail.startswith("exit 2, expected 0; output tail:")
    assert "/nowhere: no configs/ directory there" in outcomes[0].detail


def test_quoted_output_is_checked_by_a_test_or_marked_an_example(clone, tmp_path):
    # README prose quoted figures that no longer held, and nothing compared them with a run
    copy = _copy(clone, tmp_path / "copy")
    readme = copy / "testing" / "README.md"
    quote = "check: ok: 1 configs in 1 sets: 0 errors, 1 warnings, 0 hygiene notes"
    _edit(readme, quote, quote.replace("1 warnings", "2 warnings"))
    readme.write_text(readme.read_text() + "\nNew figures:\n```text\nlegs: 9\n```\n")
    found, _ = run.check(copy)
    said = [line.split(": ", 1)[1] for line in found]
    assert len(said) == 2, found
    assert said[0].startswith(
        "checked by testing/check/tests/test_check.py, which does not hold the quoted line"
    )
    assert said[1].startswith("a ```text block without `<!-- output: checked by TEST")


def test_a_virtual_environment_in_the_checkout_brings_no_commands(clone, tmp_path):
    # README.md's "Outside Bazel" makes .venv/ in the checkout; its packages' READMEs were
    # read as this repository's, and `doc_commands --list` failed right after that step
    copy = _copy(clone, tmp_path / "copy")
    for venv in (copy / ".venv", copy / "env"):
        package = venv / "lib" / "python3.11" / "site-packages" / "pkg"
        package.mkdir(parents=True)
        (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (package / "README.md").write_text("```\nmake install\n```\n")
    found, _ = run.check(copy)
    assert found == []
    (copy / "env" / "pyvenv.cfg").unlink()  # a directory of the tree like any other
    found, _ = run.check(copy)
    assert len(found) == 1 and "env/lib/python3.11/site-packages/pkg/README.md:2" in found[0], found


def test_a_prose_figure_the_tree_decides_is_checked_against_it(clone, tmp_path):
    # "~160 op targets", "Five wheels": prose figures drifted with nothing to tell
    copy = _copy(clone, tmp_path / "copy")
    assert figures.problems(copy) == []
    _edit(copy / "testing" / "targets" / "README.md", "~160 op targets", "~150 op targets")
    wheels = copy / "tools" / "ci" / "BUILD.bazel"
    _edit(wheels, '    "//backend:wheel",\n', '    "//backend:wheel",\n    "//extra:wheel",\n')
    found, _ = run.check(copy)
    assert [line.split(":", 1)[0] for line in found] == [
        "README.md",
        "tools/ci/README.md",
        "testing/targets/README.md",
    ], found
    assert "should say '~160 op targets' (op_* targets in configs.bzl: 159)" in found[2]
    assert "should say 'six wheels, each file in exactly one'" in found[0]


def test_a_measured_figure_says_when(clone, tmp_path):
    # a measured figure read as a claim about today's tree once the tree had moved on
    copy = _copy(clone, tmp_path / "copy")
    readme = copy / "tools" / "shard" / "README.md"
    lines = len(readme.read_text().splitlines())
    readme.write_text(readme.read_text() + "\nMeasured here: 3 legs\nin 12 s.\n\n```yaml\nMeasured: 1\n```\n")
    found, _ = run.check(copy)
    assert found == [f"tools/shard/README.md:{lines + 2}: a measured figure without its date (YYYY-MM-DD)"]


def test_a_timed_out_command_is_interrupted_first(tmp_path):
    # A bazel client cancels its server's command only on an interrupt: SIGINT before SIGKILL.
    script = "trap 'echo interrupted; exit 130' INT; echo started; sleep 60 & wait"
    command = extract.Command("README.md", 1, script)
    entry = manifest.Entry(command=script, run="manual", reason="test", expect="started", timeout=1)
    outcome = run.run_one(command, entry, tmp_path, tmp_path, None)
    assert not outcome.ok and outcome.detail.startswith("timed out after 1 s")
    assert "interrupted" in outcome.detail


def test_the_outputs_the_readmes_write_are_ignored(clone):
    # out/ (tools/select, testing), the kept previous timings and the documented .venv:
    # a tree dirty with them made crcr attribution say "backend moved".
    paths = ["out/scope.yaml", "tools/shard/timings/timings.json.prev", ".venv/bin/python"]
    result = subprocess.run(["git", "check-ignore", *paths], cwd=clone, capture_output=True, text=True)
    assert result.stdout.split() == paths


def test_a_command_that_leaves_a_file_in_the_checkout_fails(clone, tmp_path):
    # An output written into the tree (hud.html at the root) made the next main run say
    # "backend moved: ...-dirty-..." and stop naming the upstream culprit.
    copy = _copy(clone, tmp_path / "copy")
    script = "echo '<html>' > hud.html && echo written"
    command = extract.Command("README.md", 1, script)
    entry = manifest.Entry(command=script, run="manual", reason="test", expect="written")
    outcome = run.run_one(command, entry, copy, tmp_path, None)
    assert not outcome.ok
    assert outcome.detail.startswith("left the checkout changed (hud.html): outputs belong under out/")
    ignored = "mkdir -p out && echo '<html>' > out/hud.html && echo written"
    entry = manifest.Entry(command=ignored, run="manual", reason="test", expect="written")
    assert run.run_one(extract.Command("README.md", 1, ignored), entry, copy, tmp_path, None).ok


def test_each_result_line_says_how_long_the_command_took_and_the_load():
    # The closing note lists every manual command with its duration and the machine's load.
    outcome = run.Outcome("README.md:99", "tools/bazel test //testing:op_add", True, "ok (83.2 s)", 83.2)
    line = run.result_line(outcome, 7.94)
    assert line == "PASS (83 s, load 7.9) README.md:99: tools/bazel test //testing:op_add"


def test_show_prints_what_a_passing_command_printed(tmp_path, capsys):
    # A benchmark's figures are its output: --show puts them in the run's log.
    script = "echo 'ratio 0.42'"
    command = extract.Command("README.md", 1, script)
    entry = manifest.Entry(command=script, run="manual", reason="test", expect="ratio")
    coverage = manifest.Coverage([(command, entry)], [], [])
    outcomes = run.run_selected(coverage, "manual", tmp_path, tmp_path, None, [], show=True)
    assert [o.ok for o in outcomes] == [True]
    assert "\n    ratio 0.42\n" in capsys.readouterr().out
