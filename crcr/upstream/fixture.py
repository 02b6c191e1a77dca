"""The embedded default's upstream: a generated local pytorch-like git repository.

Two commits on main, built with real git into a bare repository served over
file://:

1. `base` holds our upstream-style test files (fixture/base/, written for this
   project, never copied from PyTorch), a `version.txt` matching the wheel and
   the wheel's own `torch/nn/modules/flatten.py`. It stands in for the wheel's
   commit (`torch.version.git_version`), so the core diff runs exactly as
   against GitHub: `--core-base` names it.
2. `head` changes nn.Flatten's default `start_dim` from 1 to 0 (a real
   behaviour change of core Python) and adds a test for the new behaviour.
   `TestFlattenDevice::test_flatten_default_keeps_batch_dim` regresses.

Dispatches are made from the bundled examples: a push of `base` to main (the
baseline run that records the last green result) and the PR synchronize
naming `head`. Same code path as production; only the URL is file://.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from crcr.upstream.localrepo import build_repo, file_url
from testing.results.atomic import write_json

HERE = Path(__file__).resolve().parent / "fixture"
CONFIGS = HERE / "upstream"  # extra feature configs naming ${TORCH_ROOT}/test/... files
# The change map of the fixture's upstream legs at `base`, written by tools/select
# (`select changemap --fixture`, tools/select/README.md); the embedded default reads it.
CHANGE_MAP = HERE / "changemap.json"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CORE_FILE = "torch/nn/modules/flatten.py"
GOOD = "    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:"
BAD = "    def __init__(self, start_dim: int = 0, end_dim: int = -1) -> None:"
REGRESSED_TEST = "test/nn/test_flatten_device.py"
# `head`'s test change, made as a PR would make it: one method added to the base file's class.
INSTANTIATE = "\n\ninstantiate_device_type_tests(TestFlattenDevice, globals())"
NEW_TEST = """
    @dtypes(*DTYPES)
    def test_flatten_from_dim_zero(self, device, dtype):
        x = make_tensor((4, 3, 5), dtype=dtype, device=device)
        self.assertEqual(nn.Flatten(0)(x).shape, (60,))
"""


@dataclass(frozen=True)
class Fixture:
    url: str
    base: str
    head: str
    configs: Path
    baseline_event: Path  # push of `base` to main
    event: Path  # the PR dispatch naming `head`


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def fixture_version(torch_version: str) -> str:
    """'2.13.0+cpu' -> '2.13.0a0', as version.txt reads on that release branch."""
    return torch_version.split("+")[0] + "a0"


def commits(torch_dir: Path, torch_version: str) -> list[tuple[str, dict]]:
    wheel_file = (torch_dir / "nn" / "modules" / "flatten.py").read_text()
    if wheel_file.count(GOOD) != 1:
        raise RuntimeError(f"{CORE_FILE} of this wheel does not have the expected Flatten signature")
    base = {
        **_tree(HERE / "base"),
        "version.txt": fixture_version(torch_version) + "\n",
        CORE_FILE: wheel_file,
    }
    test_file = base[REGRESSED_TEST]
    if test_file.count(INSTANTIATE) != 1:
        raise RuntimeError(f"fixture/base/{REGRESSED_TEST} lost its instantiate_device_type_tests line")
    head = {
        REGRESSED_TEST: test_file.replace(INSTANTIATE, NEW_TEST.rstrip("\n") + "\n" + INSTANTIATE),
        CORE_FILE: wheel_file.replace(GOOD, BAD),
    }
    return [
        ("Release base: the files of the pinned wheel", base),
        ("nn.Flatten: flatten from dim 0 by default (#90001)", head),
    ]


def _events(base: str, head: str) -> tuple[dict, dict]:
    push = json.loads((EXAMPLES / "push_ciflow_tag.json").read_text())
    cp = push["client_payload"]
    cp["delivery_id"] = f"fixture-push-{base[:12]}"
    cp["payload"].update(ref="refs/heads/main", before="0" * 40, after=base, compare="")
    pr = json.loads((EXAMPLES / "pull_request_synchronize.json").read_text())
    cp = pr["client_payload"]
    cp["delivery_id"] = f"fixture-pr-{head[:12]}"
    cp["payload"].update(before=base, after=head)
    cp["payload"]["pull_request"]["head"]["sha"] = head
    cp["payload"]["pull_request"]["base"]["sha"] = base
    cp["payload"]["pull_request"]["title"] = "nn.Flatten: flatten from dim 0 by default"
    return push, copy.deepcopy(pr)


def generate(dest: Path, torch_dir: Path, torch_version: str, env: Mapping[str, str]) -> Fixture:
    """(Re)build the repository under `dest`; same content gives the same SHAs."""
    dest.mkdir(parents=True, exist_ok=True)
    new = dest / f".pytorch.git.{os.getpid()}"
    shas = build_repo(new, commits(torch_dir, torch_version), env)
    bare = dest / "pytorch.git"
    shutil.rmtree(bare, ignore_errors=True)
    os.replace(new, bare)
    push, pr = _events(*shas)
    write_json(dest / "baseline_dispatch.json", push, sort_keys=True, durable=True)
    write_json(dest / "dispatch.json", pr, sort_keys=True, durable=True)
    return Fixture(
        file_url(bare), shas[0], shas[1], CONFIGS, dest / "baseline_dispatch.json", dest / "dispatch.json"
    )
