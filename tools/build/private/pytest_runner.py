"""Entry point of every py_pytest target: pytest with Bazel's test conventions."""

import os
import sys

import pytest


def bazel_args() -> list[str]:
    """Arguments that map Bazel's test environment onto pytest."""
    args = ["-p", "no:cacheprovider", "-q", "--rootdir", os.getcwd()]
    xml = os.environ.get("XML_OUTPUT_FILE")
    if xml:
        args += ["--junitxml", xml]
    tmp = os.environ.get("TEST_TMPDIR")
    if tmp:
        args += ["--basetemp", os.path.join(tmp, "pytest")]
    return args


def main() -> int:
    # Bazel leaves HOME unset; libraries that cache under ~ get the test's tmp dir.
    if "TEST_TMPDIR" in os.environ:
        os.environ.setdefault("HOME", os.environ["TEST_TMPDIR"])
    # The runner's own directory comes first on sys.path, where its modules could shadow
    # packages; drop it unless a py_library declared it as an import root (imports=["."]).
    here = os.path.dirname(os.path.abspath(__file__))
    roots = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    if here not in roots:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p) != here]
    return pytest.main(bazel_args() + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
