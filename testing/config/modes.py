"""The outcome buckets a config sorts test variants into.

Apart from the models (models.py re-exports it) so that code deciding on buckets
needs no pydantic: a run given no config never imports the models
(testing/README.md "Start-up cost").
"""

from __future__ import annotations

from enum import StrEnum


# The one spelling of the four modes for every tool (the plugin, the promotion edits,
# tools/select's verdicts and generated configs). A StrEnum, so a member compares, formats
# and serialises as its value. (The docstring is the JSON Schema's description.)
class Mode(StrEnum):
    """The bucket a test variant lands in."""

    mandatory_success = "mandatory_success"
    xfail = "xfail"
    xfail_strict = "xfail_strict"
    skip = "skip"
