"""Device restrictions upstream tests declare, judged for the device the config is for (pure).

``@onlyCPU``, ``@onlyOn(...)``, ``@onlyNativeDeviceTypes`` and friends raise SkipTest on any
other device at run time, and ``instantiate_device_type_tests(only_for=..., except_for=...)``
never generates the class for it: a CPU trace passes, yet on the device the test never runs.
Stage 3 buckets such tests as the plugin will run them: ``skip``, saying which decorator, unless
the entry relaxes the restriction (``relax_device_restrictions``), which generated configs never do.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

# decorator -> the device types it runs on ("*native*": torch's NATIVE_DEVICES, which a
# privateuse1 backend imported after torch's test utilities is not part of)
_ONLY = {
    "onlyCPU": ("cpu",),
    "onlyCUDA": ("cuda",),
    "onlyMPS": ("mps",),
    "onlyXPU": ("xpu",),
    "onlyHPU": ("hpu",),
    "onlyNativeDeviceTypes": ("*native*",),
    "onlyCUDAAndPRIVATEUSE1": ("cuda", "privateuse1"),
    "onlyPRIVATEUSE1": ("privateuse1",),
    "onlyAccelerator": ("*accelerator*",),
    "skipPRIVATEUSE1": ("*not-privateuse1*",),
}
_NAME = re.compile(r"^@?\s*([\w.]+)\s*(\((.*)\))?\s*$", re.S)
_STRINGS = re.compile(r"""['"]([\w:]+)['"]""")


def _base(decorator: str) -> tuple[str, str]:
    match = _NAME.match(decorator.strip())
    if not match:
        return "", ""
    return match.group(1).rsplit(".", 1)[-1], match.group(3) or ""


def _runs_on(kind: str, args: str, device: str) -> bool:
    device_names = {device, "privateuse1"}
    if kind == "onlyOn":
        return bool(set(_STRINGS.findall(args)) & device_names)
    if kind == "onlyNativeDeviceTypesAnd":
        return bool(set(_STRINGS.findall(args)) & device_names)
    allowed = _ONLY[kind]
    if allowed == ("*accelerator*",):
        return True
    if allowed == ("*not-privateuse1*",):
        return False
    return bool(set(allowed) & device_names)


def _spelled(kind: str, args: str) -> str:
    return f"@{kind}({args})" if args else f"@{kind}"


def blocking(decorators: Iterable[str], class_restrictions: Mapping | None, device: str) -> str | None:
    """Why the test never runs on ``device``, or None when nothing restricts it."""
    for decorator in decorators:
        kind, args = _base(decorator)
        if kind in _ONLY or kind in ("onlyOn", "onlyNativeDeviceTypesAnd"):
            if not _runs_on(kind, args, device):
                return (
                    f"{_spelled(kind, args)} makes it skip itself on {device} "
                    "(relax_device_restrictions would run it anyway)"
                )
    restrictions = class_restrictions or {}
    names = {device, "privateuse1"}
    only_for, except_for = restrictions.get("only_for") or [], restrictions.get("except_for") or []
    if only_for and not set(only_for) & names:
        return f"its class is instantiated only for {', '.join(only_for)} (only_for), never for {device}"
    if set(except_for) & names:
        return f"its class is instantiated except_for {', '.join(except_for)}, which leaves out {device}"
    return None
