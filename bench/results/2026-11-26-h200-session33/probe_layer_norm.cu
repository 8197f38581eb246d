// Probe (not committed): layer_norm one-pass variants, bf16 16384x8192 and 4096x4096, % of D2D copy.
#include <algorithm>
#include <cstdio>
#include <vector>
#include "tessera/tile/tile.h"
#include "ops/norm/layer_norm.tile.h"
namespace tessera::ops::kernels {
template <class X, class Y, int ROWS, int COLS, int THREADS, int VARIANT>
struct LnV {
  static constexpr int threads = THREADS;
  using Params = typename LayerNorm<X, Y, ROWS, COLS, THREADS, true>::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * ROWS;
    const int64_t n = p.x.extent[1];
    if constexpr (VARIANT == 0) {
      LayerNorm<X, Y, ROWS, COLS, THREADS, true>{}(blk, p);
    } else {
      const auto x = load<ROWS, COLS>(blk, p.x, {r0, 0}, 0.f, tile::cold_edges);
      const auto mean = row_sum(cast<float>(x)) / float(n);
      const auto shift = row_sum(cast<float>(x) - mean) / float(n);
      const auto variance = maximum(row_sum((cast<float>(x) - mean) * (cast<float>(x) - mean)) / float(n) - shift * shift, 0.f);
      const auto rstd = rsqrt(variance + p.eps);
      const auto w = cast<float>(load<1, COLS>(blk, p.weight, {0, 0}, 0.f, tile::cold_edges));
      const auto b = cast<float>(load<1, COLS>(blk, p.bias, {0, 0}, 0.f, tile::cold_edges));
      store(blk, p.y, {r0, 0}, cast<Y>((cast<float>(x) - mean - shift) * rstd * w + b), tile::cold_edges);
    }
  }
};
}  // namespace tessera::ops::kernels
using namespace tessera;
using P = ops::kernels::LayerNorm<bf16, bf16, 1, 8192, 256, true>::Params;

template <int COLS, int THREADS, int VARIANT, int MB>
float time_ln(const char* name, int64_t rows, std::vector<void*>& xs, std::vector<void*>& ys, void* w, void* b, float copy_us) {
  using K = tile::MinBlocksPerSm<ops::kernels::LnV<bf16, bf16, 1, COLS, THREADS, VARIANT>, MB>;
  auto params = [&](int i) {
    typename K::Params p{};
    p.x.data = (const bf16*)xs[i]; p.x.extent[0] = rows; p.x.extent[1] = COLS; p.x.stride[0] = COLS; p.x.stride[1] = 1;
    p.y.data = (bf16*)ys[i]; p.y.extent[0] = rows; p.y.extent[1] = COLS; p.y.stride[0] = COLS; p.y.stride[1] = 1;
    p.weight.data = (const bf16*)w; p.weight.extent[0] = 1; p.weight.extent[1] = COLS; p.weight.stride[0] = COLS; p.weight.stride[1] = 1;
    p.bias = p.weight; p.bias.data = (const bf16*)b;
    p.eps = 1e-5f;
    return p;
  };
  cudaStream_t s; cudaStreamCreate(&s);
  for (int i = 0; i < 6; ++i) tile::active::launch<K>({rows}, params(i % xs.size()), s);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> t;
  for (int r = 0; r < 40; ++r) {
    cudaEventRecord(e0, s);
    for (int i = 0; i < 10; ++i) tile::active::launch<K>({rows}, params(i % xs.size()), s);
    cudaEventRecord(e1, s); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 100.f);
  }
  std::sort(t.begin(), t.end());
  const float us = t[t.size() / 2];
  std::printf("%-28s rows %6lld cols %5d: %8.2f us  %5.1f%% of copy\n", name, (long long)rows, COLS, us, 100.f * copy_us / us);
  cudaStreamDestroy(s);
  return us;
}

float time_copy(int64_t bytes, std::vector<void*>& xs, std::vector<void*>& ys) {
  cudaStream_t s; cudaStreamCreate(&s);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int i = 0; i < 6; ++i) cudaMemcpyAsync(ys[i % ys.size()], xs[i % xs.size()], bytes, cudaMemcpyDeviceToDevice, s);
  std::vector<float> t;
  for (int r = 0; r < 40; ++r) {
    cudaEventRecord(e0, s);
    for (int i = 0; i < 10; ++i) cudaMemcpyAsync(ys[i % ys.size()], xs[i % xs.size()], bytes, cudaMemcpyDeviceToDevice, s);
    cudaEventRecord(e1, s); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 100.f);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

__global__ void fill(uint16_t* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    const float f = (float(h & 0xffff) / 65536.f - 0.5f) * 4.f + 1.f;
    p[i] = uint16_t(__float_as_uint(f) >> 16);
  }
}

template <int COLS, int TH, int MB_OLD, int MB_A, int MB_B>
void shape(int64_t rows) {
  const int64_t bytes = rows * COLS * 2;
  const int nbuf = bytes >= (int64_t(128) << 20) ? 2 : 8;
  std::vector<void*> xs(nbuf), ys(nbuf);
  for (int i = 0; i < nbuf; ++i) { cudaMalloc(&xs[i], bytes); cudaMalloc(&ys[i], bytes); fill<<<1024, 256>>>((uint16_t*)xs[i], rows * COLS, 7 + i); }
  void *w, *b; cudaMalloc(&w, COLS * 2); cudaMalloc(&b, COLS * 2);
  fill<<<64, 256>>>((uint16_t*)w, COLS, 1); fill<<<64, 256>>>((uint16_t*)b, COLS, 2);
  cudaDeviceSynchronize();
  for (int round = 0; round < 2; ++round) {
    const float copy_us = time_copy(bytes, xs, ys);
    std::printf("copy %lld bytes: %.2f us (%.2f TB/s read+write)\n", (long long)bytes, copy_us, 2.0 * bytes / copy_us / 1e6);
    time_ln<COLS, TH, 0, MB_OLD>("old", rows, xs, ys, w, b, copy_us);
    time_ln<COLS, TH, 1, MB_OLD>("packed same blocks", rows, xs, ys, w, b, copy_us);
    time_ln<COLS, TH, 1, MB_A>("packed more blocks", rows, xs, ys, w, b, copy_us);
    time_ln<COLS, TH, 0, MB_A>("old more blocks", rows, xs, ys, w, b, copy_us);
    if constexpr (MB_B > 0) time_ln<COLS, TH, 1, MB_B>("packed even more", rows, xs, ys, w, b, copy_us);
  }
  for (int i = 0; i < nbuf; ++i) { cudaFree(xs[i]); cudaFree(ys[i]); }
  cudaFree(w); cudaFree(b);
}

int main() {
  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
  std::printf("%s\n", prop.name);
  shape<8192, 256, 3, 4, 0>(16384);
  shape<4096, 128, 6, 8, 7>(4096);
  shape<4096, 128, 6, 8, 7>(16384);
  return 0;
}
