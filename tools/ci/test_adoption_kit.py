"""The cheap half of docs/adopting.md's checks, in //... (the full install and CRCR cycle is
//tools/ci:adoption_test, manual): the guide's blocks are all there and parse, every file it
names exists in this tree, the release collects every asset the guide tells a reader to take,
and the adopter's workflow has the steps the guide describes, each a script bash accepts.
Each check is a function returning problems; the tests feed it broken copies too."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from ruamel.yaml import YAML

from tools.ci import adoption_guide
from tools.ci.adoption_guide import DEVICE_SOURCES, GUIDE, RELEASE, WANTED_BLOCKS, WORKFLOW

WORKFLOW_STEPS = ["Install torch (CPU) and the plugin", "Build the backend against that torch", "Test"]
# what the guide says unpacking acme-torch-example.tar.gz writes
EXAMPLE_FILES = ("csrc", "acme_torch", ".github/workflows/crcr.yml")
# the guide's table: what you take | built by (a target, a file, or "(a file)": the first column)
TABLE_ROW = re.compile(r"^\| `([^`]+)` \| (?:`([^`]+)`|\(a file\)) \|", re.M)


def load(text: str):
    return YAML(typ="safe").load(text)


def bash_rejects(script: str) -> str:
    """bash -n's complaint about a script ('' when it parses)."""
    done = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True, timeout=30)
    return done.stderr.strip() if done.returncode else ""


def block_problems(guide: str) -> list[str]:
    blocks = adoption_guide.guide_blocks(guide)
    found = [
        f"no block marked <!-- adoption-test: {name} -->" for name in sorted(WANTED_BLOCKS - set(blocks))
    ]
    for name, body in blocks.items():
        try:
            if name.endswith(".json"):
                json.loads(body)
            elif name.endswith(".yaml"):
                load(body)
        except ValueError as exc:  # JSONDecodeError and ruamel's YAMLError both derive from it
            found.append(f"{name}: {exc}".splitlines()[0])
    found += [
        f"shell block does not parse: {why}"
        for why in map(bash_rejects, adoption_guide.shell_blocks(guide))
        if why
    ]
    return found


def source_problems(guide: str, root: Path) -> list[str]:
    """The guide's table names a Bazel target or a file of this tree for each thing to take."""
    found = []
    for taken, built_by in TABLE_ROW.findall(guide):
        built_by = built_by or taken
        if built_by.startswith("//"):
            package, _, name = built_by[2:].partition(":")
            if f'name = "{name}"' not in (root / package / "BUILD.bazel").read_text():
                found.append(f"{built_by}: no such target")
        elif not (root / built_by).is_file():
            found.append(f"{built_by}: no such file")
    return found


def release_problems(guide: str, release: str, root: Path) -> list[str]:
    assets, sources = adoption_guide.collected(adoption_guide.collect_script(load(release)))
    found = [
        f"the guide names {name}; the release does not collect it"
        for name in adoption_guide.unshipped(guide, assets)
    ]
    found += [
        f"the release copies {src}, which is not in the tree" for src in sources if not (root / src).exists()
    ]
    found += [
        f"acme-torch-example.tar.gz lacks {f}"
        for f in EXAMPLE_FILES
        if not (root / DEVICE_SOURCES / f).exists()
    ]
    return found


def workflow_problems(workflow: str) -> list[str]:
    steps = adoption_guide.workflow_steps(load(workflow))
    names = [name for name, _, _ in steps]
    found = [] if names == WORKFLOW_STEPS else [f"run steps {names}, the guide describes {WORKFLOW_STEPS}"]
    for name, script, _ in steps:
        if "${{" in script:
            found.append(f"{name}: an expression inside run: (pass dispatch data through env:)")
        if why := bash_rejects(script):
            found.append(f"{name}: does not parse: {why}")
    return found


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_the_guide_blocks_are_there_and_parse():
    guide = read(GUIDE)
    assert block_problems(guide) == []
    assert (
        len(adoption_guide.shell_blocks(guide)) >= len(WANTED_BLOCKS) - 1
    )  # event.json is not a shell block
    broken = guide.replace("<!-- adoption-test: cycle -->", "").replace("tar -xzf", "tar -xzf 'unclosed")
    broken += "\n```\nfor x in a b; do\n```\n"
    assert len(block_problems(broken)) == 2, block_problems(broken)


def test_every_source_the_guide_names_is_in_the_tree():
    guide = read(GUIDE)
    assert len(TABLE_ROW.findall(guide)) >= 7 and source_problems(guide, Path.cwd()) == []
    broken = guide.replace("`//crcr:client_wheel`", "`//crcr:client_whl`")
    assert source_problems(broken, Path.cwd()) == ["//crcr:client_whl: no such target"]


def test_the_release_collects_every_asset_the_guide_names():
    guide, release = read(GUIDE), read(RELEASE)
    assert len(adoption_guide.named_assets(guide)) >= 9, adoption_guide.named_assets(guide)
    assert release_problems(guide, release, Path.cwd()) == []
    dropped = "\n".join(line for line in release.splitlines() if "dist/crcr-workflow.yml" not in line)
    assert release_problems(guide, dropped, Path.cwd()) == [
        "the guide names crcr-workflow.yml; the release does not collect it"
    ]
    moved = release.replace("testing/tests/wheel_suite/ops_suite.py", "testing/tests/ops_suite.py")
    assert release_problems(guide, moved, Path.cwd()) == [
        "the release copies testing/tests/ops_suite.py, which is not in the tree"
    ]


def test_the_adopter_workflow_has_the_guide_steps_and_they_parse():
    workflow = read(DEVICE_SOURCES / WORKFLOW)
    assert workflow_problems(workflow) == []
    renamed = workflow.replace("name: Test\n", "name: Tests\n", 1)
    assert len(workflow_problems(renamed)) == 1, workflow_problems(renamed)
    unclosed = workflow.replace('"ci/configs/$FEATURE.yaml"', '"ci/configs/$FEATURE.yaml', 1)
    assert [p.split(":")[0] for p in workflow_problems(unclosed)] == ["Test"], workflow_problems(unclosed)
