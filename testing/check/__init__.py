"""`check`: validate configs with every rule the adaptation plugin applies (README.md, "check").

check.py (config sets, the plugin's collection per set, findings), report.py (text and
JSON, exit codes), collect.py (the plugin loaded into that collection), cli.py (the command).
"""
