// Host-memory allocator for spyre tensors, with per-device statistics.
#pragma once

#include <c10/core/Allocator.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <optional>

namespace spyre {

struct MemoryStats {
  int64_t allocated_bytes = 0;       // live bytes
  int64_t peak_allocated_bytes = 0;  // high-water mark since the last reset
  int64_t active_allocations = 0;    // live blocks
  int64_t total_allocations = 0;     // blocks handed out since start/reset
  int64_t total_frees = 0;
};

MemoryStats memory_stats(c10::DeviceIndex device);
// Peak falls back to the current level; counters restart from zero.
void reset_peak_memory_stats(c10::DeviceIndex device);

// Device owning a pointer handed out by the allocator (for the hooks).
std::optional<c10::DeviceIndex> device_of_pointer(const void* ptr);

c10::Allocator* allocator();

} // namespace spyre
