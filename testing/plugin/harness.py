"""The harness a run adapts: which ``common_device_type`` loaded (the wheel's, or the one an
upstream overlay brings at the dispatched SHA), and whether it still has the shape the patch
adapter (instantiate.py) relies on.

Upstream's harness moves. When a piece the patches wrap is gone or changed its signature, the
patches are not installed at all (half-patched generation would be worse than none): one line
names the missing pieces, torch's own test-reuse settings (the native adapter) still apply
where the core has them, and the run's summary says which harness its results ran against.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable, Optional


def _classmethod_with(base_name: str, name: str, keyword: str = "") -> Callable[[ModuleType], bool]:
    def ok(cdt: ModuleType) -> bool:
        base = getattr(cdt, base_name, None)
        member = base.__dict__.get(name) if isinstance(base, type) else None
        if not isinstance(member, classmethod):
            return False
        return not keyword or keyword in inspect.signature(member.__func__).parameters

    return ok


def _callable(name: str) -> Callable[[ModuleType], bool]:
    return lambda cdt: callable(getattr(cdt, name, None))


# What the patch adapter wraps or calls, with the shape it needs.
PIECES: tuple[tuple[str, Callable[[ModuleType], bool]], ...] = (
    (
        "DeviceTypeTestBase.instantiate_test(..., generic_cls=)",
        _classmethod_with("DeviceTypeTestBase", "instantiate_test", "generic_cls"),
    ),
    ("DeviceTypeTestBase._get_dtypes", _classmethod_with("DeviceTypeTestBase", "_get_dtypes")),
    ("instantiate_device_type_tests", _callable("instantiate_device_type_tests")),
    ("get_desired_device_type_test_bases", _callable("get_desired_device_type_test_bases")),
    ("_dtype_test_suffix", _callable("_dtype_test_suffix")),
    ("PrivateUse1TestBase", lambda cdt: isinstance(getattr(cdt, "PrivateUse1TestBase", None), type)),
)


def missing(cdt: ModuleType) -> list[str]:
    """The pieces the patch adapter needs that this harness lacks (or has in another shape)."""
    return [name for name, ok in PIECES if not ok(cdt)]


@dataclass
class HarnessReport:
    """The harness the run's results ran against (the summary's ``harness``)."""

    file: str  # common_device_type.py as loaded (real path: an overlay's own copy, or the wheel's)
    torch: str  # the core's version (and its git_version)
    missing: list[str] = field(default_factory=list)
    native: bool = False  # torch's own settings still apply (the native adapter)

    @property
    def adapted(self) -> bool:
        return not self.missing

    def line(self) -> str:
        if self.adapted:
            return f"oot harness: {self.file} (torch {self.torch}): adapted"
        rest = (
            "torch's own test-reuse settings only (native adapter)" if self.native else "tests run unadapted"
        )
        return (
            f"oot harness: {self.file} (torch {self.torch}) lacks {', '.join(self.missing)}: "
            f"the patch adapter cannot adapt it; {rest}"
        )

    def as_json(self) -> dict:
        return {
            "file": self.file,
            "torch": self.torch,
            "missing": list(self.missing),
            "native": self.native,
            "adapted": self.adapted,
            "line": self.line(),
        }


def report_of(cdt: ModuleType, torch_version: str, git_version: Optional[str]) -> HarnessReport:
    path = getattr(cdt, "__file__", None) or cdt.__name__
    version = torch_version + (f", {git_version[:12]}" if git_version and git_version != "Unknown" else "")
    return HarnessReport(os.path.realpath(path) if os.path.exists(path) else path, version, missing(cdt))
