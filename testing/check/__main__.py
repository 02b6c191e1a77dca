"""python3 -m testing.check [--strict] [--json] [PATH ...] (see cli.py)."""

import sys

from testing.check.cli import main

sys.exit(main())
