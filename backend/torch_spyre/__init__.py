"""torch_spyre: the emulated "spyre" accelerator as a PyTorch privateuse1 backend.

Importing this package (or just `import torch` once it is pip-installed, via
the torch.backends entry point) loads libspyre.so and registers device
"spyre": tensors, the torch.spyre module and Tensor.spyre()/Module.spyre().
"""

from __future__ import annotations

import os


def _autoload() -> None:
    """Entry point of group torch.backends; the package's own import does the work.

    Defined before ``import torch``: when ``import torch_spyre`` comes first, torch's
    backend autoload (at the end of torch's own import) reaches this partially
    initialised module and calls ``_autoload``; the registration then continues below.
    """


import torch  # noqa: E402  (after _autoload, see its docstring)

from . import _loader  # noqa: E402
from .environment import check_environment  # noqa: E402

BACKEND_NAME = "spyre"

check_environment(os.environ)
_loader.load_library()

from . import _printing, device_module  # noqa: E402  (needs the library's ops)
from .capabilities import capabilities, supported_dtypes, tolerance  # noqa: E402,F401


def _register() -> None:
    # rename_privateuse1_backend may run once per process; a second import of
    # the package (e.g. from another sys.path entry) must not fail on it.
    if torch._C._get_privateuse1_backend_name() != BACKEND_NAME:
        torch.utils.rename_privateuse1_backend(BACKEND_NAME)
    if not hasattr(torch, BACKEND_NAME):
        torch._register_device_module(BACKEND_NAME, device_module)
    if not hasattr(torch.Tensor, "is_spyre"):
        torch.utils.generate_methods_for_privateuse1_backend(for_storage=True)
    _printing.install()


_register()
