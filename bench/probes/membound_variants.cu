// Variants of the memory-bound kernels that are below 90% of copy bandwidth, timed against a device-to-device
// copy of the same bytes in one run (session 13, bench/results/2026-11-24-h200-session13/NOTES.md). Each
// variant is a tile kernel written here; the library's kernels are included as they are, for the "main" rows.
// What it showed: gelu's erf is the bound (the same kernel mapping x -> x / 2 runs at copy speed); layer_norm
// and silu_and_mul are bound by registers, and the edge path of load/store cost them registers (now the
// ColdEdges hint). The layer_norm variants of the session's logs (a merged mean/variance reduction, unchecked
// loads, persistent rows) were not kept and are not here: they are in git history (801918d). Session 25's
// (weight and bias read after the reductions, which the library's kernel now does; the row kept 16-bit and
// widened at each pass, which spilled) are in git history too (20ec38a). Build here
// (after the library):
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
#include "median_time.h"
#include "random_bf16.h"
#include "tessera/tile/tile.h"

namespace probe {
using namespace tessera;
using tessera::bf16;
using tile::View2;

enum class Map { identity, erf, tanh, phi };

template <Map M>
TILE_DEVICE auto gelu_of(const auto& x) {
  if constexpr (M == Map::identity) return x * 0.5f;
  else if constexpr (M == Map::erf) return 0.5f * x * (1.f + erf(x * 0.7071067811865476f));
  else if constexpr (M == Map::phi) return x * normal_cdf_coarse(x);  // the library's 16-bit gelu (session 19)
  else return 0.5f * x * (1.f + tanh(0.7978845608028654f * (x + 0.044715f * (x * x * x))));
}

struct MapParams {
  View2<const bf16> x;
  View2<bf16> y;
  int64_t tiles;
};

// One tile per block, as the library's gelu, with the map chosen at compile time.
template <int COLS, int THREADS, Map M>
struct MapOnce {
  static constexpr int threads = THREADS;
  using Params = MapParams;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t c0 = blk.bid(0) * COLS;
    store(blk, p.y, {0, c0}, cast<bf16>(gelu_of<M>(cast<float>(load<1, COLS>(blk, p.x, {0, c0})))));
  }
};

// A persistent grid: each block walks tiles b, b + grid, ... and loads the next tile before it maps and
// stores the current one, so a block always has a load in flight.
template <int COLS, int THREADS, Map M>
struct MapPrefetch {
  static constexpr int threads = THREADS;
  using Params = MapParams;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t step = blk.num_blocks(0);
    int64_t t = blk.bid(0);
    auto x = load<1, COLS>(blk, p.x, {0, t * COLS});
    for (; t < p.tiles; t += step) {
      const auto next = load<1, COLS>(blk, p.x, {0, (t + step) * COLS});
      store(blk, p.y, {0, t * COLS}, cast<bf16>(gelu_of<M>(cast<float>(x))));
      x = next;
    }
  }
};

// Times kernel K (with at least MB blocks per SM) on `blocks` blocks and prints its share of copy bandwidth.
struct Bench {
  const char* filter;
  double copy_us_per_byte = 0;
  std::string shape;

  template <class Kernel, int MB>
  void time(const std::string& name, int64_t blocks, const typename Kernel::Params& p, double bytes) const {
    using K = tile::MinBlocksPerSm<Kernel, MB>;
    const std::string full = name + " " + shape;
    if (filter != nullptr && full.find(filter) == std::string::npos) return;
    const double us = median_us([&](int) { tile::cuda::launch<K>({blocks}, p, nullptr); }, 1, 25);
    std::printf("%-48s %9.1f us  %6.2f TB/s  %5.1f%% of copy\n", full.c_str(), us, bytes / us * 1e-6,
                100.0 * copy_us_per_byte * bytes / us);
  }
};

