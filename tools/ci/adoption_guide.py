"""docs/adopting.md and the kit it describes, read as data: the guide's marked blocks, the
adopter's workflow steps and the release's collected assets. The full run
(test_adoption.py, manual) and the cheap checks in //... (test_adoption_kit.py) read the
same things the same way."""

from __future__ import annotations

import fnmatch
import re
import shlex
from pathlib import Path

GUIDE = Path("docs/adopting.md")
RELEASE = Path(".github/workflows/release.yml")
DEVICE_SOURCES = Path("tools/ci/adoption")  # the stand-in backend (acme-torch-example.tar.gz)
WORKFLOW = Path(".github/workflows/crcr.yml")  # the adopter's, relative to their repository
MARKED = re.compile(r"<!-- adoption-test: (\S+) -->\n```[a-z]*\n(.*?)\n```", re.S)
WANTED_BLOCKS = {"install", "build", "run", "emulator", "event.json", "cycle"}
FENCED = re.compile(r"^```([\w+-]*)\n(.*?)^```", re.S | re.M)
SHELLS = {"", "sh", "bash", "shell", "console"}
# an asset name in the guide's text: a wheel, a `.yml`/`.py`/`.tar.gz` file without a
# directory, or the checksum list
ASSET = re.compile(r"`([\w.-]+(?:\.whl|\.yml|\.py|\.tar\.gz)|SHA256SUMS)`")


def guide_blocks(text: str) -> dict[str, str]:
    """The blocks marked `<!-- adoption-test: NAME -->`, by NAME."""
    return dict(MARKED.findall(text))


def shell_blocks(text: str) -> list[str]:
    """Every fenced block of the guide a reader would paste into a shell."""
    return [body for info, body in FENCED.findall(text) if info in SHELLS]


def workflow_steps(workflow: dict) -> list[tuple[str, str, dict]]:
    """(name, script, env) of each `run:` step of the adopter's test job, as GitHub runs them."""
    env = {k: str(v) for k, v in workflow["env"].items()}
    return [
        (step["name"], step["run"], {**env, **{k: str(v) for k, v in step.get("env", {}).items()}})
        for step in workflow["jobs"]["test"]["steps"]
        if "run" in step
    ]


def collect_script(release: dict) -> str:
    """The release job's step that fills dist/ (its name says so)."""
    steps = release["jobs"]["wheels"]["steps"]
    return next(s["run"] for s in steps if s.get("name") == "Collect the kit")


def collected(script: str) -> tuple[list[str], list[str]]:
    """(asset names or globs put in dist/, sources copied from the tree) of the collect step."""
    assets, sources = [], []
    for line in script.splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == ["cp"] and words[-1].startswith("dist/"):
            srcs = words[1:-1]
            sources += [s for s in srcs if not s.startswith("bazel-bin/")]
            named = words[-1].removeprefix("dist/")
            assets += [Path(s).name for s in srcs] if not named else [named]
        elif words[:1] == ["tar"] and "-C" in words:
            assets.append(next(w for w in words if w.startswith("dist/")).removeprefix("dist/"))
            sources.append(words[words.index("-C") + 1])
        elif "> SHA256SUMS" in line:
            assets.append("SHA256SUMS")
    return assets, sources


def named_assets(guide: str) -> list[str]:
    """The files the guide's §1 and its table tell the reader to take from a release."""
    kit = guide.split("## 1.", 1)[0] + guide.split("## 1.", 1)[1].split("\n## ", 1)[0]
    return sorted(set(ASSET.findall(kit)) - {"release.yml"})


def unshipped(guide: str, assets: list[str]) -> list[str]:
    """Assets the guide names that the release does not collect."""
    return [name for name in named_assets(guide) if not any(fnmatch.fnmatch(name, a) for a in assets)]
