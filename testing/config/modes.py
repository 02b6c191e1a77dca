"""The outcome buckets a config sorts test variants into.

Apart from the models (models.py re-exports it) so that code deciding on buckets
needs no pydantic: a run given no config never imports the models
(testing/README.md "Start-up cost").
"""

from __future__ import annotations

from enum import Enum


class Mode(str, Enum):
    """The bucket a test variant lands in."""

    mandatory_success = "mandatory_success"
    xfail = "xfail"
    xfail_strict = "xfail_strict"
    skip = "skip"
