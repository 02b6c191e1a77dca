"""Print the upstream commit the pinned PyTorch core was built from.

Nightly/periodic self-reports (§2.7) use it as their delivery_id.
    tools/bazel run //crcr:core_sha
"""

from __future__ import annotations

import sys

from crcr.callback_client.refs import check_sha
from testing.results.cliargs import Parser


def main(argv: list[str] | None = None) -> int:
    Parser(prog="core_sha", description=__doc__.split("\n\n")[0]).parse_args(argv)
    import torch  # imported here: it takes seconds and only this tool needs it

    try:
        print(check_sha(torch.version.git_version))
    except ValueError:
        print(f"core_sha: torch {torch.__version__} has no 40-hex git_version", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
