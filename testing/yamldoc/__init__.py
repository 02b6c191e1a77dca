"""YAML documents read one way everywhere: round trip (comments, quotes, key order kept) and
every problem at file:line. The config contract (testing/config) and the CRCR allowlist
(crcr/dispatch/allowlist.py) both read through it; see README.md.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""
