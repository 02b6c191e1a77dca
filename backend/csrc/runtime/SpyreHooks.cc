// PrivateUse1 hooks: how ATen asks "is spyre there, which device owns this
// pointer, which generator do I use".
#include "SpyreAllocator.h"
#include "SpyreDevice.h"
#include "SpyreGenerator.h"

#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/StorageImpl.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cstring>

namespace spyre {
namespace {

struct SpyreHooks final : public at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return device_count() > 0; }
  bool hasPrimaryContext(c10::DeviceIndex index) const override {
    return index >= 0 && index < device_count();
  }
  void init() const override {}

  c10::DeviceIndex deviceCount() const override { return device_count(); }
  c10::DeviceIndex getCurrentDevice() const override { return current_device(); }
  void setCurrentDevice(c10::DeviceIndex index) const override { set_device(index); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex index) const override {
    c10::DeviceIndex old = current_device();
    set_device(index);
    return old;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex index) const override {
    return exchangeDevice(index);
  }

  const at::Generator& getDefaultGenerator(c10::DeviceIndex index) const override {
    return default_generator(index);
  }
  at::Generator getNewGenerator(c10::DeviceIndex index) const override {
    return make_generator(index < 0 ? current_device() : index, c10::default_rng_seed_val);
  }

  at::Device getDeviceFromPtr(void* data) const override {
    auto owner = device_of_pointer(data);
    TORCH_CHECK(owner.has_value(), "spyre: pointer ", data, " was not allocated by spyre");
    return c10::Device(c10::DeviceType::PrivateUse1, *owner);
  }

  // Device memory is host memory, so "pinned" host buffers are plain ones.
  bool isPinnedPtr(const void*) const override { return false; }
  c10::Allocator* getPinnedMemoryAllocator() const override { return c10::GetCPUAllocator(); }

  // untyped_storage().resize_() on a spyre storage lands here.
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    c10::StorageImpl* impl = storage.unsafeGetStorageImpl();
    TORCH_CHECK(impl->resizable(), "spyre: trying to resize a storage that is not resizable");
    c10::DeviceGuard guard(impl->device());  // the allocator serves the current device
    c10::DataPtr fresh = allocator()->allocate(newsize);
    size_t keep = std::min(newsize, impl->nbytes());
    if (keep > 0) {
      std::memcpy(fresh.get(), impl->data(), keep);
    }
    impl->set_data_ptr_noswap(std::move(fresh));
    impl->set_nbytes(newsize);
  }
};

// Registered when the library loads, before Python touches the device.
const bool kRegistered = [] {
  at::RegisterPrivateUse1HooksInterface(new SpyreHooks());
  return true;
}();

} // namespace
} // namespace spyre
