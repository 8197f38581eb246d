// Variants of the memory-bound kernels that are below 90% of copy bandwidth, timed against a device-to-device
// copy of the same bytes in one run (session 13, bench/results/2026-11-24-h200-session13/NOTES.md). Each
// variant is a tile kernel written here; the library's kernels are included as they are, for the "main" rows.
// What it showed: gelu's erf is the bound (the same kernel mapping x -> x / 2 runs at copy speed); layer_norm
// and silu_and_mul are bound by registers, and the edge path of load/store cost them registers (now the
// ColdEdges hint). Build here (after the library):
//   nvcc -O3 -std=c++20 -I include -I src -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
//     -Xcudafe --diag_suppress=177 -DNDEBUG bench/probes/membound_variants.cu build/libtessera.a \
//     -o .device/probe/membound_variants
// Run there: .device/probe/membound_variants [name filter]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ops/activation/gelu.tile.h"
#include "ops/activation/silu_and_mul.tile.h"
#include "ops/norm/layer_norm.tile.h"
#include "tessera/tile/tile.h"

namespace probe {
using namespace tessera;
using tile::View2;
using tessera::bf16;

// ---- layer_norm variants ----

// Mean and variance of each row in one merged reduction (Chan's update of per-thread moments): measured this
// session as a layer_norm building block and not kept (slower than three row_sum reductions once the
// loads' edge paths were out of line).
template <class Slice>
struct RowMeanVar {
  Slice mean;
  Slice var;
};

namespace moments {
// The moments of a set of values: how many, their mean, and the sum of squared deviations from that mean.
struct Moments {
  float count, mean, m2;
};
// The moments of the union of two sets (Chan, Golub & LeVeque): no sum of squares of the raw values is ever
// formed, so no precision is lost to a large mean.
__device__ __forceinline__ Moments merge(const Moments& a, const Moments& b) {
  const float count = a.count + b.count;
  // A fast quotient: its error of 2 ulp scales delta, the small difference of the two means.
  const float wb = count > 0.f ? __fdividef(b.count, count) : 0.f;
  const float delta = b.mean - a.mean;
  return {count, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.count * wb};
}
__device__ __forceinline__ Moments shuffle_xor(const Moments& m, int offset) {
  return {__shfl_xor_sync(0xffffffffu, m.count, offset), __shfl_xor_sync(0xffffffffu, m.mean, offset),
          __shfl_xor_sync(0xffffffffu, m.m2, offset)};
}
}  // namespace moments

// Mean and variance (divided by the count) of each row's first n columns; columns from n on are ignored, and
// a row with none gives 0 and 0. Each thread takes the two-pass moments of its own elements, then the threads
// of a row merge theirs in one round (shuffles, then shared memory across warps): one block synchronisation
// where a mean followed by the variance around it takes two, and as stable.
template <int R, int C, int TH>
__device__ __forceinline__ RowMeanVar<tile::cuda::Tile<float, tile::cuda::RowSlice<R, C, TH>>> row_mean_var(const tile::cuda::Tile<float, tile::cuda::Blocked<R, C, TH>>& a,
                                                                                   int64_t n) {
  using P = tile::cuda::Blocked<R, C, TH>;
  using S = tile::cuda::RowSlice<R, C, TH>;
  moments::Moments m[S::size];
  float sum[S::size];
#pragma unroll
  for (int s = 0; s < S::size; ++s) { m[s] = {0.f, 0.f, 0.f}; sum[s] = 0.f; }
#pragma unroll
  for (int e = 0; e < P::size; ++e) {
    const int s = S::slot_of_chunk(e / P::V);
    const bool valid = P::col(e) < n;
    sum[s] += valid ? a.v[e] : 0.f;
    m[s].count += valid ? 1.f : 0.f;
  }
#pragma unroll
  for (int s = 0; s < S::size; ++s) m[s].mean = m[s].count > 0.f ? sum[s] / m[s].count : 0.f;
#pragma unroll
  for (int e = 0; e < P::size; ++e) {
    const int s = S::slot_of_chunk(e / P::V);
    const float d = P::col(e) < n ? a.v[e] - m[s].mean : 0.f;
    m[s].m2 += d * d;
  }
  constexpr int G = S::group;
  if constexpr (G > 1) {
    constexpr int GW = G < 32 ? G : 32;
#pragma unroll
    for (int s = 0; s < S::size; ++s)
#pragma unroll
      for (int off = GW / 2; off > 0; off /= 2) m[s] = moments::merge(m[s], moments::shuffle_xor(m[s], off));
    if constexpr (G > 32) {
      constexpr int W = TH / 32, WG = G / 32;
      __shared__ moments::Moments partial[S::size][W];
      tile::cuda::detail::block_sync();
      if (tile::cuda::detail::lane() == 0)
#pragma unroll
        for (int s = 0; s < S::size; ++s) partial[s][tile::cuda::detail::warp()] = m[s];
      tile::cuda::detail::block_sync();
      const int first = (tile::cuda::thread_rank() / G) * WG;
#pragma unroll
      for (int s = 0; s < S::size; ++s) {
        m[s] = partial[s][first];
#pragma unroll
        for (int w = 1; w < WG; ++w) m[s] = moments::merge(m[s], partial[s][first + w]);
      }
    }
  }
  RowMeanVar<tile::cuda::Tile<float, S>> out;
#pragma unroll
  for (int s = 0; s < S::size; ++s) {
    out.mean.v[s] = m[s].mean;
    out.var.v[s] = m[s].count > 0.f ? __fdividef(m[s].m2, m[s].count) : 0.f;
  }
  return out;
}



// One merged reduction for the mean and variance; weight and bias stay 16-bit until the final expression.
template <class T, int ROWS, int COLS, int THREADS, bool LATE_AFFINE>
struct LayerNormMoments {
  static constexpr int threads = THREADS;
  struct Params {
    View2<const T> x, weight, bias;
    View2<T> y;
    float eps;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * ROWS;
    const int64_t n = p.x.extent[1];
    const auto x = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, 0}));
    if constexpr (LATE_AFFINE) {
      const auto [mean, var] = row_mean_var(x, n);
      const auto rstd = rsqrt(var + p.eps);
      const auto w = load<1, COLS>(blk, p.weight, {0, 0});
      const auto b = load<1, COLS>(blk, p.bias, {0, 0});
      store(blk, p.y, {r0, 0}, cast<T>((x - mean) * rstd * cast<float>(w) + cast<float>(b)));
    } else {
      const auto w = load<1, COLS>(blk, p.weight, {0, 0});
      const auto b = load<1, COLS>(blk, p.bias, {0, 0});
      const auto [mean, var] = row_mean_var(x, n);
      const auto rstd = rsqrt(var + p.eps);
      store(blk, p.y, {r0, 0}, cast<T>((x - mean) * rstd * cast<float>(w) + cast<float>(b)));
    }
  }
};

