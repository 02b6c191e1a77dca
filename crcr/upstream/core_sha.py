"""Print the upstream commit the pinned PyTorch core was built from.

Nightly/periodic self-reports (§2.7) use it as their delivery_id.
    tools/bazel run //crcr:core_sha
"""

from __future__ import annotations

import sys

from crcr.callback_client.errors import KNOWN, ConfigError
from crcr.callback_client.refs import check_sha
from testing.base.cliargs import Parser
from testing.base.command import command


def core_sha() -> str:
    """The 40-hex commit of the installed torch, or a one-line ConfigError."""
    import torch  # imported here: it takes seconds and only this tool needs it

    try:
        return check_sha(torch.version.git_version)
    except ValueError:
        raise ConfigError(f"torch {torch.__version__} has no 40-hex git_version") from None


@command("core_sha", {KNOWN: 2}, prefix="core_sha: ")
def main(argv: list[str] | None = None) -> int:
    Parser(prog="core_sha", description=__doc__.split("\n\n")[0]).parse_args(argv)
    print(core_sha())
    return 0


if __name__ == "__main__":
    sys.exit(main())
