"""Crash-restart supervision shared by --isolate, the shard runner and select's tracing.

events.py (the typed protocol), supervisor.py (the restart loop), children.py
(forked and spawned children), forksafety.py (when fork is safe), zygote.py and
pytest_events.py (the pytest glue). See testing/README.md "Crash isolation".

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""
