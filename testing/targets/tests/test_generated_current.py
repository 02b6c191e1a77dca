"""configs.bzl must match configs/: fails when a config edit was not regenerated."""

import os
from pathlib import Path

from testing.targets import generate


def source_root() -> Path:
    """The real source tree: under Bazel, runfiles are symlinks into it, and the
    whole configs/ directory (not only the files listed so far) must be seen."""
    return Path(os.path.realpath(generate.OUTPUT)).parents[2]


def test_generated_targets_match_configs():
    diff = generate.stale_diff(source_root())
    assert not diff, f"{generate.OUTPUT} is stale; run: tools/bazel run //testing/targets:generate\n{diff}"
