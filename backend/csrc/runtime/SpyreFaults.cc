#include "SpyreFaults.h"

#include <c10/util/Exception.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace spyre::faults {
namespace {

enum class Kind { kHang, kCorrupt, kError, kHeld };

struct Fault {
  Kind kind;
  long device;
  long after;  // ops on the device that run normally first
};

bool parse_kind(const std::string& name, Kind* kind) {
  static const std::pair<const char*, Kind> kKinds[] = {
      {"hang", Kind::kHang}, {"corrupt", Kind::kCorrupt},
      {"error", Kind::kError}, {"held", Kind::kHeld}};
  for (const auto& [label, value] : kKinds) {
    if (name == label) {
      *kind = value;
      return true;
    }
  }
  return false;
}

bool parse_number(const std::string& text, long* out) {
  char* end = nullptr;
  *out = std::strtol(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0' && *out >= 0;
}

std::vector<Fault> parse(const char* raw) {
  std::vector<Fault> faults;
  std::stringstream items(raw == nullptr ? "" : raw);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto colon = item.find(':');
    const auto at = item.find('@');
    Fault fault{Kind::kHang, 0, 0};
    if (colon == std::string::npos || !parse_kind(item.substr(0, colon), &fault.kind)) {
      continue;
    }
    const std::string device = item.substr(colon + 1, at == std::string::npos ? std::string::npos : at - colon - 1);
    if (!parse_number(device, &fault.device) ||
        (at != std::string::npos && !parse_number(item.substr(at + 1), &fault.after))) {
      continue;
    }
    faults.push_back(fault);
  }
  return faults;
}

const std::vector<Fault>& armed() {
  static const std::vector<Fault> faults = parse(std::getenv("SPYRE_FAULTS"));
  return faults;
}

constexpr int kMaxDevices = 64;
std::atomic<long> ops_run[kMaxDevices];

long ops_on(c10::DeviceIndex device) {
  return device >= 0 && device < kMaxDevices ? ops_run[device].load() : 0;
}

// With SPYRE_STATE_DIR set, a fault once tripped stays tripped for every later process
// (<dir>/spyre<i>.<kind>), as a sick card stays sick until someone resets it.
std::string tripped_path(Kind kind, c10::DeviceIndex device) {
  static const char* kNames[] = {"hang", "corrupt", "error", "held"};
  const char* dir = std::getenv("SPYRE_STATE_DIR");
  if (dir == nullptr || *dir == '\0') {
    return "";
  }
  return std::string(dir) + "/spyre" + std::to_string(static_cast<int>(device)) + "." +
      kNames[static_cast<int>(kind)];
}

bool active(Kind kind, c10::DeviceIndex device) {
  for (const Fault& fault : armed()) {
    if (fault.kind != kind || fault.device != device) {
      continue;
    }
    const std::string path = tripped_path(kind, device);
    if (ops_on(device) > fault.after) {
      if (!path.empty()) {
        std::ofstream(path).put('\n');
      }
      return true;
    }
    return !path.empty() && access(path.c_str(), F_OK) == 0;
  }
  return false;
}

} // namespace

void before_op(c10::DeviceIndex device) {
  if (armed().empty() || device < 0 || device >= kMaxDevices) {
    return;
  }
  ops_run[device].fetch_add(1);
  TORCH_CHECK(!active(Kind::kError, device), "spyre: device fault on spyre:",
              static_cast<int>(device), ": the runtime reported an error (injected by SPYRE_FAULTS)");
  while (active(Kind::kHang, device)) {
    // A hung card: the call never completes and burns no host CPU while waiting.
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

bool corrupts(c10::DeviceIndex device) noexcept {
  return !armed().empty() && active(Kind::kCorrupt, device);
}

bool leaves_holder(c10::DeviceIndex device) noexcept {
  for (const Fault& fault : armed()) {
    if (fault.kind == Kind::kHeld && fault.device == device) {
      return true;
    }
  }
  return false;
}

} // namespace spyre::faults