// The same with every load taking the vector path unconditionally (only valid for aligned rows of exactly
// COLS): what the edge handling of the library's loads costs in registers.
template <int R, int C, int TH, class T>
__device__ __forceinline__ auto load_unchecked(const tile::cuda::Block<TH>&, const View2<T>& view, tile::Coord at) {
  using U = std::remove_const_t<T>;
  using L = tile::cuda::Blocked<R, C, TH>;
  using Copy = tile::cuda::detail::chunk_copy<U, L::V>;
  tile::cuda::Tile<U, L> t;
  const U* base = view.data + at.row * view.stride[0] + at.col;
#pragma unroll
  for (int k = 0; k < L::chunks; ++k) Copy::run(&t.v[k * L::V], base + tile::cuda::detail::chunk_offset<L>(k, view.stride[0]));
  return t;
}

template <class T, int ROWS, int COLS, int THREADS>
struct LayerNormUnchecked {
  static constexpr int threads = THREADS;
  using Params = typename LayerNormMoments<T, ROWS, COLS, THREADS, false>::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * ROWS;
    const auto x = cast<float>(load_unchecked<ROWS, COLS>(blk, p.x, {r0, 0}));
    const auto w = load_unchecked<1, COLS>(blk, p.weight, {0, 0});
    const auto b = load_unchecked<1, COLS>(blk, p.bias, {0, 0});
    const auto [mean, var] = row_mean_var(x, p.x.extent[1]);
    store(blk, p.y, {r0, 0}, cast<T>((x - mean) * rsqrt(var + p.eps) * cast<float>(w) + cast<float>(b)));
  }
};

