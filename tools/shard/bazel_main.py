"""Main of generated Bazel test targets: the shard runner under Bazel's conventions.

Arguments: [runner options] -- [pytest arguments]. Sharding comes from the
environment (TEST_TOTAL_SHARDS/TEST_SHARD_INDEX from Bazel, OOT_SHARD_* from a
CI leg); the merged JUnit XML goes to $XML_OUTPUT_FILE and the JSON summary
into the test's undeclared outputs.
"""

import os
import sys


def pytest_base_args() -> list[str]:
    """What every child pytest gets under Bazel (as the repo's py_pytest does)."""
    args = ["-p", "no:cacheprovider", "-q", "--rootdir", os.getcwd()]
    if os.environ.get("TEST_TMPDIR"):
        args += ["--basetemp", os.path.join(os.environ["TEST_TMPDIR"], "pytest")]
    return args


def main() -> int:
    # Bazel leaves HOME unset; libraries that cache under ~ get the test's tmp dir.
    if "TEST_TMPDIR" in os.environ:
        os.environ.setdefault("HOME", os.environ["TEST_TMPDIR"])
    # This file's directory comes first on sys.path; the workspace root must win.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p) != here]
    # Children are plain `python -m pytest`: give them the runfiles import roots.
    os.environ["PYTHONPATH"] = os.pathsep.join(sys.path)
    from tools.shard import runner

    argv = sys.argv[1:]
    ours, pytest_args = (
        (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else ([], argv)
    )
    return runner.main(ours + ["--"] + pytest_base_args() + pytest_args)


if __name__ == "__main__":
    sys.exit(main())
