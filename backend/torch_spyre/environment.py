"""Validation of the SPYRE_* environment variables, at import time.

The C++ side must not throw where it reads them (deviceCount is noexcept) and
falls back to defaults; a typo should not silently become "1 device" or
"fallback off", so the package rejects bad values with a one-line error.
"""

from __future__ import annotations

import os
import re
from typing import Mapping, NamedTuple

MAX_DEVICES = 64  # the limit SpyreDevice.cc accepts
FAULT_KINDS = ("hang", "corrupt", "error", "held")  # csrc/runtime/SpyreFaults.h
_FAULT = re.compile(r"(?P<kind>[a-z]+):(?P<device>\d+)(?:@(?P<after>\d+))?")


class Fault(NamedTuple):
    """One injected fault of SPYRE_FAULTS: `kind:device[@after]`."""

    kind: str
    device: int
    after: int  # ops on the device that run normally first


def parse_faults(value: str, device_count: int) -> list[Fault]:
    """SPYRE_FAULTS as typed values; a one-line ValueError names the bad item."""
    faults = []
    for item in filter(None, value.split(",")):
        match = _FAULT.fullmatch(item.strip())
        if match is None or match["kind"] not in FAULT_KINDS:
            raise ValueError(
                f"SPYRE_FAULTS: bad item {item!r}: expected kind:device[@after] with kind one of "
                + ", ".join(FAULT_KINDS)
            )
        device = int(match["device"])
        if device >= device_count:
            raise ValueError(
                f"SPYRE_FAULTS: {item!r} names device {device}, but there are {device_count} "
                "(set SPYRE_DEVICE_COUNT)"
            )
        faults.append(Fault(match["kind"], device, int(match["after"] or 0)))
    return faults


def check_environment(environ: Mapping[str, str]) -> None:
    count = environ.get("SPYRE_DEVICE_COUNT", "")
    if count and not (count.isdigit() and 0 <= int(count) <= MAX_DEVICES):
        raise ValueError(f"SPYRE_DEVICE_COUNT must be an integer from 0 to {MAX_DEVICES}, got {count!r}")
    for flag in ("SPYRE_CPU_FALLBACK", "SPYRE_TRACE"):
        value = environ.get(flag, "")
        if value not in ("", "0", "1"):
            raise ValueError(f"{flag} must be 0 or 1, got {value!r}")
    physical = int(count) if count else 1
    parse_faults(environ.get("SPYRE_FAULTS", ""), physical)
    visible = environ.get("SPYRE_VISIBLE_DEVICES")
    if visible is not None and not all(v.isdigit() and int(v) < physical for v in visible.split(",")):
        raise ValueError(
            f"SPYRE_VISIBLE_DEVICES must list device numbers below SPYRE_DEVICE_COUNT ({physical}), "
            f"got {visible!r}"
        )
    lock_dir = environ.get("SPYRE_STATE_DIR", "")
    if lock_dir and not os.path.isdir(lock_dir):
        raise ValueError(f"SPYRE_STATE_DIR is not a directory: {lock_dir}")
