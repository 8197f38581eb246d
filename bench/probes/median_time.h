// Event timing for the probes: the median of `reps` runs after 3 warm-ups, in microseconds. f(i) runs input
// copy i % copies, so that a probe can rotate its input over copies that together pass the L2 (no run then
// reads what the one before left in the cache).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace probe {
inline double median_us(const std::function<void(int)>& f, int copies = 1, int reps = 31) {
  static cudaEvent_t a = nullptr, b = nullptr;
  if (a == nullptr) { cudaEventCreate(&a); cudaEventCreate(&b); }
  for (int i = 0; i < 3; ++i) f(i % copies);
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    f(i % copies);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000.f);
  }
  std::sort(t.begin(), t.end());
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { std::printf("CUDA error: %s\n", cudaGetErrorString(e)); std::exit(1); }
  return t[t.size() / 2];
}
}  // namespace probe
