// Probe (session 37, run A; a recorded experiment, not library code): f16 vs bf16 layer_norm one-pass variants,
// 16384x8192 and 4096x4096, % of D2D copy. Variant 0 is the library kernel of the build it ran with (x kept in f16
// and widened at each use, later replaced), 3 session 36's library kernel, 2 its unmasked path alone (what
// f16 full rows now run: LayerNorm's FULL_ROWS), 1 session 33's packed form.
#include <algorithm>
#include <cstdio>
#include <type_traits>
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
    } else if constexpr (VARIANT == 3) {  // session 36's library kernel: one pass, masked and unmasked paths
      const auto col = arange<1, COLS>(blk, 1);
      if (n == COLS) old_pass(blk, p, r0, n, tile::everywhere);
      else old_pass(blk, p, r0, n, col < tile::columns_inside<COLS>(n, 0));
    } else if constexpr (VARIANT == 2) {  // session 36's one pass: x widened once, d kept
      const auto x = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, 0}, 0.f, tile::cold_edges));
      const auto mean = row_sum(x) / float(n);
      const auto d = x - mean;
      const auto shift = row_sum(d) / float(n);
      const auto variance = maximum(row_sum(d * d) / float(n) - shift * shift, 0.f);
      const auto rstd = rsqrt(variance + p.eps);
      const auto w = cast<float>(load<1, COLS>(blk, p.weight, {0, 0}, 0.f, tile::cold_edges));
      const auto b = cast<float>(load<1, COLS>(blk, p.bias, {0, 0}, 0.f, tile::cold_edges));
      store(blk, p.y, {r0, 0}, cast<Y>((d - shift) * rstd * w + b), tile::cold_edges);
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
  template <class Block, class Inside>
  TILE_DEVICE void old_pass(Block& blk, const Params& p, int64_t r0, int64_t n, Inside inside) const {
    const auto x = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, 0}, 0.f, tile::cold_edges));
    const auto mean = row_sum(x) / float(n);
    const auto d = where(inside, x - mean, 0.f);
    const auto shift = row_sum(d) / float(n);
    const auto variance = maximum(row_sum(d * d) / float(n) - shift * shift, 0.f);
    const auto rstd = rsqrt(variance + p.eps);
    const auto w = cast<float>(load<1, COLS>(blk, p.weight, {0, 0}, 0.f, tile::cold_edges));
    const auto b = cast<float>(load<1, COLS>(blk, p.bias, {0, 0}, 0.f, tile::cold_edges));
    store(blk, p.y, {r0, 0}, cast<Y>((d - shift) * rstd * w + b), tile::cold_edges);
  }
};
}  // namespace tessera::ops::kernels
using namespace tessera;

template <class X, int COLS, int THREADS, int VARIANT, int MB>
float time_ln(const char* name, int64_t rows, std::vector<void*>& xs, std::vector<void*>& ys, void* w, void* b, float copy_us) {
  using K = tile::MinBlocksPerSm<ops::kernels::LnV<X, X, 1, COLS, THREADS, VARIANT>, MB>;
  auto params = [&](int i) {
    typename K::Params p{};
    p.x.data = (const X*)xs[i]; p.x.extent[0] = rows; p.x.extent[1] = COLS; p.x.stride[0] = COLS; p.x.stride[1] = 1;
    p.y.data = (X*)ys[i]; p.y.extent[0] = rows; p.y.extent[1] = COLS; p.y.stride[0] = COLS; p.y.stride[1] = 1;
    p.weight.data = (const X*)w; p.weight.extent[0] = 1; p.weight.extent[1] = COLS; p.weight.stride[0] = COLS; p.weight.stride[1] = 1;
    p.bias = p.weight; p.bias.data = (const X*)b;
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

template <class X>
__global__ void fill(X* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    const float f = (float(h & 0xffff) / 65536.f - 0.5f) * 4.f + 1.f;
    p[i] = tessera::from_float<X>(f);
  }
}

template <class X, int COLS, int TH>
void shape(int64_t rows) {
  const int64_t bytes = rows * COLS * 2;
  const int nbuf = bytes >= (int64_t(128) << 20) ? 2 : 8;
  std::vector<void*> xs(nbuf), ys(nbuf);
  for (int i = 0; i < nbuf; ++i) { cudaMalloc(&xs[i], bytes); cudaMalloc(&ys[i], bytes); fill<<<1024, 256>>>((X*)xs[i], rows * COLS, 7 + i); }
  void *w, *b; cudaMalloc(&w, COLS * 2); cudaMalloc(&b, COLS * 2);
  fill<<<64, 256>>>((X*)w, COLS, 1); fill<<<64, 256>>>((X*)b, COLS, 2);
  cudaDeviceSynchronize();
  const char* dt = sizeof(X) == 2 && std::is_same_v<X, f16> ? "f16" : "bf16";
  for (int round = 0; round < 2; ++round) {
    const float copy_us = time_copy(bytes, xs, ys);
    std::printf("%s copy %lld bytes: %.2f us (%.2f TB/s read+write)\n", dt, (long long)bytes, copy_us, 2.0 * bytes / copy_us / 1e6);
    constexpr int MB = COLS == 8192 ? 3 : 6;
    time_ln<X, COLS, TH, 0, MB>("library kernel (this build)", rows, xs, ys, w, b, copy_us);
    time_ln<X, COLS, TH, 3, MB>("session 36 library kernel", rows, xs, ys, w, b, copy_us);
    time_ln<X, COLS, TH, 2, MB>("session 36, unmasked only", rows, xs, ys, w, b, copy_us);
    time_ln<X, COLS, TH, 2, MB - 1>("session 36, a block fewer", rows, xs, ys, w, b, copy_us);
    time_ln<X, COLS, TH, 1, MB>("packed, unmasked", rows, xs, ys, w, b, copy_us);
  }
  for (int i = 0; i < nbuf; ++i) { cudaFree(xs[i]); cudaFree(ys[i]); }
  cudaFree(w); cudaFree(b);
}

int main() {
  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
  std::printf("%s\n", prop.name);
  shape<bf16, 8192, 256>(16384);
  shape<f16, 8192, 256>(16384);
  shape<bf16, 4096, 128>(4096);
  shape<f16, 4096, 128>(4096);
  return 0;
}
