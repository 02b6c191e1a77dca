"""Shape knobs: a per-test copy of an OpInfo whose sample inputs are limited or replaced.

op_db is never mutated; the copy lives in the generated test's param_kwargs.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import copy
from typing import Any, Iterator

from testing.config.models import Shapes


def _tensors(sample) -> list:
    import torch

    out = (
        [sample.input]
        if isinstance(sample.input, torch.Tensor)
        else list(sample.input)
        if isinstance(sample.input, (list, tuple))
        else []
    )
    out += [a for a in sample.args if isinstance(a, torch.Tensor)]
    out += [v for v in sample.kwargs.values() if isinstance(v, torch.Tensor)]
    return [t for t in out if isinstance(t, torch.Tensor)]


def largest_numel(sample) -> int:
    return max((t.numel() for t in _tensors(sample)), default=0)


def _reshaped(sample, shape: list[int]):
    """The template sample with every tensor shaped like its input replaced by a fresh one of `shape`."""
    import torch
    from torch.testing import make_tensor
    from torch.testing._internal.opinfo.core import SampleInput

    template = sample.input.shape if isinstance(sample.input, torch.Tensor) else None

    def swap(x: Any) -> Any:
        if isinstance(x, torch.Tensor) and (template is None or x.shape == template):
            return make_tensor(shape, dtype=x.dtype, device=x.device, requires_grad=x.requires_grad)
        return x

    return SampleInput(
        swap(sample.input),
        args=tuple(swap(a) for a in sample.args),
        kwargs={k: swap(v) for k, v in sample.kwargs.items()},
    )


def with_shapes(op, shapes: Shapes):
    """Copy of `op` whose sample_inputs honour max_numel / explicit shapes."""
    original = op.sample_inputs_func

    def sample_inputs_func(opinfo, device, dtype, requires_grad, **kwargs) -> Iterator:
        samples = original(opinfo, device, dtype, requires_grad, **kwargs)
        if shapes.explicit:
            template = next(iter(samples), None)
            if template is not None:
                for shape in shapes.explicit:
                    yield _reshaped(template, shape)
            return
        for s in samples:
            if shapes.max_numel is None or largest_numel(s) <= shapes.max_numel:
                yield s

    new = copy.copy(op)
    new.sample_inputs_func = sample_inputs_func
    return new
