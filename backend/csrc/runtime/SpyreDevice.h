// Device bookkeeping for the emulated spyre device: how many devices exist
// and which one the calling thread is using.
#pragma once

#include <c10/core/Device.h>

namespace spyre {

// Number of devices this process sees: SPYRE_DEVICE_COUNT emulated cards (default 1),
// narrowed by SPYRE_VISIBLE_DEVICES; read once.
c10::DeviceIndex device_count() noexcept;

// The physical card behind a visible index (what faults and claims name).
c10::DeviceIndex physical_device(c10::DeviceIndex index) noexcept;

// Thread-local current device, as CUDA keeps it per host thread.
c10::DeviceIndex current_device() noexcept;
void set_device(c10::DeviceIndex index);

// Throws c10::IndexError naming the bad index and the valid range.
void check_device_index(c10::DeviceIndex index);

// The device a tensor with `index` (-1 = current) should live on.
c10::Device make_device(c10::DeviceIndex index = -1);

} // namespace spyre
