// Random bf16 inputs for the probes: uniform in [-scale, scale) from a fixed-seed generator on the host (each
// value the top half of an fp32), copied to the device once.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace probe {
inline void fill_random_bf16(void* device, size_t bytes, unsigned seed, float scale) {
  std::vector<uint16_t> h(bytes / 2);
  unsigned s = seed;
  for (auto& v : h) {
    s = s * 1664525u + 1013904223u;
    const float f = (float(s >> 8) * (2.f / 16777216.f) - 1.f) * scale;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    v = uint16_t(u >> 16);
  }
  cudaMemcpy(device, h.data(), bytes, cudaMemcpyHostToDevice);
}
}  // namespace probe
