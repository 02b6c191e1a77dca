// Faults injected on purpose (SPYRE_FAULTS), so that supervision, the health
// probe, draining and triage can be tested against a device that misbehaves
// the way real cards do. Off unless the variable names a fault; deterministic.
//
//   SPYRE_FAULTS = item[,item...]   item = kind:device[@after]
//   kind: hang     every op on the device after `after` ops never returns
//         corrupt  results computed on the device after `after` ops are off (silent)
//         error    ops on the device after `after` ops raise a device fault
//         held     the first process that claims the device leaves a detached
//                  grandchild holding it, so it stays busy after that process dies
//
// A fault trips in the process that runs op `after`+1 on the device; with
// SPYRE_STATE_DIR set it then stays tripped for every later process on the host
// (file <dir>/spyre<i>.<kind>; delete it to "reset the card").
//
// torch_spyre.environment validates the variable at import (one-line errors);
// here an unparsable item is ignored, because the readers must not throw.
#pragma once

#include <c10/core/Device.h>

namespace spyre::faults {

// Every emulated kernel calls this before running on `device`: it counts the
// op and hangs (never returns) or throws a device fault when one is armed.
void before_op(c10::DeviceIndex device);

// True when results computed on `device` must come back wrong.
bool corrupts(c10::DeviceIndex device) noexcept;

// True when a claim of `device` must leave a holder behind (kind `held`).
bool leaves_holder(c10::DeviceIndex device) noexcept;

} // namespace spyre::faults
