"""`tools/bazel run //testing/targets:generate [-- --check]`: see generate.py."""

import os
import sys

# This file's directory comes first on sys.path; the workspace root must win.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p) != _here]

from testing.targets.generate import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
