"""The embedded default's upstream: a generated local pytorch-like git repository.

`COMMITS` (32) commits on main, built with real git into a bare repository served
over file://:

1. `base` holds our upstream-style test files (fixture/base/, written for this
   project, never copied from PyTorch), a `version.txt` matching the wheel and
   the wheel's own `torch/nn/modules/flatten.py`. It stands in for the wheel's
   commit (`torch.version.git_version`), so the core diff runs exactly as
   against GitHub: `--core-base` names it.
2. then harmless landed changes (PR numbers in their messages, as merges read):
   a note in a core Python file of their own (`torch/_fixture_changes.py`, so
   every commit has a real core overlay) and, every third one, a comment in
   `flatten.py` itself (so the attribution's "touches the failing files" list
   has several suspects and only bisection can tell which);
3. at `SEEDED` (commit 21 of 32, not the last) the regression: nn.Flatten's default
   `start_dim` goes from 1 to 0 (a real behaviour change of core Python) with a
   test for the new behaviour; `TestFlattenDevice::test_flatten_default_keeps_batch_dim`
   regresses there and stays red up to `head`, the last commit.
4. at `NEW_CLASS_AT` (commit 10) a commit adding a test class
   (`TestElementwiseExtrasDevice`) to test/test_elementwise_device.py: new in scope
   for the elementwise leg (one of its tests needs float64, which spyre refuses),
   never a regression.

5. beside main, a pull request whose change is native only (`NATIVE_PR`: a kernel and its
   header under aten/, written for this project), branched at `base`. No Python overlay can
   apply it, so its legs run on a core without their change: `neutral`, with the files named.
6. a local nightly index (`nightly-index/`, a find-links directory; no network): two "nightly"
   wheels made from the pinned wheel restamped to main commits `NIGHTLIES_AT` (fixture_nightly.py).
   The PR dispatch at `head` resolves its core through the nearest one (exact); the baseline at
   `base` has no nightly at or before it and falls back to the pinned wheel, saying so.
7. upstream's harness moving (issue 42), three commits on main:
   at `CAPABILITY_AT` the capability mechanism (a STAND-IN of upstream's capability gating,
   written by us to its documented contract: fixture/harness/capability_gating.py.in, appended
   to the wheel's common_device_type.py) and a test of the flatten file gated on `dtype.fp8`
   (spyre declares it unsupported: the capability bucket); at `CASES_AT` a harness module of
   shared cases (`common_nn_cases.norm_shapes`) that the normalization file starts to import;
   at `RENAME_AT` the harness renames it (`norm_shapes` -> `norm_shapes_and_refs`) and leaves
   that device file behind, as upstream's drift does to files its own CI does not run: at
   `head` the file is one `harness drift` line (the nightly at commit 24 still has the name).
   At `CLASSIFY_AT` the harness gains upstream's hardware classification (a STAND-IN enum,
   fixture/harness/hw_classification.py.in, appended to the wheel's common_utils.py) and the
   elementwise file moves `TestElementwiseCastDevice` from GENERIC to ACCELERATOR: the
   elementwise leg scopes by `accelerator`, so the class is new in scope with the move named.

Dispatches are made from the bundled examples: a push of `base` to main (the
baseline run that records the last green result), the PR synchronize
naming `head`, and the native-only PR. Same code path as production; only the URL is file://.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from crcr.upstream.fixture_nightly import make_index
from crcr.upstream.gitcmd import git
from crcr.upstream.localrepo import EPOCH, IDENTITY, add_branch, build_repo, file_url
from testing.base.atomic import write_json

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

# Upstream's harness moving: the capability gating stand-in, a gated test, a harness rename.
HARNESS_FILE = "torch/testing/_internal/common_device_type.py"
CAPABILITY_GATING = HERE / "harness" / "capability_gating.py.in"
CDT_IMPORT = "from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests"
GATED_IMPORT = (
    "from torch.testing._internal.common_device_type import (\n"
    "    Capability,\n    dtypes,\n    instantiate_device_type_tests,\n    requires_capabilities,\n)"
)
GATED_TEST = """
    @requires_capabilities(Capability.dtype.fp8)
    def test_flatten_fp8(self, device):
        x = torch.zeros((2, 3, 4), device=device).to(torch.float8_e4m3fn)
        self.assertEqual(nn.Flatten(1)(x).shape, (2, 12))
