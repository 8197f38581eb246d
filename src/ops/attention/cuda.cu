// The attention family on the GPU through the CUDA tile library.
#include <array>
#include <atomic>

#include "tessera/tile/tile.h"
#include "ops/attention/launch.h"

namespace tessera::ops::tile_cuda {
// The multiprocessor count is looked up once per device.
int64_t decode_slots(Device device, int64_t blocks_per_sm) {
  static std::array<std::atomic<int>, 64> sm_counts{};
  std::atomic<int>& cached = sm_counts[size_t(device.index) % sm_counts.size()];
  int sms = cached.load(std::memory_order_relaxed);
  if (sms == 0 || device.index >= int(sm_counts.size())) {
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device.index));
    if (device.index < int(sm_counts.size())) cached.store(sms, std::memory_order_relaxed);
  }
  return blocks_per_sm * int64_t(sms);
}
}  // namespace tessera::ops::tile_cuda
