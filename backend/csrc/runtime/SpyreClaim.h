// Which process holds a device. With SPYRE_STATE_DIR set, the first use of a
// device in a process takes an exclusive lock on <dir>/spyre<i>.lock and keeps
// it for the life of the process (and of any process forked from it), the way
// a driver hands a card to one process: a second process gets "device busy",
// naming the holder. Unset, nothing is claimed (one process per host).
#pragma once

#include <c10/core/Device.h>

namespace spyre {

// Claims `device` for this process on its first use; throws RuntimeError
// "spyre: device spyre:<i> is busy: held by pid <p>" when another holds it.
void claim(c10::DeviceIndex device);

} // namespace spyre
