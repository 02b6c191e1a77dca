"""Shows the spyre device end to end: tools/bazel run //backend:demo"""

from __future__ import annotations

import sys

import torch

import torch_spyre
from testing.base.command import command
from testing.base.errors import OotError


@command("demo", prefix="demo: ")
def main() -> None:
    if sys.argv[1:]:
        raise OotError(f"takes no arguments, got {' '.join(sys.argv[1:])!r}")
    torch.manual_seed(0)
    x = torch.randn(4, device="spyre") + 1
    print(f"torch.randn(4, device='spyre') + 1 = {x}")
    print(f"same seed on CPU, float32          = {(torch.manual_seed(0), torch.randn(4) + 1)[1]}")
    print(
        f"spyre computes float32 through float16; capability table: {len(torch_spyre.capabilities()['ops'])} ops"
    )
    try:
        torch.ones(2, dtype=torch.float64, device="spyre").exp()
    except TypeError as err:
        print(f"torch.ones(2, dtype=torch.float64, device='spyre').exp() -> TypeError: {err}")
    try:
        torch.ones(2, device="spyre").cosh()
    except NotImplementedError as err:
        print(f"torch.ones(2, device='spyre').cosh() -> NotImplementedError: {err}")


if __name__ == "__main__":
    sys.exit(main())
