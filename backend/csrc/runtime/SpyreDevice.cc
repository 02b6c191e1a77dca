#include "SpyreDevice.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace spyre {
namespace {

// An unparsable or out-of-range SPYRE_DEVICE_COUNT must not throw (deviceCount
// is noexcept); it falls back to 1 and the Python package reports the value.
c10::DeviceIndex parse_device_count() noexcept {
  const char* raw = std::getenv("SPYRE_DEVICE_COUNT");
  if (raw == nullptr || *raw == '\0') {
    return 1;
  }
  char* end = nullptr;
  long value = std::strtol(raw, &end, 10);
  if (end == raw || *end != '\0' || value < 0 || value > 64) {
    return 1;
  }
  return static_cast<c10::DeviceIndex>(value);
}

// SPYRE_VISIBLE_DEVICES (as CUDA_VISIBLE_DEVICES): the physical devices this process
// sees, in order; a worker pinned to one card sees it as spyre:0. Unset: all of them.
// A malformed list falls back to all (torch_spyre.environment rejects it at import).
std::vector<c10::DeviceIndex> parse_visible(c10::DeviceIndex physical_count) noexcept {
  std::vector<c10::DeviceIndex> visible;
  const char* raw = std::getenv("SPYRE_VISIBLE_DEVICES");
  std::string text = raw == nullptr ? "" : raw;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    char* end = nullptr;
    long value = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value < 0 || value >= physical_count) {
      visible.clear();
      break;
    }
    visible.push_back(static_cast<c10::DeviceIndex>(value));
  }
  if (raw == nullptr || visible.empty()) {
    visible.clear();
    for (c10::DeviceIndex i = 0; i < physical_count; ++i) {
      visible.push_back(i);
    }
  }
  return visible;
}

const std::vector<c10::DeviceIndex>& visible_devices() noexcept {
  static const std::vector<c10::DeviceIndex> visible = parse_visible(parse_device_count());
  return visible;
}

thread_local c10::DeviceIndex tls_current_device = 0;

} // namespace

c10::DeviceIndex device_count() noexcept {
  return static_cast<c10::DeviceIndex>(visible_devices().size());
}

c10::DeviceIndex physical_device(c10::DeviceIndex index) noexcept {
  const auto& visible = visible_devices();
  return index >= 0 && static_cast<size_t>(index) < visible.size() ? visible[index] : index;
}

c10::DeviceIndex current_device() noexcept {
  return tls_current_device;
}

void check_device_index(c10::DeviceIndex index) {
  TORCH_CHECK_INDEX(
      index >= 0 && index < device_count(),
      "spyre: device index ", static_cast<int>(index),
      " is out of range; expected 0 <= index < ",
      static_cast<int>(device_count()), " (set SPYRE_DEVICE_COUNT for more devices)");
}

void set_device(c10::DeviceIndex index) {
  check_device_index(index);
  tls_current_device = index;
}

c10::Device make_device(c10::DeviceIndex index) {
  if (index < 0) {
    index = current_device();
  }
  check_device_index(index);
  return c10::Device(c10::DeviceType::PrivateUse1, index);
}

namespace {

// Guard: devices are host threads' notion of "current"; there is a single
// default stream per device and work completes synchronously.
struct SpyreGuardImpl final : public c10::impl::DeviceGuardImplInterface {
  static constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

  c10::DeviceType type() const override { return kType; }

  c10::Device exchangeDevice(c10::Device d) const override {
    TORCH_INTERNAL_ASSERT(d.type() == kType);
    c10::Device old = getDevice();
    if (old.index() != d.index()) {
      set_device(d.index());
    }
    return old;
  }

  c10::Device getDevice() const override {
    return c10::Device(kType, current_device());
  }

  void setDevice(c10::Device d) const override {
    TORCH_INTERNAL_ASSERT(d.type() == kType);
    set_device(d.index());
  }

  void uncheckedSetDevice(c10::Device d) const noexcept override {
    if (d.index() >= 0 && d.index() < device_count()) {
      tls_current_device = d.index();
    }
  }

  c10::Stream getStream(c10::Device d) const override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }

  c10::Stream getDefaultStream(c10::Device d) const override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }

  c10::Stream exchangeStream(c10::Stream s) const override {
    return c10::Stream(c10::Stream::DEFAULT, s.device());
  }

  /** Must not throw: torch calls it while probing for accelerators. */
  c10::DeviceIndex deviceCount() const noexcept override {
    return device_count();
  }

  bool queryStream(const c10::Stream&) const override { return true; }
  void synchronizeStream(const c10::Stream&) const override {}
  void synchronizeDevice(const c10::DeviceIndex) const override {}

  // Events: work completes before the recording call returns, so an event
  // is just the host time at which it was recorded.
  void record(void** event, const c10::Stream&, const c10::DeviceIndex,
              const c10::EventFlag) const override {
    if (*event == nullptr) {
      *event = new Clock::time_point();
    }
    *static_cast<Clock::time_point*>(*event) = Clock::now();
  }
  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override {
    delete static_cast<Clock::time_point*>(event);
  }
  void block(void*, const c10::Stream&) const override {}
  bool queryEvent(void*) const override { return true; }
  void synchronizeEvent(void*) const override {}
  double elapsedTime(void* start, void* end, const c10::DeviceIndex) const override {
    TORCH_CHECK(start != nullptr && end != nullptr,
                "spyre: both events must be recorded before elapsed_time()");
    auto delta = *static_cast<Clock::time_point*>(end) - *static_cast<Clock::time_point*>(start);
    return std::chrono::duration<double, std::milli>(delta).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, SpyreGuardImpl);

} // namespace
} // namespace spyre
