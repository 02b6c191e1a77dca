#include "SpyreAllocator.h"

#include "SpyreClaim.h"
#include "SpyreDevice.h"

#include <c10/core/impl/alloc_cpu.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace spyre {
namespace {

struct Block {
  size_t size;
  c10::DeviceIndex device;
};

// One registry for all devices: allocation is rare next to the emulated
// compute, so a single mutex is simpler than per-device pools.
class Registry {
 public:
  void on_alloc(void* ptr, size_t size, c10::DeviceIndex device) {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_[ptr] = Block{size, device};
    MemoryStats& s = stats_for(device);
    s.allocated_bytes += static_cast<int64_t>(size);
    s.active_allocations += 1;
    s.total_allocations += 1;
    if (s.allocated_bytes > s.peak_allocated_bytes) {
      s.peak_allocated_bytes = s.allocated_bytes;
    }
  }

  void on_free(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = blocks_.find(ptr);
    TORCH_INTERNAL_ASSERT(it != blocks_.end(), "spyre: freeing an unknown pointer");
    MemoryStats& s = stats_for(it->second.device);
    s.allocated_bytes -= static_cast<int64_t>(it->second.size);
    s.active_allocations -= 1;
    s.total_frees += 1;
    blocks_.erase(it);
  }

  MemoryStats stats(c10::DeviceIndex device) {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_for(device);
  }

  void reset_peak(c10::DeviceIndex device) {
    std::lock_guard<std::mutex> lock(mutex_);
    MemoryStats& s = stats_for(device);
    s.peak_allocated_bytes = s.allocated_bytes;
    s.total_allocations = 0;
    s.total_frees = 0;
  }

  std::optional<c10::DeviceIndex> owner(const void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = blocks_.find(const_cast<void*>(ptr));
    if (it == blocks_.end()) {
      return std::nullopt;
    }
    return it->second.device;
  }

 private:
  MemoryStats& stats_for(c10::DeviceIndex device) {
    if (stats_.size() <= static_cast<size_t>(device)) {
      stats_.resize(static_cast<size_t>(device) + 1);
    }
    return stats_[device];
  }

  std::mutex mutex_;
  std::unordered_map<void*, Block> blocks_;
  std::vector<MemoryStats> stats_;
};

Registry& registry() {
  // Leaked on purpose: tensors may be freed during static destruction.
  static Registry* r = new Registry();
  return *r;
}

void free_block(void* ptr) {
  registry().on_free(ptr);
  c10::free_cpu(ptr);
}

class SpyreAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    c10::Device device = make_device();
    if (nbytes == 0) {
      return c10::DataPtr(nullptr, nullptr, &noop_delete, device);
    }
    claim(physical_device(device.index()));
    void* ptr = c10::alloc_cpu(nbytes);
    registry().on_alloc(ptr, nbytes, device.index());
    return c10::DataPtr(ptr, ptr, &free_block, device);
  }

  c10::DeleterFnPtr raw_deleter() const override { return &free_block; }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    std::memcpy(dest, src, count);
  }

 private:
  static void noop_delete(void*) {}
};

SpyreAllocator g_allocator;

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

} // namespace

MemoryStats memory_stats(c10::DeviceIndex device) {
  check_device_index(device);
  return registry().stats(device);
}

void reset_peak_memory_stats(c10::DeviceIndex device) {
  check_device_index(device);
  registry().reset_peak(device);
}

std::optional<c10::DeviceIndex> device_of_pointer(const void* ptr) {
  return registry().owner(ptr);
}

c10::Allocator* allocator() {
  return &g_allocator;
}

} // namespace spyre