"""
CASES_FILE = "torch/testing/_internal/common_nn_cases.py"
CASES = (
    '"""Generated upstream fixture (oot-ci): shapes device tests share."""\n\n{name} = ((4, 6), (2, 3, 6))\n'
)
DRIFT_FILE = "test/nn/test_normalization_device.py"
DRIFT_INSTANTIATE = "\n\ninstantiate_device_type_tests(TestNormalizationDevice, globals())"
DRIFT_IMPORT = "from torch.testing._internal.common_nn_cases import norm_shapes\n"
DRIFT_TEST = """
    @dtypes(torch.float32)
    def test_layer_norm_shared_shapes(self, device, dtype):
        for shape in norm_shapes:
            m = nn.LayerNorm(shape[-1])
            x = make_tensor(shape, dtype=dtype, device="cpu", low=-2, high=2)
            self.assertEqual(copy.deepcopy(m).to(device)(x.to(device)).cpu(), m(x))
"""
UTILS_FILE = "torch/testing/_internal/common_utils.py"
HW_CLASSIFICATION = HERE / "harness" / "hw_classification.py.in"
MOVED_FROM = '''class TestElementwiseCastDevice(TestCase):
    hw_classification = "GENERIC"'''
MOVED_TO = """class TestElementwiseCastDevice(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR"""
UTILS_IMPORT = "from torch.testing._internal.common_utils import TestCase, run_tests"
CLASSIFY_SUBJECT = "Hardware classification: TestElementwiseCastDevice is ACCELERATOR (#90006)"
CAPABILITY_SUBJECT = "Capability gating for device-generic tests (#90003)"
CASES_SUBJECT = "common_nn_cases: shapes shared by nn device tests (#90004)"
RENAME_SUBJECT = "common_nn_cases: norm_shapes -> norm_shapes_and_refs (#90005)"


def _harness_commits(torch_dir: Path, base: dict, elementwise: str) -> dict[int, tuple[str, dict]]:
    """Position on main -> (subject, files) of the four harness commits (point 7); `elementwise`:
    that file as NEW_CLASS_AT left it."""
    cdt = (torch_dir / "testing" / "_internal" / "common_device_type.py").read_text()
    utils = (torch_dir / "testing" / "_internal" / "common_utils.py").read_text()
    if elementwise.count(MOVED_FROM) != 1 or elementwise.count(UTILS_IMPORT) != 1:
        raise RuntimeError(f"fixture/base/{NEW_CLASS_FILE} lost the class the classification commit moves")
    moved = elementwise.replace(MOVED_FROM, MOVED_TO).replace(
        UTILS_IMPORT, UTILS_IMPORT.replace("import TestCase", "import HardwareClassification, TestCase")
    )
    flatten_test, norm = base[REGRESSED_TEST], base[DRIFT_FILE]
    if flatten_test.count(CDT_IMPORT) != 1 or norm.count(DRIFT_INSTANTIATE) != 1:
        raise RuntimeError("fixture/base/test/nn lost the lines the harness commits edit")
    gated = flatten_test.replace(CDT_IMPORT, GATED_IMPORT).replace(
        INSTANTIATE, GATED_TEST.rstrip("\n") + "\n" + INSTANTIATE
    )
    drifting = norm.replace(
        "from torch.testing._internal.common_utils",
        DRIFT_IMPORT + "from torch.testing._internal.common_utils",
    )
    drifting = drifting.replace(DRIFT_INSTANTIATE, DRIFT_TEST.rstrip("\n") + "\n" + DRIFT_INSTANTIATE)
    return {
        CAPABILITY_AT: (
            CAPABILITY_SUBJECT,
            {HARNESS_FILE: cdt + CAPABILITY_GATING.read_text(), REGRESSED_TEST: gated},
        ),
        CASES_AT: (CASES_SUBJECT, {CASES_FILE: CASES.format(name="norm_shapes"), DRIFT_FILE: drifting}),
        CLASSIFY_AT: (
            CLASSIFY_SUBJECT,
            {UTILS_FILE: utils + HW_CLASSIFICATION.read_text(), NEW_CLASS_FILE: moved},
        ),
        RENAME_AT: (RENAME_SUBJECT, {CASES_FILE: CASES.format(name="norm_shapes_and_refs")}),
    }


# A commit adding a test class to a configured file (unlisted tests run there).
NEW_CLASS_FILE = "test/test_elementwise_device.py"
ELEMENTWISE_INSTANTIATE = "\n\ninstantiate_device_type_tests(TestElementwiseDevice, globals())"
NEW_CLASS = """


class TestElementwiseExtrasDevice(TestCase):
    hw_classification = "ACCELERATOR"

    @dtypes(torch.float32)
    def test_neg_matches_cpu(self, device, dtype):
        a = make_tensor((5, 3), dtype=dtype, device="cpu")
        self.assertEqual((-a.to(device)).cpu(), -a)

    @dtypes(torch.float32)
    def test_sum_in_float64_matches_cpu(self, device, dtype):
        a = make_tensor((5, 3), dtype=dtype, device="cpu")
        self.assertEqual(a.to(device).double().sum().cpu(), a.double().sum())


instantiate_device_type_tests(TestElementwiseExtrasDevice, globals())"""


# The native-only pull request (branch NATIVE_BRANCH at `base`): C++ a Python overlay cannot apply.
NATIVE_BRANCH = "native-flatten-kernel"
NATIVE_PR_NUMBER = 90002
NATIVE_SUBJECT = f"Flatten: a kernel of its own for contiguous inputs (#{NATIVE_PR_NUMBER})"
NATIVE_PR = {
    "aten/src/ATen/native/Flatten.h": (
        "#pragma once\n// Generated upstream fixture: a kernel declaration no wheel holds.\n"
        "namespace at::native {\nint64_t flatten_fixture_dims(int64_t start, int64_t end);\n}\n"
    ),
    "aten/src/ATen/native/Flatten.cpp": (
        '#include "Flatten.h"\n// Generated upstream fixture: native code, only a build would apply it.\n'
        "namespace at::native {\nint64_t flatten_fixture_dims(int64_t start, int64_t end) {\n"
        "  return end - start + 1;\n}\n}\n"
    ),
}


@dataclass(frozen=True)
class Fixture:
    url: str
    base: str
    head: str
    seeded: str  # the commit that regresses (bisection must name it)
    configs: Path
    baseline_event: Path  # push of `base` to main
    event: Path  # the PR dispatch naming `head`
    native_pr: str = ""  # the native-only PR's head (branched at `base`)
    native_event: Optional[Path] = None  # its PR dispatch
    index: Optional[Path] = None  # the local nightly index (a find-links directory)


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def fixture_version(torch_version: str) -> str:
    """'2.13.0+cpu' -> '2.13.0a0', as version.txt reads on that release branch."""
    return torch_version.split("+")[0] + "a0"


COMMITS = 32
SEEDED = 21  # 1-based position of the regression: not the last, not next to the base
NEW_CLASS_AT = 10  # 1-based position of the commit adding TestElementwiseExtrasDevice
NEW_CLASS_SUBJECT = "test_elementwise_device: TestElementwiseExtrasDevice (#90000)"
# upstream's harness moving (point 7 above): not multiples of 3, so flatten.py's history is unchanged
CAPABILITY_AT, CASES_AT, CLASSIFY_AT, RENAME_AT = 14, 16, 17, 26
FILLER_FILE = "torch/_fixture_changes.py"
REGRESSION_SUBJECT = "nn.Flatten: flatten from dim 0 by default (#90001)"
# 1-based positions on main of the nightly index's wheels: one before the regression, one after
# it (the head dispatch's nearest: its core holds the regression, as a real nightly would)
NIGHTLIES_AT = (12, 24)


def _filler(i: int, flatten: str) -> tuple[str, dict]:
    """Landed change number i: a line in a core module of its own, and every third one a
    comment at the end of flatten.py (a suspect for attribution, harmless to the tests)."""
    notes = "".join(f"# landed change {k}\n" for k in range(2, i + 1))
    files = {FILLER_FILE: f'"""Changes the generated upstream landed."""\n{notes}'}
    if i % 3 == 0:
        files[CORE_FILE] = flatten + f"# touched by change {i}\n"
    return f"Refactor step {i}: tidy internals (#{90100 + i})", files


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
    elementwise = base[NEW_CLASS_FILE]
    if elementwise.count(ELEMENTWISE_INSTANTIATE) != 1:
        raise RuntimeError(f"fixture/base/{NEW_CLASS_FILE} lost its instantiate_device_type_tests line")
    new_class = {
        NEW_CLASS_FILE: elementwise.replace(ELEMENTWISE_INSTANTIATE, ELEMENTWISE_INSTANTIATE + NEW_CLASS)
    }
    out = [("Release base: the files of the pinned wheel", base)]
    flatten = wheel_file
    harness = _harness_commits(torch_dir, base, new_class[NEW_CLASS_FILE])
    for i in range(2, COMMITS + 1):
        if i in harness:
            out.append(harness[i])
            test_file = harness[i][1].get(REGRESSED_TEST, test_file)  # the seeded commit builds on it
            continue
        if i == NEW_CLASS_AT:
            out.append((NEW_CLASS_SUBJECT, new_class))
            continue
        if i == SEEDED:
            flatten = flatten.replace(GOOD, BAD)
            test = test_file.replace(INSTANTIATE, NEW_TEST.rstrip("\n") + "\n" + INSTANTIATE)
            out.append((REGRESSION_SUBJECT, {REGRESSED_TEST: test, CORE_FILE: flatten}))
            continue
        subject, files = _filler(i, flatten)
        flatten = files.get(CORE_FILE, flatten)
        out.append((subject, files))
    return out


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


def _native_event(base: str, head: str) -> dict:
    """The native-only PR's synchronize dispatch (base..head is its own diff)."""
    pr = json.loads((EXAMPLES / "pull_request_synchronize.json").read_text())
    cp = pr["client_payload"]
    cp["delivery_id"] = f"fixture-native-pr-{head[:12]}"
    cp["payload"].update(before=base, after=head, number=NATIVE_PR_NUMBER)
    cp["payload"]["pull_request"].update(number=NATIVE_PR_NUMBER, title=NATIVE_SUBJECT)
    cp["payload"]["pull_request"]["head"]["sha"] = head
    cp["payload"]["pull_request"]["base"]["sha"] = base
    return pr


KEY_FILE = "oot-fixture.key"  # inside the bare repo: the content it was built from


def _built_shas(bare: Path, key: str, env: Mapping[str, str]) -> Optional[list[str]]:
    """The SHAs of a repository already built from this exact content, else None."""
    try:
        if (bare / KEY_FILE).read_text() != key:
            return None
    except OSError:
        return None
    r = git(["rev-list", "--reverse", "main"], cwd=bare, env=env, check=False)
    shas = r.stdout.split()
    return shas if r.returncode == 0 and len(shas) == COMMITS else None


def generate(
    dest: Path, torch_dir: Path, torch_version: str, env: Mapping[str, str], nightlies: bool = False
) -> Fixture:
    """Build the repository under `dest` (same content gives the same SHAs), or reuse the one
    built from this content before: ~130 git processes saved on every later run. `nightlies`:
    also the nightly index (two restamped copies of the wheel, ~1.4 GB, ~20 s once per state dir;
    the embedded default's, not every test's)."""
    dest.mkdir(parents=True, exist_ok=True)
    data = commits(torch_dir, torch_version)
    native = [(NATIVE_SUBJECT, NATIVE_PR)]
    key = hashlib.sha256(json.dumps([EPOCH, IDENTITY, data, native], sort_keys=True).encode()).hexdigest()
    bare = dest / "pytorch.git"
    shas = _built_shas(bare, key, env)
    if shas is None:
        new = dest / f".pytorch.git.{os.getpid()}"
        shas = build_repo(new, data, env)
        add_branch(new, NATIVE_BRANCH, shas[0], native, env)
        (new / KEY_FILE).write_text(key)
        shutil.rmtree(bare, ignore_errors=True)
        os.replace(new, bare)
    native_head = git(["rev-parse", f"refs/heads/{NATIVE_BRANCH}"], cwd=bare, env=env).stdout.strip()
    push, pr = _events(shas[0], shas[-1])
    write_json(dest / "baseline_dispatch.json", push, sort_keys=True, durable=True)
    write_json(dest / "dispatch.json", pr, sort_keys=True, durable=True)
    write_json(
        dest / "native_dispatch.json", _native_event(shas[0], native_head), sort_keys=True, durable=True
    )
    index = nightlies and make_index(
        dest / "nightly-index",
        torch_dir,
        torch_version,
        [(i, shas[i - 1]) for i in NIGHTLIES_AT],
        lambda commit: _core_python_at(bare, commit, env),
        hashlib.sha256(f"{key}\0{(torch_dir / 'version.py').read_text()}\0{torch_dir}".encode()).hexdigest(),
    )
    return Fixture(
        file_url(bare),
        shas[0],
        shas[-1],
        shas[SEEDED - 1],
        CONFIGS,
        dest / "baseline_dispatch.json",
        dest / "dispatch.json",
        native_head,
        dest / "native_dispatch.json",
        index or None,
    )


def _core_python_at(bare: Path, commit: str, env: Mapping[str, str]) -> dict[str, bytes]:
    """The core Python files (torch/**/*.py) of the fixture at `commit`: what a nightly built
    there holds over the pinned wheel's."""
    names = git(["ls-tree", "-r", "--name-only", commit, "torch/"], cwd=bare, env=env).stdout.split()
    return {
        n: git(["show", f"{commit}:{n}"], cwd=bare, env=env).stdout.encode()
        for n in names
        if n.endswith(".py")
    }
