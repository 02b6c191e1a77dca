"""The config format's models, defined in testing/config/models.py (the config contract).

Re-exported under this name for the plugin's callers (tools/select imports them from here).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from testing.config.models import *  # noqa: F401,F403