// A persistent grid: block b normalises rows b, b + grid, ...; the next row's load is issued before the
// current row is reduced, so every block always has a row in flight. HOIST: weight and bias are read once
// per block and held (fp32) across rows; otherwise they are read per row (L1 hits after the first).
template <class T, int COLS, int THREADS, bool HOIST>
struct LayerNormPersistent {
  static constexpr int threads = THREADS;
  using Params = typename LayerNormMoments<T, 1, COLS, THREADS, false>::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t rows = p.x.extent[0], n = p.x.extent[1], step = blk.num_blocks(0);
    int64_t r = blk.bid(0);
    auto x = load<1, COLS>(blk, p.x, {r, 0});
    if constexpr (HOIST) {
      const auto w = cast<float>(load<1, COLS>(blk, p.weight, {0, 0}));
      const auto b = cast<float>(load<1, COLS>(blk, p.bias, {0, 0}));
      for (; r < rows; r += step) {
        const auto next = load<1, COLS>(blk, p.x, {r + step, 0});
        const auto xf = cast<float>(x);
        const auto [mean, var] = row_mean_var(xf, n);
        store(blk, p.y, {r, 0}, cast<T>((xf - mean) * rsqrt(var + p.eps) * w + b));
        x = next;
      }
    } else {
      for (; r < rows; r += step) {
        const auto next = load<1, COLS>(blk, p.x, {r + step, 0});
        const auto xf = cast<float>(x);
        const auto [mean, var] = row_mean_var(xf, n);
        const auto w = load<1, COLS>(blk, p.weight, {0, 0});
        const auto b = load<1, COLS>(blk, p.bias, {0, 0});
        store(blk, p.y, {r, 0}, cast<T>((xf - mean) * rsqrt(var + p.eps) * cast<float>(w) + cast<float>(b)));
        x = next;
      }
    }
  }
};

// ---- gelu variants ----

enum class Map { identity, erf, tanh };

template <Map M>
TILE_DEVICE auto gelu_of(const auto& x) {
  if constexpr (M == Map::identity) return x * 0.5f;
  else if constexpr (M == Map::erf) return 0.5f * x * (1.f + erf(x * 0.7071067811865476f));
  else return 0.5f * x * (1.f + tanh(0.7978845608028654f * (x + 0.044715f * (x * x * x))));
}

// One tile per block, as the library's kernel, with the map chosen at compile time.
template <class T, int COLS, int THREADS, Map M>
struct MapOnce {
  static constexpr int threads = THREADS;
  struct Params { View2<const T> x; View2<T> y; int64_t tiles; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t c0 = blk.bid(0) * COLS;
    store(blk, p.y, {0, c0}, cast<T>(gelu_of<M>(cast<float>(load<1, COLS>(blk, p.x, {0, c0})))));
  }
};

// A persistent grid: each block walks tiles b, b + grid, ... and loads the next tile before it maps and
// stores the current one, so a block always has a load in flight.
template <class T, int COLS, int THREADS, Map M>
struct MapPrefetch {
  static constexpr int threads = THREADS;
  struct Params { View2<const T> x; View2<T> y; int64_t tiles; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t step = blk.num_blocks(0);
    int64_t t = blk.bid(0);
    auto x = load<1, COLS>(blk, p.x, {0, t * COLS});
    for (; t < p.tiles; t += step) {
      const auto next = load<1, COLS>(blk, p.x, {0, (t + step) * COLS});
      store(blk, p.y, {0, t * COLS}, cast<T>(gelu_of<M>(cast<float>(x))));
      x = next;
    }
  }
};

// ---- silu_and_mul: the library kernel under different occupancy hints ----

// ---- timing ----

