// A CUDA device attribute asked of the driver once per device and kept (launches ask for them every time).
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <atomic>

#include "tessera/runtime/cuda_check.h"

namespace tessera::tile::cuda::detail {
// ask(device) for the current device, the first time; `known` holds each device's answer (0: not asked yet).
template <class Ask>
int per_device(std::array<std::atomic<int>, 64>& known, Ask ask) {
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  std::atomic<int>* slot = device >= 0 && device < int(known.size()) ? &known[size_t(device)] : nullptr;
  if (slot != nullptr) {
    const int seen = slot->load(std::memory_order_relaxed);
    if (seen != 0) return seen;
  }
  const int value = ask(device);
  if (slot != nullptr) slot->store(value, std::memory_order_relaxed);
  return value;
}
}  // namespace tessera::tile::cuda::detail
