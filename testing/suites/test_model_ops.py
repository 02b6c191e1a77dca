"""Model-op cases: the torch calls a real model makes, with its real input layouts, device vs CPU.

Written in upstream style: one ``@ops`` test, instantiated per device type. Its op list is
empty here; the adaptation plugin fills it per run with one OpInfo per model-op case of the
configs (configs/README.md, "Model-op cases"; testing/plugin/modelops.py builds them). Each
case's sample is built on CPU from a seeded generator with the recorded shape, stride and
storage offset, and the same storage copied to the device under test; the call runs on both
and the outputs are compared with the config's precision for the case's dtype. A numerical
mismatch raises ``Mismatch`` carrying the largest absolute and relative error (the per-model
report reads them); anything else that goes wrong is an ordinary failure.
"""

import torch
from torch.testing._comparison import default_tolerances
from torch.testing._internal.common_device_type import OpDTypes, instantiate_device_type_tests, ops
from torch.testing._internal.common_utils import TestCase, run_tests
from torch.utils._pytree import tree_flatten

model_ops_db = []  # filled per run by the adaptation plugin: one OpInfo per model-op case


class Mismatch(AssertionError):
    """Outputs differ beyond tolerance; `oot_mismatch` holds the errors for the report."""

    def __init__(self, message, max_abs, max_rel):
        super().__init__(message)
        self.oot_mismatch = {"max_abs_error": max_abs, "max_rel_error": max_rel}


def call(op, device, dtype):
    """(output, inputs) of the op on one side: its sample built for that device."""
    sample = next(iter(op.sample_inputs(device, dtype, requires_grad=False)))
    args = ([sample.input] if sample.input is not None else []) + list(sample.args)
    with torch.no_grad():
        out = op(*args, **sample.kwargs)
    return out, args, sample.kwargs


def expected_device(device, args, kwargs):
    """Where outputs belong: the device, unless the call names cpu or has nothing on the device."""
    values = list(args) + list(kwargs.values())
    if any(v == "cpu" or (isinstance(v, torch.device) and v.type == "cpu") for v in values):
        return "cpu"
    flat, _ = tree_flatten(values)
    on_device = any(isinstance(v, torch.Tensor) and v.device.type != "cpu" for v in flat)
    named = any(isinstance(v, str) and v.startswith(torch.device(device).type) for v in flat)
    return torch.device(device).type if on_device or named else "cpu"


def errors(actual, expected):
    """(max abs error, max rel error, all within tolerance?) of two same-shaped CPU tensors."""
    a, e = actual.to(torch.float64), expected.to(torch.float64)
    both_nan = torch.isnan(a) & torch.isnan(e)
    diff = torch.where(both_nan, torch.zeros_like(a), (a - e).abs())
    diff = torch.nan_to_num(diff, nan=float("inf"))
    rel = diff / e.abs().clamp_min(torch.finfo(torch.float64).tiny)
    return diff, rel


def compare(actual, expected, atol, rtol, where, out_device):
    """Every output: same structure, shape, dtype and device; values within atol + rtol*|expected|."""
    got, got_spec = tree_flatten(actual)
    want, want_spec = tree_flatten(expected)
    if got_spec != want_spec:
        raise AssertionError(f"output structure {got_spec} differs from CPU's {want_spec} ({where})")
    for i, (g, w) in enumerate(zip(got, want)):
        if not isinstance(w, torch.Tensor):
            if g != w:
                raise AssertionError(f"output {i}: {g!r} != CPU's {w!r} ({where})")
            continue
        if not isinstance(g, torch.Tensor) or g.shape != w.shape or g.dtype != w.dtype:
            raise AssertionError(f"output {i}: {_describe(g)} where CPU gives {_describe(w)} ({where})")
        if g.device.type != out_device:
            raise AssertionError(f"output {i} is on {g.device}, expected {out_device} ({where})")
        diff, rel = errors(g.detach().cpu(), w)
        exact = not (w.dtype.is_floating_point or w.dtype.is_complex)
        bad = diff > (0 if exact else atol + rtol * w.to(torch.float64).abs())
        if diff.numel() and bool(bad.any()):
            max_abs, max_rel = float(diff.max()), float(rel[bad].max())
            raise Mismatch(
                f"output {i}: {int(bad.sum())} of {w.numel()} elements differ; max abs error {max_abs:.3g} "
                f"(atol {atol:g}), max rel error {max_rel:.3g} (rtol {rtol:g}) ({where})",
                max_abs,
                max_rel,
            )


def _describe(x):
    return f"{tuple(x.shape)} {x.dtype}" if isinstance(x, torch.Tensor) else type(x).__name__


class TestModelOps(TestCase):
    @ops(model_ops_db, dtypes=OpDTypes.supported)
    def test_model_ops_db(self, device, dtype, op):
        case = getattr(op, "oot_case", None)
        where = f"{case.name} at {case.loc}: {case.description}" if case else op.name
        atol, rtol = default_tolerances(dtype)
        if case is not None and case.precision is not None:
            atol, rtol = case.precision
        elif self.precision:  # the config's precision for this dtype (set by the plugin)
            atol, rtol = self.precision, self.rel_tol
        expected, cpu_args, _ = call(op, "cpu", dtype)
        actual, dev_args, kwargs = call(op, device, dtype)
        out_device = expected_device(device, dev_args, kwargs)
        compare(actual, expected, atol, rtol, where, out_device)
        if getattr(op, "oot_inplace", False) and cpu_args:  # what an in-place op changed
            compare(dev_args[0], cpu_args[0], atol, rtol, f"mutated input; {where}", out_device)


instantiate_device_type_tests(TestModelOps, globals())

if __name__ == "__main__":
    run_tests()
