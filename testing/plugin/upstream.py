"""Upstream mode: real PyTorch test files from a checkout (${TORCH_ROOT}), run unpatched.

The plugin needs nothing special to run them: the same instantiate_test glue
adapts them. This module only checks that the checkout matches the pinned
torch, because test files from a newer checkout may import names the wheel
lacks (configure those with ``collect: false`` and a reason).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
from typing import Optional


def checkout_version(root: str) -> Optional[str]:
    try:
        with open(os.path.join(root, "version.txt"), encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def release(version: str) -> tuple[str, ...]:
    """'2.13.0a0+git123' / '2.13.0+cpu' -> ('2', '13')."""
    return tuple(version.split("+")[0].split(".")[:2])


def header_lines(root: Optional[str]) -> list[str]:
    if not root:
        return []
    import torch

    found = checkout_version(root)
    if found is None:
        return [f"oot: upstream root {root} (no version.txt: is it a PyTorch checkout?)"]
    if release(found) != release(torch.__version__):
        return [
            f"oot: WARNING upstream checkout is {found} but torch is {torch.__version__}: "
            f"test files may import names this torch lacks (check out v{torch.__version__.split('+')[0]})"
        ]
    return [f"oot: upstream root {root} ({found}, matches torch {torch.__version__})"]
