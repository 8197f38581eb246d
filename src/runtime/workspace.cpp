#include "tessera/runtime/workspace.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

namespace {
std::atomic<uint64_t> replacements{0};

struct Buffer {
  void* data = nullptr;
  size_t bytes = 0;
};

void* buffer(const char* name, size_t bytes, Device device, bool zeroed) {
  static std::mutex mutex;
  // Never destroyed: the buffers stay reachable until exit (device memory is not freed after the driver may
  // have shut down, and leak checkers see it held, not lost).
  static auto& buffers = *new std::map<std::pair<std::string, std::pair<int, int>>, Buffer>();
  std::lock_guard<std::mutex> lock(mutex);
  Buffer& b = buffers[{name, {int(device.kind), device.index}}];
  if (b.bytes < bytes) {
    if (b.data) {
      synchronize(device);  // kernels queued earlier may still read the old buffer
      device_free(b.data, device);
      replacements.fetch_add(1, std::memory_order_relaxed);
    }
    b.data = device_alloc(bytes, device);
    b.bytes = bytes;
    if (zeroed) {
      const std::vector<unsigned char> zeros(bytes, 0);
      copy_bytes(b.data, device, zeros.data(), Device::cpu(), bytes);
    }
  }
  return b.data;
}
}  // namespace

void* workspace(const char* name, size_t bytes, Device device) { return buffer(name, bytes, device, false); }
void* zeroed_workspace(const char* name, size_t bytes, Device device) { return buffer(name, bytes, device, true); }
uint64_t workspace_generation() { return replacements.load(std::memory_order_relaxed); }

}  // namespace tessera
