#include "SpyreGenerator.h"
#include "SpyreDevice.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/Exception.h>

#include <deque>
#include <mutex>

namespace spyre {
namespace {

class SpyreGeneratorImpl final : public c10::GeneratorImpl {
 public:
  SpyreGeneratorImpl(c10::DeviceIndex device, at::Generator host)
      : c10::GeneratorImpl(
            c10::Device(c10::DeviceType::PrivateUse1, device),
            c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
        host_(std::move(host)) {}

  static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

  void set_current_seed(uint64_t seed) override { host_.set_current_seed(seed); }
  uint64_t current_seed() const override { return host_.current_seed(); }
  uint64_t seed() override { return host_.seed(); }
  void set_offset(uint64_t offset) override { host_.set_offset(offset); }
  uint64_t get_offset() const override { return host_.get_offset(); }

  void set_state(const c10::TensorImpl& state) override {
    host_.unsafeGetGeneratorImpl()->set_state(state);
  }
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override {
    return host_.unsafeGetGeneratorImpl()->get_state();
  }

  const at::Generator& host() const { return host_; }

 private:
  SpyreGeneratorImpl* clone_impl() const override {
    return new SpyreGeneratorImpl(device().index(), host_.clone());
  }

  at::Generator host_;
};

} // namespace

at::Generator make_generator(c10::DeviceIndex device, uint64_t seed) {
  check_device_index(device);
  return at::make_generator<SpyreGeneratorImpl>(
      device, at::detail::createCPUGenerator(seed));
}

const at::Generator& default_generator(c10::DeviceIndex device) {
  if (device < 0) {
    device = current_device();
  }
  check_device_index(device);
  static std::mutex mutex;
  // Same initial seed as the CPU default generator, so runs are reproducible.
  // A deque keeps references stable as devices are added lazily.
  static std::deque<at::Generator> generators;
  std::lock_guard<std::mutex> lock(mutex);
  while (generators.size() < static_cast<size_t>(device_count())) {
    auto index = static_cast<c10::DeviceIndex>(generators.size());
    generators.push_back(make_generator(index, c10::default_rng_seed_val));
  }
  return generators[device];
}

at::Generator host_generator(const at::Generator& gen) {
  TORCH_CHECK(
      gen.device().type() == c10::DeviceType::PrivateUse1,
      "spyre: expected a spyre generator but got one for device ", gen.device());
  return static_cast<SpyreGeneratorImpl*>(gen.unsafeGetGeneratorImpl())->host();
}

} // namespace spyre
