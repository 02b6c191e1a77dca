"""pytest plugin adapting PyTorch's device-generic tests to an out-of-tree backend.

Use ``pytest -p testing.plugin --config configs/<file>.yaml``; see testing/README.md.
Only plugin.py's hooks live here; each concern (adaptation, model-op cases, native xfail,
reporting, promotion, isolation) registers its own plugin from pytest_configure.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from testing.plugin.plugin import (  # noqa: F401  (hooks pytest discovers on this module)
    pytest_addoption,
    pytest_configure,
    pytest_unconfigure,
)
