#include "SpyreClaim.h"

#include "SpyreFaults.h"

#include <c10/util/Exception.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>

namespace spyre {
namespace {

constexpr int kMaxDevices = 64;
constexpr int kHeldSeconds = 600;  // an injected holder gives the card back eventually

int claimed_fd[kMaxDevices];
std::once_flag init_once;
std::mutex claim_mutex;

std::string lock_path(const char* dir, c10::DeviceIndex device) {
  return std::string(dir) + "/spyre" + std::to_string(static_cast<int>(device)) + ".lock";
}

void write_pid(int fd) {
  char text[32];
  int n = snprintf(text, sizeof(text), "%d\n", static_cast<int>(getpid()));
  if (ftruncate(fd, 0) == 0 && pwrite(fd, text, n, 0) < 0) {
    // the pid is a courtesy for messages; the lock itself is what counts
  }
}

std::string holder_of(int fd) {
  char text[32] = {0};
  ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
  std::string pid = n > 0 ? std::string(text, static_cast<size_t>(n)) : "unknown";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) {
    pid.pop_back();
  }
  return pid;
}

// Injected fault `held`: a detached grandchild keeps the lock (it shares the
// open file), as a leaked helper process keeps a real card. Only
// async-signal-safe calls between fork and _exit.
void leave_holder(int fd) {
  pid_t middle = fork();
  if (middle == 0) {
    setsid();
    if (fork() != 0) {
      _exit(0);
    }
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    write_pid(fd);
    struct timespec left = {kHeldSeconds, 0};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
    _exit(0);
  }
  if (middle > 0) {
    waitpid(middle, nullptr, 0);
  }
}

} // namespace

void claim(c10::DeviceIndex device) {
  const char* dir = std::getenv("SPYRE_STATE_DIR");
  if (dir == nullptr || *dir == '\0' || device < 0 || device >= kMaxDevices) {
    return;
  }
  std::call_once(init_once, [] {
    for (int& fd : claimed_fd) {
      fd = -1;
    }
  });
  std::lock_guard<std::mutex> guard(claim_mutex);
  if (claimed_fd[device] >= 0) {
    return;
  }
  const std::string path = lock_path(dir, device);
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  TORCH_CHECK(fd >= 0, "spyre: cannot open the device lock ", path, " (SPYRE_STATE_DIR)");
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    std::string holder = holder_of(fd);
    close(fd);
    TORCH_CHECK(false, "spyre: device spyre:", static_cast<int>(device),
                " is busy: held by pid ", holder, " (", path, ")");
  }
  write_pid(fd);
  claimed_fd[device] = fd;
  if (faults::leaves_holder(device)) {
    leave_holder(fd);
  }
}

} // namespace spyre
