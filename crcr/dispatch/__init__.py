"""A dispatch, from the event to the legs: its validation (`event.py`), the allowlist
the relay reads (`allowlist.py`, its tool `allowlist_tool.py`) and the leg plan (`plan.py`)."""
