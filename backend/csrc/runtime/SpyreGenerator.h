// Random number generators for spyre devices.
//
// A spyre generator is a handle on the device plus an inner CPU generator:
// the emulated kernels run on the host, so random ops are handed the inner
// generator while users only ever see a generator whose device is spyre.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/Device.h>

namespace spyre {

at::Generator make_generator(c10::DeviceIndex device, uint64_t seed);

// Per-device default generator, created lazily and kept for the process.
const at::Generator& default_generator(c10::DeviceIndex device);

// The host generator that actually produces the numbers for `gen`
// (which must be a spyre generator).
at::Generator host_generator(const at::Generator& gen);

} // namespace spyre
