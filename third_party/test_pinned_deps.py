"""The pinned dependencies are the ones Bazel runs with, and nothing leaks from the host."""

import os
import pathlib
import re
import sys

import torch

# The lock this build selected (the pinned core, or the next one under --config=torch-2.14.1).
LOCK = pathlib.Path(os.environ.get("ACTIVE_LOCK", "third_party/requirements_lock.txt"))
LOCKS = sorted(pathlib.Path("third_party").glob("requirements*_lock.txt"))


def pinned(name: str) -> str:
    match = re.search(rf"^{re.escape(name)}==(\S+)", LOCK.read_text(), re.MULTILINE)
    assert match, f"{name} is not pinned in {LOCK}"
    return match.group(1)


def test_torch_is_the_pinned_build():
    # A pin without a local tag (torch==2.14.1) admits the wheel's own (2.14.1+cu130).
    want = pinned("torch")
    assert torch.__version__ == want or ("+" not in want and torch.__version__.split("+")[0] == want)
    assert not torch.cuda.is_available()


def test_torch_computes():
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    assert torch.equal(x + x, x * 2)
    assert torch.from_numpy(x.numpy()).sum().item() == 15.0


def test_packages_come_from_the_pinned_site_dir():
    import numpy
    import requests
    import yaml

    for module in (torch, numpy, yaml, requests):
        assert re.search(r"/pydeps(_\w+)?/site/", module.__file__), module.__file__
    assert numpy.__version__ == pinned("numpy")


def test_host_site_packages_are_not_on_path():
    assert sys.version_info[:2] == (3, 11)
    assert not [p for p in sys.path if p.rstrip("/").endswith("site-packages")], sys.path


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_direct_requirement_is_locked():
    wanted = set()
    for line in pathlib.Path("third_party/requirements.in").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            wanted.add(normalise(re.split(r"[=<>!~\[]", line)[0]))
    locked = {normalise(m) for m in re.findall(r"^([A-Za-z0-9_.-]+)==", LOCK.read_text(), re.MULTILINE)}
    assert wanted <= locked, sorted(wanted - locked)


def test_locks_name_no_index_of_this_machine():
    """Indexes and wheel dirs come from each machine's pip configuration, never a lock."""
    assert len(LOCKS) == 2, LOCKS
    for lock in LOCKS:
        options = [line for line in lock.read_text().splitlines() if line.startswith("-")]
        assert options == [], (lock, options)
