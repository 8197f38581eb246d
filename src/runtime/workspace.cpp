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

void* buffer(const char* name, size_t bytes, Device device, StreamHandle stream, bool zeroed) {
  static std::mutex mutex;
  // Never destroyed: the buffers stay reachable until exit (device memory is not freed after the driver may
  // have shut down, and leak checkers see it held, not lost).
  static auto& buffers = *new std::map<std::pair<std::string, std::pair<int, int>>, Buffer>();
  // Buffers outgrown during a capture: the graph (or one captured earlier) may still read them. Kept until exit.
  static auto& kept = *new std::vector<Buffer>();
  std::lock_guard<std::mutex> lock(mutex);
  Buffer& b = buffers[{name, {int(device.kind), device.index}}];
  if (b.bytes >= bytes) return b.data;
  if (device.is_cuda() && stream_is_capturing(stream)) {
    // Nothing may wait for the device now, and nothing is freed: no pointer a graph holds goes stale, so the
    // generation stays.
    if (b.data) kept.push_back(b);
    b.data = device_alloc_beside_capture(bytes, device, zeroed);
    b.bytes = bytes;
    return b.data;
  }
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
  return b.data;
}
}  // namespace

void* workspace(const char* name, size_t bytes, Device device, StreamHandle stream) {
  return buffer(name, bytes, device, stream, false);
}
void* zeroed_workspace(const char* name, size_t bytes, Device device, StreamHandle stream) {
  return buffer(name, bytes, device, stream, true);
}
uint64_t workspace_generation() { return replacements.load(std::memory_order_relaxed); }

}  // namespace tessera
