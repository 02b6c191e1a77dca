"""pytorch main's dtype-level ``test_exclusions`` on the pinned 2.13.0 core, for the parity
test of the native adapter's use of that form (no wheel we can pin has it yet).

As upstream's "Test Suite Reuse" page documents it: ``{"TestClass": {"test_x": {"dtypes":
[torch.float32]}}}`` excludes those dtype variants of ``test_x`` (a tuple variant when any of
its dtypes is listed); the list and ``"*"`` forms are unchanged. Loaded with ``-p`` before the
plugin, so the plugin's probe and patches see it as the core's own behaviour.
"""

import torch.testing._internal.common_device_type as cdt

_base = cdt.DeviceTypeTestBase
_get = _base.__dict__["_get_test_exclusions"].__func__
_instantiate = _base.__dict__["instantiate_test"].__func__


def _get_test_exclusions(cls, test_class_name):
    found = _get(cls, test_class_name)
    return [] if isinstance(found, dict) else found  # dtype-level: no whole test is excluded


def _instantiate_test(cls, name, test, *, generic_cls=None):
    found = _get(cls, generic_cls.__name__) if generic_cls is not None else []
    listed = (found.get(name) or {}).get("dtypes", ()) if isinstance(found, dict) else ()
    before = set(cls.__dict__)
    _instantiate(cls, name, test, generic_cls=generic_cls)
    names = {str(d).removeprefix("torch.") for d in listed}
    for attr in set(cls.__dict__) - before if names else ():
        parts = attr.rsplit(f"_{cls.device_type}", 1)[-1].split("_")
        if names & set(parts):
            delattr(cls, attr)


_base._get_test_exclusions = classmethod(_get_test_exclusions)
_base.instantiate_test = classmethod(_instantiate_test)
