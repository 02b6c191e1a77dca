"""Test-type labels: which configs and entries a run uses.

A run may name a test type (``--oot-test-type`` or ``$OOT_TEST_TYPE``, e.g.
``smoke``). Suite ``labels`` and entry ``labels`` are compared with it; with
no test type, labels change nothing. Pure: no torch, no pytest hooks.
config.py applies these while it builds a plan; plugin.py resolves the test
type.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Mapping, Optional, Sequence

from testing.config.modes import Mode

if TYPE_CHECKING:
    from testing.config.models import TestEntry

ENV = "OOT_TEST_TYPE"


@functools.cache
def _name_adapter():
    # pydantic is imported here, not at module level: most runs name no test type.
    from pydantic import TypeAdapter

    from testing.config.models import Name

    return TypeAdapter(Name)


def resolve_test_type(option: Optional[str], environ: Mapping[str, str]) -> Optional[str]:
    """The option, else $OOT_TEST_TYPE; None (no label filtering) when the option
    is not given and the variable is unset or empty.

    Raises ValueError when the value is not a valid label name (models.Name).
    """
    value = option if option is not None else (environ.get(ENV) or None)
    if value is None:
        return None
    from pydantic import ValidationError

    try:
        return _name_adapter().validate_python(value)
    except ValidationError as err:
        raise ValueError(f"{value!r} can never be a label: {err.errors()[0]['msg'].lower()}") from None


def applies(labels: Sequence[str], test_type: Optional[str]) -> bool:
    """True when no test type is set, there are no labels, or the labels name the test type."""
    return not test_type or not labels or test_type in labels


def suite_left_out(labels: Sequence[str], has_files: bool, test_type: Optional[str]) -> bool:
    """A config listing files whose suite labels exclude the test type contributes
    none of its file entries; a config without files (device-wide settings) always applies."""
    return has_files and not applies(labels, test_type)


def entry_for_test_type(entry: TestEntry, test_type: Optional[str]) -> TestEntry:
    """The entry as this run uses it: one whose labels exclude the test type
    becomes a skip entry, so the variants it governs are never generated."""
    if applies(entry.labels, test_type):
        return entry
    reason = f"labels {list(entry.labels)} exclude test type '{test_type}'"
    return entry.model_copy(update={"mode": Mode.skip, "reason": reason})
