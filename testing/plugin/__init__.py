"""pytest plugin adapting PyTorch's device-generic tests to an out-of-tree backend.

Use ``pytest -p testing.plugin --config configs/<file>.yaml``; see testing/README.md.
Only plugin.py's hooks live here; reporting and isolation register their own
plugin objects from pytest_configure.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from testing.plugin.plugin import (  # noqa: F401  (hooks pytest discovers on this module)
    pytest_addoption,
    pytest_collection,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_ignore_collect,
    pytest_pycollect_makemodule,
    pytest_report_header,
    pytest_runtest_makereport_model_case,
    pytest_runtest_makereport_native_xfail,
    pytest_unconfigure,
)
