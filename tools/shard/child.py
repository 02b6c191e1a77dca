"""A pytest child of the shard runner: `python -m tools.shard.child <pytest args>`.

The runner follows the child through its journal (`--shard-journal=/dev/fd/N`). The
supervisor's Spawned also names that pipe in `$OOT_EVENTS_FD`, which the adaptation
plugin reads as "I am an isolation worker": it then leaves the JUnit XML to a supervising
pytest that does not exist here, and the merged report loses every testcase's properties
(op, dtype, module, rule: the warehouse's heat map). The child drops the variable and is
plain pytest otherwise (an `--isolate` leg still gets its own zygote or workers).

It leaves without the interpreter's teardown: with torch loaded that takes 0.5 s of CPU (3 s
on a loaded host) after the last test, on every batch's and the collection's way out. Its
atexit handlers still run; the journal is flushed line by line and pytest's reports are
closed by then.
"""

import atexit
import os
import sys

import pytest

from testing.supervisor.children import ENV_FD

MODULE = "tools.shard.child"


def as_child(argv: list[str]) -> list[str]:
    """``python -m pytest ...`` (testing.config.runs spells it) as this module's command."""
    return [argv[0], "-m", MODULE, *argv[3:]]


if __name__ == "__main__":
    os.environ.pop(ENV_FD, None)
    code = pytest.main(sys.argv[1:])
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))
