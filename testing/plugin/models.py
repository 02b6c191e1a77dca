"""The config format's models, defined in testing/config/models.py (the config contract).

Re-exported under this name for the plugin's callers (tools/select imports them from here).
"""

from testing.config.models import *  # noqa: F401,F403
