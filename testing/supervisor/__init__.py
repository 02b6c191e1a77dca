"""Crash-restart supervision shared by --isolate, the shard runner and select's tracing, and
the one fork server (the handler's warm interpreter).

events.py (the typed protocol), supervisor.py (the restart loop), children.py
(forked and spawned children), forksafety.py (when fork is safe), zygote.py and
pytest_events.py (the pytest glue), forkserver.py (forks on request). See README.md here
and testing/README.md "Crash isolation".

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""
