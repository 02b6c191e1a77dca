"""A pytest child of the shard runner: `python -m tools.shard.child <pytest args>`.

The runner follows the child through its journal (`--shard-journal=/dev/fd/N`). The
supervisor's Spawned also names that pipe in `$OOT_EVENTS_FD`, which the adaptation
plugin reads as "I am an isolation worker": it then leaves the JUnit XML to a supervising
pytest that does not exist here, and the merged report loses every testcase's properties
(op, dtype, module, rule: the warehouse's heat map). The child drops the variable and is
plain pytest otherwise (an `--isolate` leg still gets its own zygote or workers).
"""

import os
import sys

import pytest

from testing.supervisor.children import ENV_FD

if __name__ == "__main__":
    os.environ.pop(ENV_FD, None)
    sys.exit(pytest.main(sys.argv[1:]))
