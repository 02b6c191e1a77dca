"""What a leg's result depends on, as one key (pure): a green leg stored under the same key
is reused instead of run again (crcr/handler/reuse.py, crcr/warehouse/reuse.py).

Exact by construction: the backend (its commit, or a content hash of uncommitted edits), the
resolved core (the base wheel's origin and commit, the overlay's content, what it did not apply,
the leg's own import check), the suite (the content of the leg's upstream test files, their
sibling modules and the conftest.py files above them), every config file's content, the change-aware selection, and how the leg runs
(runner, smoke slice, -m expression, command template). A changed input is a new key, so
the leg runs. Keyed on content, not commit ids: a PR that lands unchanged, a ciflow tag push
and a PR sync of the same head, or a commit that changes neither the core's Python nor the
leg's test files run the same tests on the same core, so they share a key (when their
change-aware selection is the same too). Inputs we cannot pin (a backend ref that is not a
commit, an unresolved core, an overlay file the checkout lacks) give no key: such a leg
always runs. Torch Spyre's tier-delta reuse (downstream-practice.md
§4) skipped configs already covered for a commit the same way.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from typing import Optional

_COMMIT = re.compile(r"^[0-9a-f]{40}(-dirty-[0-9a-f]{12})?$")


@dataclass(frozen=True)
class LegInputs:
    backend: str  # backend_id: a commit, or commit-dirty-<hash of the edits>
    core: str  # the resolved core (core_identity), "" = unknown
    suite: str  # content of the leg's upstream test files ("" = in-tree suites only)
    configs: tuple[tuple[str, str], ...]  # (workspace-relative path, sha256 of its content)
    selection: str  # the selection's JSON ("" = the whole leg)
    settings: str  # runner, smoke slice, -m expression, command template

    def key(self) -> Optional[str]:
        """The reuse key; None when an input is not pinned (the leg always runs)."""
        if not _COMMIT.match(self.backend) or not self.core:
            return None
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def core_identity(exactness, pinned: str, bazel_config: str = "", overlay: str = "") -> str:
    """The resolved core a leg runs on: another pinned core (`--config`), else the base wheel
    plus overlay (crcr/upstream/exactness.py; `overlay`: a digest of the Python files it lays
    over the wheel, crcr/upstream/overlay.py overlay_content), else the pinned wheel's version;
    "" when the core is unresolved (we do not know what the leg would run against).
    `exactness` is the leg's own (its test files' import check included), and the dispatched
    native files it leaves untested are part of it: they decide whether a success stands."""
    if bazel_config:
        return f"config:{bazel_config}"
    if exactness is None:
        return f"pinned:{pinned}" if pinned else ""
    if exactness.state == "unresolved":
        return ""
    return json.dumps(
        [
            exactness.state,
            exactness.origin,
            exactness.base,
            "" if exactness.no_overlay else overlay,
            list(exactness.native),
            exactness.failed_import,
            list(exactness.untested),
        ]
    )
