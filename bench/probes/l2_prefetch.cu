// Probe (session 15): can a decode step pull the next projection's weights into L2 while attention runs?
//
// A batch-1 decode layer spends ~20 us in rope, attention and the split merge, which read ~2 MB, then the o
// projection streams 33.5 MB of weights from DRAM. This measures, on buffers rotated past L2:
//   1. how long a kernel that only issues bulk L2 prefetches (cp.async.bulk.prefetch.L2) of S bytes runs
//      (does a block retire before its prefetches land?);
//   2. a streaming read of S bytes (the projection's stand-in) cold, and after [prefetch kernel, a 20 us
//      spin kernel standing in for attention], for S = 8 .. 48 MB: how much of S L2 keeps;
//   3. the spin kernel's time with and without the prefetch kernel launched before it.
// Plain CUDA, not tile kernels, like the other probes: it measures the instruction and the memory system
// themselves (the tile-library op built on it, tile::prefetch_l2, is on branch
// experiment/l2-prefetch-and-in-kernel-merge with the engine change it did not pay for).
// Build: nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a bench/probes/l2_prefetch.cu -o .device/l2_prefetch
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e = (x);                                                                      \
    if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } \
  } while (0)

// CHECK for code that cannot return an exit status (lambdas): prints and exits.
void ok(cudaError_t e) {
  if (e != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e)); std::exit(1); }
}

__global__ void prefetch_l2(const char* p, size_t bytes, size_t chunk) {
  const size_t n = (bytes + chunk - 1) / chunk;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t off = i * chunk, len = chunk < bytes - off ? chunk : bytes - off;
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p + off), "r"(unsigned(len)) : "memory");
  }
}

// Streams n 16-byte words, 8 independent loads in flight per thread, and keeps a sum (so the loads are not
// dropped).
__global__ void stream_read(const uint4* p, size_t n, unsigned* sink) {
  unsigned acc = 0;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += 8 * stride) {
    uint4 v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) v[u] = i + u * stride < n ? __ldg(p + i + u * stride) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < 8; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x12345678u) *sink = acc;
}

__global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
}

__global__ void scrub(uint4* p, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_uint4(unsigned(i), 1, 2, 3);
}

int main() {
  int sms = 0, clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const size_t max_bytes = size_t(48) << 20, scrub_bytes = size_t(512) << 20;
  const int copies = 4;
  std::vector<char*> w(copies);
  for (auto& b : w) {
    CHECK(cudaMalloc(&b, max_bytes));
    scrub<<<sms * 4, 256>>>(reinterpret_cast<uint4*>(b), max_bytes / 16);
  }
  uint4* junk = nullptr;
  unsigned* sink = nullptr;
  CHECK(cudaMalloc(&junk, scrub_bytes));
  CHECK(cudaMalloc(&sink, 4));
  cudaEvent_t e0, e1, e2;
  CHECK(cudaEventCreate(&e0)); CHECK(cudaEventCreate(&e1)); CHECK(cudaEventCreate(&e2));
  const long long spin_cycles = (long long)clock_khz * 20 / 1000;  // 20 us
  // L2 emptied of the buffers (a 512 MB write), then its write-back drained.
  auto drain = [&] {
    scrub<<<sms * 4, 256>>>(junk, scrub_bytes / 16);
    spin<<<1, 32>>>(spin_cycles);
  };
  // Microseconds between events around launch(), waited for.
  auto timed = [&](auto&& launch) {
    float ms = 0;
    ok(cudaEventRecord(e0));
    launch();
    ok(cudaEventRecord(e1));
    ok(cudaEventSynchronize(e1));
    ok(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1e3f;
  };
  auto median = [](std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  const int reps = 15;

  std::printf("# %d SMs, clock %d MHz\n", sms, clock_khz / 1000);
  std::printf("%8s %12s %12s %12s %12s %12s %12s\n", "MB", "prefetch_us", "spin_us", "spin+pf_us", "read_cold", "read_after",
              "read_hot");
  for (size_t mb : {8, 16, 24, 32, 34, 40, 48}) {
    const size_t bytes = mb << 20, n16 = bytes / 16;
    std::vector<float> t_pf, t_spin, t_spin_pf, t_cold, t_after, t_hot;
    for (int r = 0; r < reps; ++r) {
      const char* b = w[size_t(r) % copies];
      float ms = 0;
      // prefetch kernel alone (after the scrub's write-back has drained)
      drain();
      t_pf.push_back(timed([&] { prefetch_l2<<<sms, 128>>>(b, bytes, 16384); }));
      t_spin.push_back(timed([&] { spin<<<1, 32>>>(spin_cycles); }));
      // cold read, then hot read (right after the cold one)
      drain();
      t_cold.push_back(timed([&] { stream_read<<<sms * 4, 256>>>(reinterpret_cast<const uint4*>(b), n16, sink); }));
      t_hot.push_back(timed([&] { stream_read<<<sms * 4, 256>>>(reinterpret_cast<const uint4*>(b), n16, sink); }));
      // prefetch, spin (attention's stand-in), read: no host wait between them
      drain();
      CHECK(cudaEventRecord(e0));
      prefetch_l2<<<sms, 128>>>(b, bytes, 16384);
      spin<<<1, 32>>>(spin_cycles);
      CHECK(cudaEventRecord(e1));
      stream_read<<<sms * 4, 256>>>(reinterpret_cast<const uint4*>(b), n16, sink);
      CHECK(cudaEventRecord(e2));
      CHECK(cudaEventSynchronize(e2));
      CHECK(cudaEventElapsedTime(&ms, e0, e1)); t_spin_pf.push_back(ms * 1e3f);
      CHECK(cudaEventElapsedTime(&ms, e1, e2)); t_after.push_back(ms * 1e3f);
    }
    std::printf("%8zu %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f\n", mb, median(t_pf), median(t_spin), median(t_spin_pf),
                median(t_cold), median(t_after), median(t_hot));
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
