"""Validation of the SPYRE_* environment variables, at import time.

The C++ side must not throw where it reads them (deviceCount is noexcept) and
falls back to defaults; a typo should not silently become "1 device" or
"fallback off", so the package rejects bad values with a one-line error.
"""

from __future__ import annotations

from typing import Mapping

MAX_DEVICES = 64  # the limit SpyreDevice.cc accepts


def check_environment(environ: Mapping[str, str]) -> None:
    count = environ.get("SPYRE_DEVICE_COUNT", "")
    if count and not (count.isdigit() and 0 <= int(count) <= MAX_DEVICES):
        raise ValueError(f"SPYRE_DEVICE_COUNT must be an integer from 0 to {MAX_DEVICES}, got {count!r}")
    for flag in ("SPYRE_CPU_FALLBACK", "SPYRE_TRACE"):
        value = environ.get(flag, "")
        if value not in ("", "0", "1"):
            raise ValueError(f"{flag} must be 0 or 1, got {value!r}")
