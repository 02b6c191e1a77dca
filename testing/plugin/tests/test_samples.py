"""samples.py: shape knobs on a copy of an OpInfo (op_db untouched)."""

import torch
from torch.testing._internal.common_methods_invocations import op_db

from testing.config.models import Shapes
from testing.plugin.samples import largest_numel, with_shapes

ADD = next(o for o in op_db if o.name == "add")


def test_max_numel_limits_samples_and_leaves_op_db_alone():
    original = list(ADD.sample_inputs("cpu", torch.float32))
    limited = list(with_shapes(ADD, Shapes(max_numel=10)).sample_inputs("cpu", torch.float32))
    assert 0 < len(limited) < len(original)
    assert all(largest_numel(s) <= 10 for s in limited)
    assert len(list(ADD.sample_inputs("cpu", torch.float32))) == len(original)


def test_explicit_shapes_replace_samples():
    samples = list(with_shapes(ADD, Shapes(explicit=[[2, 3], [7]])).sample_inputs("cpu", torch.float32))
    assert [tuple(s.input.shape) for s in samples] == [(2, 3), (7,)]
    for s in samples:
        ADD(s.input, *s.args, **s.kwargs)  # still a valid call