struct Timer {
  cudaEvent_t a, b;
  Timer() { cudaEventCreate(&a); cudaEventCreate(&b); }
  // Median of `reps` timed runs after 3 warm-ups, in microseconds.
  double median_us(const std::function<void()>& f, int reps = 25) {
    for (int i = 0; i < 3; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
      cudaEventRecord(a);
      f();
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
};

void fill_random(void* p, size_t bytes, unsigned seed) {
  // bf16 values uniform in [-2, 2) (the top half of an fp32), generated on the host once.
  std::vector<uint16_t> h(bytes / 2);
  unsigned s = seed;
  for (auto& v : h) {
    s = s * 1664525u + 1013904223u;
    const float f = float(s >> 8) * (4.f / 16777216.f) - 2.f;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    v = uint16_t(u >> 16);
  }
  cudaMemcpy(p, h.data(), bytes, cudaMemcpyHostToDevice);
}

template <class K>
void launch(int64_t blocks, const typename K::Params& p) { tile::cuda::launch<K>({blocks}, p, nullptr); }

int run(const char* filter) {
  Timer timer;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, %d SMs\n", prop.name, sms);
  const size_t max_bytes = size_t(16384) * 16384 * 2;
  void *x = nullptr, *y = nullptr, *wb = nullptr;
  cudaMalloc(&x, max_bytes);
  cudaMalloc(&y, max_bytes);
  cudaMalloc(&wb, 16384 * 2 * 2);
  fill_random(x, max_bytes, 1);
  fill_random(wb, 16384 * 2 * 2, 2);
  auto want = [&](const std::string& name) { return filter == nullptr || name.find(filter) != std::string::npos; };
  auto report = [&](const std::string& name, double us, double bytes, double copy_us_per_byte) {
    std::printf("%-44s %9.1f us  %6.2f TB/s  %5.1f%% of copy\n", name.c_str(), us, bytes / us * 1e-6,
                100.0 * copy_us_per_byte * bytes / us);
  };

  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{16384, 8192}, {4096, 4096}}) {
    const double bytes = double(rows * cols * 2) * 2;
    const double copy_us = timer.median_us([&] { cudaMemcpyAsync(y, x, size_t(bytes / 2), cudaMemcpyDeviceToDevice); });
    const double per_byte = copy_us / bytes;
    const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
    std::printf("== %s bf16, copy %.1f us (%.2f TB/s)\n", shape.c_str(), copy_us, bytes / copy_us * 1e-6);
    View2<const bf16> xv{static_cast<const bf16*>(x), {rows, cols}, {cols, 1}};
    View2<bf16> yv{static_cast<bf16*>(y), {rows, cols}, {cols, 1}};
    View2<const bf16> w{static_cast<const bf16*>(wb), {1, cols}, {cols, 1}};
    View2<const bf16> b{static_cast<const bf16*>(wb) + 16384, {1, cols}, {cols, 1}};

    // layer_norm
    auto ln_main = [&]<int COLS, int TH, int MB>(const char* name) {
      using K = tile::MinBlocksPerSm<ops::kernels::LayerNorm<bf16, bf16, 1, COLS, TH, true>, MB>;
      typename K::Params p{xv, w, b, yv, 1e-5f};
      if (want(std::string("layer_norm ") + name)) report(std::string("layer_norm ") + name + " " + shape, timer.median_us([&] { launch<K>(rows, p); }), bytes, per_byte);
    };
    auto ln_mom = [&]<int R, int COLS, int TH, bool LATE, int MB>(const char* name) {
      using K = tile::MinBlocksPerSm<LayerNormMoments<bf16, R, COLS, TH, LATE>, MB>;
      typename K::Params p{xv, w, b, yv, 1e-5f};
      if (want(std::string("layer_norm ") + name)) report(std::string("layer_norm ") + name + " " + shape, timer.median_us([&] { launch<K>(rows / R, p); }), bytes, per_byte);
    };
    auto ln_unc = [&]<int R, int COLS, int TH, int MB>(const char* name) {
      using K = tile::MinBlocksPerSm<LayerNormUnchecked<bf16, R, COLS, TH>, MB>;
      typename K::Params p{xv, w, b, yv, 1e-5f};
      if (want(std::string("layer_norm ") + name)) report(std::string("layer_norm ") + name + " " + shape, timer.median_us([&] { launch<K>(rows / R, p); }), bytes, per_byte);
    };
    auto ln_per = [&]<int COLS, int TH, bool HOIST, int MB>(const char* name) {
      using K = tile::MinBlocksPerSm<LayerNormPersistent<bf16, COLS, TH, HOIST>, MB>;
      typename K::Params p{xv, w, b, yv, 1e-5f};
      if (want(std::string("layer_norm ") + name)) report(std::string("layer_norm ") + name + " " + shape, timer.median_us([&] { launch<K>(std::min<int64_t>(rows, int64_t(sms) * MB), p); }), bytes, per_byte);
    };
    if (cols == 8192) {
      ln_per.template operator()<8192, 256, false, 2>("persistent 256t, mb2");
      ln_per.template operator()<8192, 256, false, 3>("persistent 256t, mb3");
      ln_per.template operator()<8192, 512, false, 1>("persistent 512t, mb1");
      ln_per.template operator()<8192, 512, false, 2>("persistent 512t, mb2");
      ln_per.template operator()<8192, 256, true, 1>("persistent 256t hoisted w/b, mb1");
      ln_per.template operator()<8192, 512, true, 1>("persistent 512t hoisted w/b, mb1");
      ln_per.template operator()<8192, 1024, true, 1>("persistent 1024t hoisted w/b, mb1");
      ln_unc.template operator()<1, 8192, 256, 2>("unchecked 256t, mb2");
      ln_unc.template operator()<1, 8192, 256, 3>("unchecked 256t, mb3");
      ln_unc.template operator()<1, 8192, 512, 2>("unchecked 512t, mb2");
      ln_unc.template operator()<2, 8192, 512, 1>("unchecked 2 rows 512t, mb1");
      ln_unc.template operator()<4, 8192, 1024, 1>("unchecked 4 rows 1024t, mb1");
      ln_main.template operator()<8192, 256, 2>("main (3 reductions, mb2)");
      ln_mom.template operator()<1, 8192, 256, false, 2>("moments, mb2");
      ln_mom.template operator()<1, 8192, 512, true, 2>("moments 512t late w/b, mb2");
      ln_mom.template operator()<2, 8192, 512, false, 1>("moments 2 rows 512t, mb1");
      ln_mom.template operator()<2, 8192, 512, false, 2>("moments 2 rows 512t, mb2");
      ln_mom.template operator()<4, 8192, 512, false, 1>("moments 4 rows 512t, mb1");
      ln_mom.template operator()<4, 8192, 1024, false, 1>("moments 4 rows 1024t, mb1");
      ln_mom.template operator()<2, 8192, 256, false, 1>("moments 2 rows 256t, mb1");
    } else {
      ln_per.template operator()<4096, 128, false, 4>("persistent 128t, mb4");
      ln_per.template operator()<4096, 128, false, 6>("persistent 128t, mb6");
      ln_per.template operator()<4096, 256, false, 2>("persistent 256t, mb2");
      ln_per.template operator()<4096, 256, false, 3>("persistent 256t, mb3");
      ln_per.template operator()<4096, 128, true, 3>("persistent 128t hoisted w/b, mb3");
      ln_per.template operator()<4096, 256, true, 2>("persistent 256t hoisted w/b, mb2");
      ln_per.template operator()<4096, 512, true, 1>("persistent 512t hoisted w/b, mb1");
      ln_unc.template operator()<1, 4096, 128, 4>("unchecked 128t, mb4");
      ln_unc.template operator()<1, 4096, 128, 6>("unchecked 128t, mb6");
      ln_unc.template operator()<2, 4096, 256, 3>("unchecked 2 rows 256t, mb3");
      ln_unc.template operator()<4, 4096, 512, 1>("unchecked 4 rows 512t, mb1");
      ln_main.template operator()<4096, 128, 4>("main (3 reductions, mb4)");
      ln_mom.template operator()<1, 4096, 128, false, 4>("moments, mb4");
      ln_mom.template operator()<2, 4096, 256, false, 2>("moments 2 rows 256t, mb2");
      ln_mom.template operator()<2, 4096, 256, false, 4>("moments 2 rows 256t, mb4");
      ln_mom.template operator()<4, 4096, 512, false, 1>("moments 4 rows 512t, mb1");
      ln_mom.template operator()<4, 4096, 512, false, 2>("moments 4 rows 512t, mb2");
      ln_mom.template operator()<4, 4096, 1024, false, 2>("moments 4 rows 1024t, mb2");
    }

    // gelu over the flat tensor
    const int64_t n = rows * cols;
    View2<const bf16> xf{static_cast<const bf16*>(x), {1, n}, {n, 1}};
    View2<bf16> yf{static_cast<bf16*>(y), {1, n}, {n, 1}};
    auto g_main = [&]<int MB>(const char* name) {
      using K = tile::MinBlocksPerSm<ops::kernels::Gelu<bf16, 1, 2048, 128>, MB>;
      typename K::Params p{xf, yf, (n + 2047) / 2048, false};
      if (want(std::string("gelu ") + name)) report(std::string("gelu ") + name + " " + shape, timer.median_us([&] { launch<K>((n + 2047) / 2048, p); }), bytes, per_byte);
    };
    auto g_once = [&]<int COLS, int TH, Map M, int MB>(const char* name) {
      using K = tile::MinBlocksPerSm<MapOnce<bf16, COLS, TH, M>, MB>;
      const int64_t tiles = (n + COLS - 1) / COLS;
      typename K::Params p{xf, yf, tiles};
      if (want(std::string("gelu ") + name)) report(std::string("gelu ") + name + " " + shape, timer.median_us([&] { launch<K>(tiles, p); }), bytes, per_byte);
    };
    auto g_pre = [&]<int COLS, int TH, Map M, int MB>(const char* name) {
      using K = tile::MinBlocksPerSm<MapPrefetch<bf16, COLS, TH, M>, MB>;
      const int64_t tiles = (n + COLS - 1) / COLS;
      typename K::Params p{xf, yf, tiles};
      const int64_t grid = std::min<int64_t>(tiles, int64_t(sms) * MB);
      if (want(std::string("gelu ") + name)) report(std::string("gelu ") + name + " " + shape, timer.median_us([&] { launch<K>(grid, p); }), bytes, per_byte);
    };
    g_main.template operator()<8>("main (erf, 1x2048, mb8)");
    g_once.template operator()<2048, 128, Map::identity, 8>("identity once 1x2048 mb8");
    g_once.template operator()<1024, 128, Map::identity, 16>("identity once 1x1024 mb16");
    g_once.template operator()<2048, 128, Map::tanh, 8>("tanh once 1x2048 mb8");
    g_once.template operator()<1024, 128, Map::erf, 12>("erf once 1x1024 mb12");
    g_pre.template operator()<1024, 128, Map::identity, 8>("identity prefetch 1x1024 mb8");
    g_pre.template operator()<1024, 128, Map::erf, 8>("erf prefetch 1x1024 mb8");
    g_pre.template operator()<2048, 128, Map::erf, 6>("erf prefetch 1x2048 mb6");
    g_pre.template operator()<1024, 256, Map::erf, 4>("erf prefetch 1x1024/256t mb4");
    g_pre.template operator()<2048, 256, Map::erf, 4>("erf prefetch 1x2048/256t mb4");

    // silu_and_mul: y [rows, cols / 2] from x [rows, cols]: reads 2 bytes per element of y twice, writes once.
    {
      const int64_t half = cols / 2;
      View2<const bf16> gate{static_cast<const bf16*>(x), {rows, half}, {cols, 1}};
      View2<const bf16> up{static_cast<const bf16*>(x) + half, {rows, half}, {cols, 1}};
      View2<bf16> ys{static_cast<bf16*>(y), {rows, half}, {half, 1}};
      const double sbytes = double(rows * half * 2) * 3;
      auto s_run = [&]<int COLS, int TH, int MB>(const char* name) {
        using K = tile::MinBlocksPerSm<ops::kernels::SiluAndMul<bf16, 1, COLS, TH>, MB>;
        const int64_t col_blocks = (half + COLS - 1) / COLS;
        typename K::Params p{gate, up, ys, col_blocks};
        if (want(std::string("silu ") + name)) report(std::string("silu_and_mul ") + name + " " + shape, timer.median_us([&] { launch<K>(rows * col_blocks, p); }), sbytes, per_byte);
      };
      s_run.template operator()<2048, 128, 1>("main 1x2048 (no hint)");
      s_run.template operator()<2048, 128, 8>("1x2048 mb8");
      s_run.template operator()<1024, 128, 12>("1x1024 mb12");
      s_run.template operator()<4096, 256, 4>("1x4096/256t mb4");
    }
  }
  return 0;
}
}  // namespace probe

int main(int argc, char** argv) { return probe::run(argc > 1 ? argv[1] : nullptr); }