int run(const char* filter) {
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
  fill_random_bf16(x, max_bytes, 1, 2.f);
  fill_random_bf16(wb, 16384 * 2 * 2, 2, 2.f);

  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{16384, 8192}, {4096, 4096}}) {
    Bench bench{filter};
    const double bytes = double(rows * cols * 2) * 2;
    const double copy_us = median_us([&](int) { cudaMemcpyAsync(y, x, size_t(bytes / 2), cudaMemcpyDeviceToDevice); }, 1, 25);
    bench.copy_us_per_byte = copy_us / bytes;
    bench.shape = std::to_string(rows) + "x" + std::to_string(cols);
    std::printf("== %s bf16, copy %.1f us (%.2f TB/s)\n", bench.shape.c_str(), copy_us, bytes / copy_us * 1e-6);

    // layer_norm: the library's one-pass kernel
    const View2<const bf16> xv{static_cast<const bf16*>(x), {rows, cols}, {cols, 1}};
    const View2<bf16> yv{static_cast<bf16*>(y), {rows, cols}, {cols, 1}};
    const View2<const bf16> w{static_cast<const bf16*>(wb), {1, cols}, {cols, 1}};
    const View2<const bf16> b{static_cast<const bf16*>(wb) + 16384, {1, cols}, {cols, 1}};
    if (cols == 8192) {
      using K = ops::kernels::LayerNorm<bf16, bf16, 1, 8192, 256, true>;
      bench.time<K, 3>("layer_norm main, mb3", rows, {xv, w, b, yv, 1e-5f}, bytes);
    } else {
      using K = ops::kernels::LayerNorm<bf16, bf16, 1, 4096, 128, true>;
      bench.time<K, 6>("layer_norm main, mb6", rows, {xv, w, b, yv, 1e-5f}, bytes);
    }

    // gelu over the flat tensor
    const int64_t n = rows * cols;
    const View2<const bf16> xf{static_cast<const bf16*>(x), {1, n}, {n, 1}};
    const View2<bf16> yf{static_cast<bf16*>(y), {1, n}, {n, 1}};
    bench.time<ops::kernels::Gelu<bf16, 1, 4096, 128, false>, 8>("gelu main (1x4096, mb8)", n / 4096,
                                                                 {xf, yf, n / 4096}, bytes);
    const MapParams tiles2k{xf, yf, n / 2048}, tiles1k{xf, yf, n / 1024};
    bench.time<MapOnce<2048, 128, Map::identity>, 8>("gelu identity once 1x2048 mb8", n / 2048, tiles2k, bytes);
    const MapParams tiles4k{xf, yf, n / 4096};
    bench.time<MapOnce<2048, 128, Map::phi>, 8>("gelu phi once 1x2048 mb8", n / 2048, tiles2k, bytes);
    bench.time<MapOnce<4096, 128, Map::phi>, 8>("gelu phi once 1x4096 mb8", n / 4096, tiles4k, bytes);
    bench.time<MapOnce<4096, 256, Map::phi>, 4>("gelu phi once 1x4096/256t mb4", n / 4096, tiles4k, bytes);
    bench.time<MapOnce<4096, 128, Map::phi>, 6>("gelu phi once 1x4096 mb6", n / 4096, tiles4k, bytes);
    bench.time<MapOnce<8192, 256, Map::phi>, 4>("gelu phi once 1x8192/256t mb4", n / 8192, MapParams{xf, yf, n / 8192}, bytes);
    bench.time<MapPrefetch<4096, 128, Map::phi>, 4>("gelu phi prefetch 1x4096 mb4", int64_t(sms) * 4, tiles4k, bytes);
    bench.time<MapOnce<1024, 128, Map::phi>, 12>("gelu phi once 1x1024 mb12", n / 1024, tiles1k, bytes);
    bench.time<MapOnce<1024, 128, Map::phi>, 16>("gelu phi once 1x1024 mb16", n / 1024, tiles1k, bytes);
    bench.time<MapPrefetch<1024, 128, Map::phi>, 8>("gelu phi prefetch 1x1024 mb8", int64_t(sms) * 8, tiles1k, bytes);
    bench.time<MapPrefetch<1024, 128, Map::phi>, 12>("gelu phi prefetch 1x1024 mb12", int64_t(sms) * 12, tiles1k, bytes);
    bench.time<MapPrefetch<2048, 128, Map::phi>, 6>("gelu phi prefetch 1x2048 mb6", int64_t(sms) * 6, tiles2k, bytes);
    bench.time<MapPrefetch<2048, 128, Map::phi>, 8>("gelu phi prefetch 1x2048 mb8", int64_t(sms) * 8, tiles2k, bytes);
    bench.time<MapPrefetch<512, 64, Map::phi>, 16>("gelu phi prefetch 1x512/64t mb16", int64_t(sms) * 16, MapParams{xf, yf, n / 512}, bytes);

    // silu_and_mul: y [rows, cols / 2] from the two halves of x [rows, cols]
    const int64_t half = cols / 2;
    const View2<const bf16> gate{static_cast<const bf16*>(x), {rows, half}, {cols, 1}};
    const View2<const bf16> up{static_cast<const bf16*>(x) + half, {rows, half}, {cols, 1}};
    const View2<bf16> ys{static_cast<bf16*>(y), {rows, half}, {half, 1}};
    const double silu_bytes = double(rows * half * 2) * 3;
    bench.time<ops::kernels::SiluAndMul<bf16, 1, 1024, 128>, 12>("silu_and_mul main 1x1024 mb12", rows * (half / 1024),
                                                                 {gate, up, ys, half / 1024}, silu_bytes);
  }
  return 0;
}
}  // namespace probe

int main(int argc, char** argv) { return probe::run(argc > 1 ? argv[1] : nullptr); }
