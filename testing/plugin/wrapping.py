"""What each generated method carries at run time: its marks and bucket (the Decision and
Variant it was generated with), per-dtype precision restored afterwards, sample-shape knobs,
relaxed device guards and cpu_move, all for that test only. instantiate.py wraps every
generated method with ``adapted``; the report hooks read the attributes back.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import Optional

from testing.config.modes import Mode
from testing.plugin.selection import Decision, Variant, marks_for

DECISION_ATTR = "_oot_decision"
VARIANT_ATTR = "_oot_variant"


def strict_xpass_text(fn) -> Optional[str]:
    """'[XPASS(strict)] <reason>' for a generated method in the xfail_strict bucket, else None."""
    from testing.results.outcomes import XPASS_STRICT_MARK

    d = getattr(fn, DECISION_ATTR, None)
    if d is None or d.mode != Mode.xfail_strict:
        return None
    return f"{XPASS_STRICT_MARK} {d.reason or ''}".rstrip()


def wrap_generated(fn, kwargs: dict, d: Decision, device: str, v: Variant, xfail_mark: bool = True):
    """Marks + bucket on the method; precision, sample-shape knobs and device relaxation at run time.
    xfail_mark False: torch's unittest.expectedFailure (native op_overrides) already makes it one."""
    import pytest

    call_kwargs = kwargs
    if d.shapes is not None and "op" in kwargs:
        from testing.plugin.samples import with_shapes

        call_kwargs = dict(kwargs, op=with_shapes(kwargs["op"], d.shapes))

    @functools.wraps(fn)
    def adapted(self):
        # precision is thread-local on torch's device test base, shared by every test: restored
        # after the test, or a bfloat16 variant's tolerance leaks into the float32 ones after it
        saved = self.precision, self.rel_tol
        for dtype, atol, rtol in d.precision:
            if dtype in v.dtypes:
                self.precision = max(self.precision, atol)
                self.rel_tol = max(self.rel_tol, rtol)
        try:
            with _relaxed(self, device) if d.relax else _nothing(), _cpu_moved(self, d.cpu_move):
                return fn(self, param_kwargs=call_kwargs) if call_kwargs is not kwargs else fn(self)
        finally:
            self.precision, self.rel_tol = saved

    marks = [getattr(pytest.mark, m) for m in marks_for(v, d) if m != "xfail"]
    if xfail_mark and d.mode in (Mode.xfail, Mode.xfail_strict):
        marks.append(pytest.mark.xfail(reason=d.reason or "", strict=d.mode == Mode.xfail_strict))
    adapted.pytestmark = list(getattr(fn, "pytestmark", [])) + marks
    setattr(adapted, DECISION_ATTR, d)
    setattr(adapted, VARIANT_ATTR, v)
    # functools.wraps left __wrapped__ (torch's generated method, which wraps the upstream test):
    # pytest unwraps it for the item's location, so reports name the upstream file and line
    return adapted


@contextmanager
def _nothing():
    yield


@contextmanager
def _cpu_moved(test_case, names: tuple[str, ...]):
    """edits.functions.cpu_move: these TestCase methods get every tensor argument moved to CPU
    first (nested in lists/dicts too), for this test only."""
    if not names:
        yield
        return
    import torch
    from torch.utils._pytree import tree_map

    def to_cpu(x):
        return x.cpu() if isinstance(x, torch.Tensor) else x

    for name in names:
        original = getattr(test_case, name, None)
        if not callable(original):
            raise AttributeError(
                f"edits.functions.cpu_move: {type(test_case).__name__} has no method '{name}'"
            )

        def moved(*args, _original=original, **kwargs):
            return _original(*tree_map(to_cpu, args), **tree_map(to_cpu, kwargs))

        setattr(test_case, name, moved)
    try:
        yield
    finally:
        for name in names:
            test_case.__dict__.pop(name, None)  # the class's method shows through again


@contextmanager
def _relaxed(test_case, device: str):
    """Let onlyOn/onlyCUDA and onlyNativeDeviceTypes run on this device, for this test only."""
    import torch.testing._internal.common_device_type as cdt

    native = cdt.NATIVE_DEVICES
    test_case.bypass_device_restrictions = True
    cdt.NATIVE_DEVICES = tuple(native) + (device,)
    try:
        yield
    finally:
        cdt.NATIVE_DEVICES = native
        test_case.bypass_device_restrictions = False
