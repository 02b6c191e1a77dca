// torch.ops.spyre.*: the control surface the Python package is built on
// (device selection, memory statistics, RNG state, capabilities, fault hook).
// Plain schema ops keep the package free of a pybind11 extension module.
// A device argument of -1 means the current device.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace spyre::ops {

std::string capabilities();  // the capability table as JSON

int64_t device_count();
int64_t current_device();
void set_device(int64_t device);
void synchronize(int64_t device);

// allocated, peak, live blocks, blocks allocated, blocks freed
std::vector<int64_t> memory_stats(int64_t device);
void reset_peak_memory_stats(int64_t device);

void manual_seed(int64_t device, int64_t seed);
int64_t initial_seed(int64_t device);
int64_t seed(int64_t device);
at::Tensor get_rng_state(int64_t device);
void set_rng_state(int64_t device, const at::Tensor& state);

// Test-only: kills the process with SIGABRT (6) or SIGSEGV (11).
[[noreturn]] void debug_crash(int64_t signal);

} // namespace spyre::ops
