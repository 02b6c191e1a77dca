"""Dtype names as configs write them -> torch's own names.

torch gives several dtypes a second name (``torch.half is torch.float16``); Torch Spyre's
configs use them (``supported_dtypes: [{name: half}]``). Every dtype name a config holds is
resolved here, when the config is read, so every later check (a name torch does not know,
what the device supports) sees one spelling. No torch import: the table is checked against
torch's own attributes by testing/plugin/tests/test_device_support.py.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

# torch.<alias> is torch.<name>: every dtype attribute whose str() differs from its name.
TORCH_ALIASES = {
    "half": "float16",
    "float": "float32",
    "double": "float64",
    "short": "int16",
    "int": "int32",
    "long": "int64",
    "chalf": "complex32",
    "cfloat": "complex64",
    "cdouble": "complex128",
    "bit": "uint1",
}


def canonical(name: str) -> str:
    """'half', 'torch.half', 'torch.float16' -> 'float16'; any other name as written (bare)."""
    bare = name.strip().removeprefix("torch.")
    return TORCH_ALIASES.get(bare, bare)


DtypeName = Annotated[str, Field(min_length=1), AfterValidator(canonical)]
