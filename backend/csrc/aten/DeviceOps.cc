// Bodies of the torch.ops.spyre.* control ops (registered in Register.cc).
#include "Capabilities.h"

#include "../runtime/SpyreAllocator.h"
#include "../runtime/SpyreDevice.h"
#include "../runtime/SpyreGenerator.h"

#include "DeviceOps.h"

#include <ATen/core/Tensor.h>

#include <csignal>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace spyre::ops {
namespace {

c10::DeviceIndex index_of(int64_t device) {
  auto index = static_cast<c10::DeviceIndex>(device < 0 ? spyre::current_device() : device);
  check_device_index(index);
  return index;
}

} // namespace

std::string capabilities() { return caps::to_json(); }

int64_t device_count() { return spyre::device_count(); }
int64_t current_device() { return spyre::current_device(); }
void set_device(int64_t device) { spyre::set_device(index_of(device)); }
void synchronize(int64_t device) { index_of(device); }  // work is synchronous

// Order matches torch_spyre.memory.STAT_KEYS.
std::vector<int64_t> memory_stats(int64_t device) {
  MemoryStats s = spyre::memory_stats(index_of(device));
  return {s.allocated_bytes, s.peak_allocated_bytes, s.active_allocations,
          s.total_allocations, s.total_frees};
}

void reset_peak_memory_stats(int64_t device) { spyre::reset_peak_memory_stats(index_of(device)); }

void manual_seed(int64_t device, int64_t seed) {
  at::Generator gen = default_generator(index_of(device));
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_current_seed(static_cast<uint64_t>(seed));
}

int64_t initial_seed(int64_t device) {
  at::Generator gen = default_generator(index_of(device));
  std::lock_guard<std::mutex> lock(gen.mutex());
  return static_cast<int64_t>(gen.current_seed());
}

int64_t seed(int64_t device) {
  at::Generator gen = default_generator(index_of(device));
  std::lock_guard<std::mutex> lock(gen.mutex());
  return static_cast<int64_t>(gen.seed());
}

at::Tensor get_rng_state(int64_t device) {
  at::Generator gen = default_generator(index_of(device));
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void set_rng_state(int64_t device, const at::Tensor& state) {
  at::Generator gen = default_generator(index_of(device));
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

// Test-only: dies the way a faulting device driver takes a process down, so
// crash isolation can be tested. Default handlers are restored first so
// Python's faulthandler cannot turn the signal into an exception.
[[noreturn]] void debug_crash(int64_t signal) {
  int sig = signal == SIGSEGV ? SIGSEGV : SIGABRT;
  std::signal(sig, SIG_DFL);
  std::raise(sig);
  std::abort();
}


} // namespace spyre::ops
