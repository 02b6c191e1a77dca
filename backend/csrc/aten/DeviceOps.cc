// torch.ops.spyre.*: the control surface the Python package is built on
// (device selection, memory statistics, RNG state, capabilities, fault hook).
// Plain schema ops keep the package free of a pybind11 extension module.
#include "Capabilities.h"

#include "../runtime/SpyreAllocator.h"
#include "../runtime/SpyreDevice.h"
#include "../runtime/SpyreGenerator.h"

#include <ATen/core/Tensor.h>
#include <torch/library.h>

#include <csignal>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace spyre {
namespace {

c10::DeviceIndex index_of(int64_t device) {
  auto index = static_cast<c10::DeviceIndex>(device < 0 ? current_device() : device);
  check_device_index(index);
  return index;
}

std::string capabilities() { return caps::to_json(); }

int64_t count() { return device_count(); }
int64_t current() { return current_device(); }
void select(int64_t device) { set_device(index_of(device)); }
void synchronize(int64_t device) { index_of(device); }  // work is synchronous

// Order matches torch_spyre.memory.STAT_KEYS.
std::vector<int64_t> stats(int64_t device) {
  MemoryStats s = memory_stats(index_of(device));
  return {s.allocated_bytes, s.peak_allocated_bytes, s.active_allocations,
          s.total_allocations, s.total_frees};
}

void reset_peak(int64_t device) { reset_peak_memory_stats(index_of(device)); }

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
void debug_crash(int64_t signal) {
  int sig = signal == SIGSEGV ? SIGSEGV : SIGABRT;
  std::signal(sig, SIG_DFL);
  std::raise(sig);
  std::abort();
}

TORCH_LIBRARY(spyre, m) {
  m.def("capabilities() -> str", &capabilities);
  m.def("device_count() -> int", &count);
  m.def("current_device() -> int", &current);
  m.def("set_device(int device) -> ()", &select);
  m.def("synchronize(int device=-1) -> ()", &synchronize);
  m.def("memory_stats(int device=-1) -> int[]", &stats);
  m.def("reset_peak_memory_stats(int device=-1) -> ()", &reset_peak);
  m.def("manual_seed(int device, int seed) -> ()", &manual_seed);
  m.def("initial_seed(int device=-1) -> int", &initial_seed);
  m.def("seed(int device=-1) -> int", &seed);
  m.def("get_rng_state(int device=-1) -> Tensor", &get_rng_state);
  m.def("set_rng_state(int device, Tensor state) -> ()", &set_rng_state);
  m.def("_debug_crash(int signal=6) -> ()", &debug_crash);
}

} // namespace
} // namespace spyre
