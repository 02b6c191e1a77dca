"""configs.bzl must match configs/: fails when a config edit was not regenerated."""

import os
from pathlib import Path

from testing.targets import generate


def source_root() -> Path:
    """The real source tree: under Bazel, runfiles are symlinks into it, and the
    whole configs/ directory (not only the files listed so far) must be seen."""
    return Path(os.path.realpath(generate.OUTPUT)).parents[2]


def test_generated_targets_match_configs():
    root = source_root()
    current, fresh = generate.current_text(root), generate.render(generate.build(root))
    # the first line of the failure (printed by --test_output=errors) names the file and what changed
    assert current == fresh, generate.stale_line(current, fresh) + "\n" + generate.stale_diff(root, fresh)
