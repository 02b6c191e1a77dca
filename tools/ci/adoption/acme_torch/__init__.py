"""The "acme" backend of docs/adopting.md: importing it registers device "acme".

An adopter's own package, built outside this repository: `_acme.so` comes from
csrc/acme.cc (g++ against the installed torch), loaded here; the device module below is
what torch and upstream's device-generic tests ask of a privateuse1 backend.
"""

import sys
import types
from pathlib import Path

import torch

torch.ops.load_library(str(Path(__file__).with_name("_acme.so")))
torch.utils.rename_privateuse1_backend("acme")

device_module = types.ModuleType("torch.acme")
device_module.is_available = lambda: True
device_module.device_count = lambda: 1
device_module.current_device = lambda: 0
device_module._is_in_bad_fork = lambda: False
device_module.manual_seed_all = lambda seed: None
torch._register_device_module("acme", device_module)
torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)
sys.modules.setdefault("torch.acme", device_module)


def capabilities() -> dict[str, list[str]]:
    """aten op -> dtypes acme runs (through its CPU fallback): what the plugin may generate."""
    return {"add": ["float32", "int64"], "mul": ["float32", "int64"], "abs": ["float32", "int64"]}
