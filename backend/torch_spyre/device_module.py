"""The module registered as torch.spyre: one namespace over the device,
random and memory functions (what torch looks up for privateuse1 backends)."""

from .device import (  # noqa: F401
    _is_in_bad_fork,
    current_device,
    device,
    device_count,
    is_available,
    is_initialized,
    set_device,
    synchronize,
)
from .memory import (  # noqa: F401
    empty_cache,
    max_memory_allocated,
    memory_allocated,
    memory_stats,
    reset_peak_memory_stats,
)
from .random import (  # noqa: F401
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
