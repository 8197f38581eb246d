// Launch shapes of the library's rms_norm and layer_norm kernels (bf16), timed against a device-to-device copy
// of the same bytes in one run (session 38): on an H200 rms_norm ran at 88-93% of copy and layer_norm at 82-85%
// at 16384 x 8192, against 97.5% and 95.9% on an H100 (bench/results/2026-11-28-h200-session37). The variants
// are the library's kernels themselves under other threads per row, minimum blocks per multiprocessor (which cap
// registers) and, for layer_norm, its unmasked-only form (FULL_ROWS); and rope's (88.9% on the H200) under other
// heads a block. What it found (bench/results/2026-11-28-h200-session38/NOTES.md): every library shape is
// already the fastest of these; the H200 gap is layer_norm's alone (84-85% of copy). A variant whose two sums
// of the centred row crossed the warps together (a `row_sums` tile operation, not kept) ran as the plain one:
// row_sums_not_kept.patch in that folder; nor did weight and bias asked for between the reductions (the
// "vectors midway" rows). The "two-fma output" rows (the output as two multiply-adds a column) were 0.6-2% faster
// than the library kernel of their build and became its form. Session 39: a two-pass variant (no correction of
// the fp32 mean's rounding: one sum an element and one row reduction fewer) ran at 87.8-88.3% of copy against
// 85.0-85.5% (16384 x 8192) and is now the library's form for 16-bit rows (bench/results/2026-11-28-h200-session39),
// so the "two-fma output" rows are the form before it, with the mean corrected; their check line gives the
// largest difference of the two. Session 58: the kernels with less code under tighter caps (layer_norm's
// unmasked "full" kernel at 4 blocks: 94.5-97.1% of copy against 87.4-87.5%; rms_norm without the residual's
// code at 4 blocks: 96.4-96.8% against 91.2-91.4%) became the library's for 16-bit rows; rows streamed through
// a block with the next row's loads in flight ("streamed", removed after session 58: `git show f7df4d7:` this
// file) and rope without its second destination were no better; rope with two heads a thread under 64
// registers (64 heads / 256 threads, 32 / 128) and embedding's gather in 1 x 8192 blocks became the library's
// (bench/results/2026-12-01-h200-session58). Build here (after the library):
//   nvcc -O3 -std=c++20 -I include -I src -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
//     -Xcudafe --diag_suppress=177 -DNDEBUG bench/probes/row_op_launch_shapes.cu build/libtessera.a \
//     -o .device/probe/row_op_launch_shapes
// Run there: .device/probe/row_op_launch_shapes [name filter]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/embedding/embedding.tile.h"
#include "ops/norm/layer_norm.tile.h"
#include "ops/norm/rms_norm.tile.h"
#include "ops/rope/rope.tile.h"
#include "median_time.h"
#include "random_bf16.h"
#include "tessera/tile/tile.h"

namespace probe {
using namespace tessera;
using tessera::bf16;
using tile::View2;

struct Bench {
  const char* filter;
  std::string shape;
  double copy_us = 0, bytes = 0;
  int copies = 1;

  // Kernel K with at least MB blocks per multiprocessor on `blocks` blocks; params(i) for input copy i.
  template <class Kernel, int MB, class P>
  void time(const std::string& name, int64_t blocks, const P& params) const {
    using K = tile::MinBlocksPerSm<Kernel, MB>;
    const std::string full = name + " " + shape;
    if (filter != nullptr && full.find(filter) == std::string::npos) return;
    const double us = median_us([&](int i) { tile::cuda::launch<K>({blocks}, params(i), nullptr); }, copies);
    std::printf("%-56s %9.1f us  %6.2f TB/s  %5.1f%% of copy\n", full.c_str(), us, bytes / us * 1e-6, 100.0 * copy_us / us);
  }
  // Runs the variant on input copy 0 and the library's layer_norm on the same input; prints the largest
  // difference of the bf16 outputs (in units of the output, which is ~N(0, 1) times the weight plus the bias).
  template <class Kernel, int MB>
  void check(const std::string& name, int64_t blocks, const typename Kernel::Params& p) const;
  template <class Kernel, int MB, class P>
  void time3(const std::string& name, tile::Grid grid, const P& params) const;
};

template <class Kernel, int MB, class P>
void Bench::time3(const std::string& name, tile::Grid grid, const P& params) const {
  using K = tile::MinBlocksPerSm<Kernel, MB>;
  const std::string full = name + " " + shape;
  if (filter != nullptr && full.find(filter) == std::string::npos) return;
  const double us = median_us([&](int i) { tile::cuda::launch<K>(grid, params(i), nullptr); }, copies);
  std::printf("%-56s %9.1f us  %6.2f TB/s  %5.1f%% of copy\n", full.c_str(), us, bytes / us * 1e-6, 100.0 * copy_us / us);
}

inline float bf16_to_float(uint16_t v) {
  const uint32_t u = uint32_t(v) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
template <class Kernel, int MB>
void Bench::check(const std::string& name, int64_t blocks, const typename Kernel::Params& p) const {
  const std::string full = name + " " + shape;
  if (filter != nullptr && full.find(filter) == std::string::npos) return;
  const int64_t rows = p.y.extent[0], cols = p.y.extent[1];
  const size_t count = size_t(rows * cols);
  std::vector<uint16_t> got(count), want(count);
  cudaMemset(p.y.data, 0xff, count * 2);
  tile::cuda::launch<tile::MinBlocksPerSm<Kernel, MB>>({blocks}, p, nullptr);
  cudaMemcpy(got.data(), p.y.data, count * 2, cudaMemcpyDeviceToHost);
  using L = ops::kernels::LayerNorm<bf16, bf16, 1, 8192, 256, true>;
  cudaMemset(p.y.data, 0xff, count * 2);
  if (cols == 8192) tile::cuda::launch<tile::MinBlocksPerSm<L, 3>>({rows}, typename L::Params{p.x, p.weight, p.bias, p.y, p.eps}, nullptr);
  else {
    using L4 = ops::kernels::LayerNorm<bf16, bf16, 1, 4096, 128, true>;
    tile::cuda::launch<tile::MinBlocksPerSm<L4, 6>>({rows}, typename L4::Params{p.x, p.weight, p.bias, p.y, p.eps}, nullptr);
  }
  cudaMemcpy(want.data(), p.y.data, count * 2, cudaMemcpyDeviceToHost);
  double worst = 0;
  size_t differ = 0;
  for (size_t i = 0; i < count; ++i) {
    const double a = bf16_to_float(got[i]), b = bf16_to_float(want[i]);
    const double e = std::isfinite(a) ? std::fabs(a - b) : INFINITY;
    worst = std::max(worst, e);
    differ += got[i] != want[i];
  }
  std::printf("%-56s check against the library: max |diff| %.3g, %.3f%% of outputs differ\n", full.c_str(), worst,
              100.0 * double(differ) / double(count));
}

// An rms_norm kernel K (the library's or a variant with its Params) over the rows, without a residual.
template <class K, int MB, class Args>
void time_rms(Bench& bench, const char* name, const Args& args) {
  bench.time<K, MB>(name, args.rows, [&](int i) {
    typename K::Params p{};
    p.x = args.x(i);
    p.weight = args.w;
    p.y = args.y;
    p.eps = 1e-5f;
    return p;
  });
}
template <int COLS, int THREADS, int MB, class Args>
void rms(Bench& bench, const char* name, const Args& args) {
  time_rms<ops::kernels::RmsNorm<bf16, bf16, 1, COLS, THREADS, true>, MB>(bench, name, args);
}

template <int COLS, int THREADS, int MB, bool FULL, class Args>
void ln(Bench& bench, const char* name, const Args& args) {
  using K = ops::kernels::LayerNorm<bf16, bf16, 1, COLS, THREADS, true, FULL>;
  bench.time<K, MB>(name, args.rows, [&](int i) { return typename K::Params{args.x(i), args.w, args.b, args.y, 1e-5f}; });
}

// layer_norm's one pass with weight and bias asked for between the mean and the centred sums (kept 16-bit until
// used), so their L1/L2 latency passes under the second reduction instead of after it.
template <int COLS, int THREADS>
struct LayerNormVectorsMidway {
  static constexpr int threads = THREADS;
  using Params = typename ops::kernels::LayerNorm<bf16, bf16, 1, COLS, THREADS, true>::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0);
    const int64_t n = p.x.extent[1];
    const auto x = cast<float>(load<1, COLS>(blk, p.x, {r0, 0}, 0.f, tile::cold_edges));
    const auto mean = row_sum(x) / float(n);
    const auto d = x - mean;
    const auto w16 = load<1, COLS>(blk, p.weight, {0, 0}, 0.f, tile::cold_edges);
    const auto b16 = load<1, COLS>(blk, p.bias, {0, 0}, 0.f, tile::cold_edges);
    const auto shift = row_sum(d) / float(n);
    const auto rstd = rsqrt(maximum(row_sum(d * d) / float(n) - shift * shift, 0.f) + p.eps);
    store(blk, p.y, {r0, 0}, cast<bf16>((d - shift) * rstd * cast<float>(w16) + cast<float>(b16)), tile::cold_edges);
  }
};
// The library's layer_norm (both paths compiled) with the output as two fused multiply-adds a column,
// y = (d rstd - shift rstd) w + b, where (d - shift) rstd w + b is a subtraction, a multiply and a multiply-add.
template <int COLS, int THREADS>
struct LayerNormTwoFma {
  static constexpr int threads = THREADS;
  using Params = typename ops::kernels::LayerNorm<bf16, bf16, 1, COLS, THREADS, true>::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0);
    const int64_t n = p.x.extent[1];
    const auto col = arange<1, COLS>(blk, 1);
    if (n == COLS) one_pass(blk, p, r0, n, tile::everywhere);
    else one_pass(blk, p, r0, n, col < tile::columns_inside<COLS>(n, 0));
  }
  template <class Block, class Inside>
  TILE_DEVICE void one_pass(Block& blk, const Params& p, int64_t r0, int64_t n, Inside inside) const {
    const auto x = cast<float>(load<1, COLS>(blk, p.x, {r0, 0}, 0.f, tile::cold_edges));
    const auto mean = row_sum(x) / float(n);
    const auto d = where(inside, x - mean, 0.f);
    const auto shift = row_sum(d) / float(n);
    const auto rstd = rsqrt(maximum(row_sum(d * d) / float(n) - shift * shift, 0.f) + p.eps);
    const auto shifted = shift * rstd;
    const auto w = cast<float>(load<1, COLS>(blk, p.weight, {0, 0}, 0.f, tile::cold_edges));
    const auto b = cast<float>(load<1, COLS>(blk, p.bias, {0, 0}, 0.f, tile::cold_edges));
    store(blk, p.y, {r0, 0}, cast<bf16>((d * rstd - shifted) * w + b), tile::cold_edges);
  }
};
template <int COLS, int THREADS, int MB, class Args>
void ln_two_fma(Bench& bench, const char* name, const Args& args) {
  using K = LayerNormTwoFma<COLS, THREADS>;
  bench.time<K, MB>(name, args.rows, [&](int i) { return typename K::Params{args.x(i), args.w, args.b, args.y, 1e-5f}; });
  bench.check<K, MB>(name, args.rows, typename K::Params{args.x(0), args.w, args.b, args.y, 1e-5f});
}

template <int COLS, int THREADS, int MB, class Args>
void ln_midway(Bench& bench, const char* name, const Args& args) {
  using K = LayerNormVectorsMidway<COLS, THREADS>;
  bench.time<K, MB>(name, args.rows, [&](int i) { return typename K::Params{args.x(i), args.w, args.b, args.y, 1e-5f}; });
}

// rms_norm's one pass without the residual's code (the library compiles both in one kernel, its branch taken at
// run time), so that the no-residual kernel's registers are its own: does a tighter cap then fit?
template <int COLS, int THREADS>
struct RmsNormNoResidual {
  static constexpr int threads = THREADS;
  using Params = typename ops::kernels::RmsNorm<bf16, bf16, 1, COLS, THREADS, true>::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0), n = p.x.extent[1];
    const auto h = cast<float>(load<1, COLS>(blk, p.x, {r0, 0}));
    const auto w = load<1, COLS>(blk, p.weight, {0, 0});
    const auto inv_rms = rsqrt(row_sum(h * h) / float(n) + p.eps);
    store(blk, p.y, {r0, 0}, cast<bf16>(h * inv_rms * cast<float>(w)));
  }
};
template <int COLS, int THREADS, int MB, class Args>
void rms_no_residual(Bench& bench, const char* name, const Args& args) {
  time_rms<RmsNormNoResidual<COLS, THREADS>, MB>(bench, name, args);
}

// rope's kernel without the second destination (the library stores every rotated tile to `also` too, an empty
// view outside the fused qkv path: its stores are bounds tests that write nothing).
template <class T, int HEADS, int HALF, int THREADS>
struct RopeOneDestination {
  static constexpr int threads = THREADS;
  using Params = typename ops::kernels::Rope<T, HEADS, HALF, THREADS>::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t t = blk.bid(0), h0 = blk.bid(1) * HEADS;
    const auto& r = p.rotary;
    const float pos = r.position(t);
    const auto x = p.x[t];
    const auto y = p.y[t];
    const int64_t half = r.rotary / 2;
    const auto x1 = ops::kernels::rotary_columns(x, 0, half, 1), x2 = ops::kernels::rotary_columns(x, half, half, 1);
    const auto y1 = ops::kernels::rotary_columns(y, 0, half, 1), y2 = ops::kernels::rotary_columns(y, half, half, 1);
    for (int64_t c0 = 0; c0 < half; c0 += HALF) {
      const auto angle = load<1, HALF>(blk, r.inv_freq, {0, c0}) * pos;
      const auto [c, s] = cos_sin(angle);
      const auto a = cast<float>(load<HEADS, HALF>(blk, x1, {h0, c0}));
      const auto b = cast<float>(load<HEADS, HALF>(blk, x2, {h0, c0}));
      store(blk, y1, {h0, c0}, cast<T>(a * c - b * s));
      store(blk, y2, {h0, c0}, cast<T>(b * c + a * s));
    }
  }
};

// embedding's gather (ids promised in range: no check) under other row widths a block: ROWS rows of COLS columns
// a block of THREADS threads, over rows x cols of a 32000-row table (session 58: the library's 1 x 2048 / 128
// threads ran the call at 89% of the harness's copy).
const int32_t* g_ids = nullptr;
template <int ROWS, int COLS, int THREADS, int MB, class Args>
void gather(Bench& bench, const char* name, const Args& args) {
  using K = ops::kernels::EmbeddingGather<bf16, ROWS, COLS, THREADS>;
  bench.time3<K, MB>(name, {(args.rows + ROWS - 1) / ROWS, (args.cols + COLS - 1) / COLS}, [&](int) {
    typename K::Params p{};
    p.ids32 = {g_ids, {1, args.rows}, {args.rows, 1}};
    p.table = {args.base, {32000, args.cols}, {args.cols, 1}};
    p.y = args.y;
    return p;
  });
}

// rope (neox, rotary = head dim 128) over rows x cols seen as [rows tokens, heads, 128], y apart from x.
const int32_t* g_positions = nullptr;
const float* g_inv_freq = nullptr;
template <int HEADS, int THREADS, int MB, class Args, bool ONE_DESTINATION = false>
void rope(Bench& bench, const char* name, const Args& args, int64_t heads) {
  using K = std::conditional_t<ONE_DESTINATION, RopeOneDestination<bf16, HEADS, 64, THREADS>, ops::kernels::Rope<bf16, HEADS, 64, THREADS>>;
  const int64_t tokens = args.rows * args.cols / (heads * 128);
  bench.time3<K, MB>(name, {tokens, (heads + HEADS - 1) / HEADS}, [&](int i) {
    typename K::Params p{};
    p.x = {args.x(i).data, {tokens, heads, 128}, {heads * 128, 128, 1}};
    p.y = {args.y.data, {tokens, heads, 128}, {heads * 128, 128, 1}};
    p.rotary.pos32 = {g_positions, {tokens}, {1}};
    p.rotary.inv_freq = {g_inv_freq, {1, 64}, {64, 1}};
    p.rotary.rotary = 128;
    p.copy_rest = false;
    return p;
  });
}

int run(const char* filter) {
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, %d SMs, %d MB L2\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  const size_t pool_bytes = size_t(3) << 28;  // 768 MB: three copies of 16384 x 8192 bf16
  void *x = nullptr, *y = nullptr, *wb = nullptr;
  cudaMalloc(&x, pool_bytes);
  cudaMalloc(&y, size_t(1) << 28);
  cudaMalloc(&wb, 16384 * 2 * 2);
  fill_random_bf16(x, pool_bytes, 1, 2.f);
  fill_random_bf16(wb, 16384 * 2 * 2, 2, 2.f);
  {  // positions 0, 1, ... and the frequencies of rotary dim 128, base 10000
    std::vector<int32_t> pos(16384 * 4);
    for (size_t i = 0; i < pos.size(); ++i) pos[i] = int32_t(i % 8192);
    std::vector<float> inv(64);
    for (int i = 0; i < 64; ++i) inv[i] = float(std::pow(10000.0, -2.0 * i / 128));
    void *dp = nullptr, *di = nullptr;
    cudaMalloc(&dp, pos.size() * 4);
    cudaMalloc(&di, inv.size() * 4);
    cudaMemcpy(dp, pos.data(), pos.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(di, inv.data(), inv.size() * 4, cudaMemcpyHostToDevice);
    g_positions = static_cast<const int32_t*>(dp);
    std::vector<int32_t> ids(16384);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = int32_t((i * 7919) % 32000);  // as tessera bench's
    void* di2 = nullptr;
    cudaMalloc(&di2, ids.size() * 4);
    cudaMemcpy(di2, ids.data(), ids.size() * 4, cudaMemcpyHostToDevice);
    g_ids = static_cast<const int32_t*>(di2);
    g_inv_freq = static_cast<const float*>(di);
  }

  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{16384, 8192}, {4096, 4096}}) {
    const size_t one = size_t(rows * cols * 2);
    struct Args {
      int64_t rows, cols;
      const bf16* base;
      size_t one;
      View2<bf16> y;
      View2<const bf16> w, b;
      View2<const bf16> x(int i) const { return {base + i * (one / 2), {rows, cols}, {cols, 1}}; }
    } args{rows,
           cols,
           static_cast<const bf16*>(x),
           one,
           {static_cast<bf16*>(y), {rows, cols}, {cols, 1}},
           {static_cast<const bf16*>(wb), {1, cols}, {cols, 1}},
           {static_cast<const bf16*>(wb) + 16384, {1, cols}, {cols, 1}}};
    Bench bench{filter};
    bench.copies = int(std::min<size_t>(pool_bytes / one, 8));
    bench.bytes = double(one) * 2;
    bench.copy_us = median_us([&](int i) { cudaMemcpyAsync(y, static_cast<const char*>(x) + i * one, one, cudaMemcpyDeviceToDevice); },
                              bench.copies);
    bench.shape = std::to_string(rows) + "x" + std::to_string(cols);
    std::printf("== %s bf16, copy %.1f us (%.2f TB/s), %d input copies\n", bench.shape.c_str(), bench.copy_us,
                bench.bytes / bench.copy_us * 1e-6, bench.copies);
    if (cols == 8192) {
      rms<8192, 256, 3>(bench, "rms_norm 256t mb3 (library)", args);
      rms_no_residual<8192, 256, 3>(bench, "rms_norm no residual 256t mb3", args);
      rms_no_residual<8192, 256, 4>(bench, "rms_norm no residual 256t mb4", args);
      rms_no_residual<8192, 512, 2>(bench, "rms_norm no residual 512t mb2", args);
      rms<8192, 256, 4>(bench, "rms_norm 256t mb4", args);
      rms<8192, 512, 2>(bench, "rms_norm 512t mb2", args);
      rms<8192, 512, 3>(bench, "rms_norm 512t mb3", args);
      rms<8192, 1024, 1>(bench, "rms_norm 1024t mb1", args);
      rms<8192, 1024, 2>(bench, "rms_norm 1024t mb2", args);
      ln<8192, 256, 3, false>(bench, "layer_norm 256t mb3 (library)", args);
      ln<8192, 256, 3, true>(bench, "layer_norm 256t mb3 full", args);
      ln_midway<8192, 256, 3>(bench, "layer_norm 256t mb3 vectors midway", args);
      ln_two_fma<8192, 256, 3>(bench, "layer_norm 256t mb3 two-fma output", args);
      ln_midway<8192, 256, 2>(bench, "layer_norm 256t mb2 vectors midway", args);
      ln<8192, 256, 4, true>(bench, "layer_norm 256t mb4 full", args);
      ln<8192, 256, 4, false>(bench, "layer_norm 256t mb4 (both paths)", args);
      ln<8192, 512, 2, true>(bench, "layer_norm 512t mb2 full", args);
      ln<8192, 512, 3, true>(bench, "layer_norm 512t mb3 full", args);
      ln<8192, 1024, 1, true>(bench, "layer_norm 1024t mb1 full", args);
      ln<8192, 1024, 2, true>(bench, "layer_norm 1024t mb2 full", args);
      gather<1, 2048, 128, 1>(bench, "gather 1x2048 128t (library)", args);
      gather<1, 4096, 256, 1>(bench, "gather 1x4096 256t", args);
      gather<1, 8192, 512, 1>(bench, "gather 1x8192 512t", args);
      gather<1, 4096, 128, 1>(bench, "gather 1x4096 128t", args);
      gather<1, 8192, 256, 1>(bench, "gather 1x8192 256t", args);
      gather<1, 8192, 1024, 1>(bench, "gather 1x8192 1024t", args);
      gather<1, 1024, 64, 1>(bench, "gather 1x1024 64t", args);
      rope<32, 64, 8>(bench, "rope 32 heads 64t mb8 (library)", args, 64);
      rope<32, 64, 8, Args, true>(bench, "rope 32 heads 64t mb8 one destination", args, 64);
      rope<32, 64, 12, Args, true>(bench, "rope 32 heads 64t mb12 one destination", args, 64);
      rope<64, 128, 6, Args, true>(bench, "rope 64 heads 128t mb6 one destination", args, 64);
      rope<32, 128, 8>(bench, "rope 32 heads 128t mb8", args, 64);
      rope<16, 64, 16>(bench, "rope 16 heads 64t mb16", args, 64);
      rope<64, 256, 4>(bench, "rope 64 heads 256t mb4", args, 64);
      rope<32, 128, 6>(bench, "rope 32 heads 128t mb6", args, 64);
      rope<32, 64, 16>(bench, "rope 32 heads 64t mb16", args, 64);
      rope<64, 128, 4>(bench, "rope 64 heads 128t mb4", args, 64);
      rope<64, 128, 8>(bench, "rope 64 heads 128t mb8", args, 64);
      rope<64, 64, 8>(bench, "rope 64 heads 64t mb8", args, 64);
      rope<16, 32, 16>(bench, "rope 16 heads 32t mb16", args, 64);
    } else {
      gather<1, 2048, 128, 1>(bench, "gather 1x2048 128t (library)", args);
      gather<1, 4096, 256, 1>(bench, "gather 1x4096 256t", args);
      gather<1, 4096, 128, 1>(bench, "gather 1x4096 128t", args);
      gather<1, 1024, 64, 1>(bench, "gather 1x1024 64t", args);
      rope<32, 64, 8>(bench, "rope 32 heads 64t mb8 (library)", args, 32);
      rope<32, 64, 16>(bench, "rope 32 heads 64t mb16", args, 32);
      rope<32, 128, 4>(bench, "rope 32 heads 128t mb4", args, 32);
      rope<32, 128, 8>(bench, "rope 32 heads 128t mb8", args, 32);
      rope<16, 64, 16>(bench, "rope 16 heads 64t mb16", args, 32);
      rope<16, 32, 16>(bench, "rope 16 heads 32t mb16", args, 32);
      rms<4096, 128, 6>(bench, "rms_norm 128t mb6 (library)", args);
      rms_no_residual<4096, 128, 6>(bench, "rms_norm no residual 128t mb6", args);
      rms_no_residual<4096, 128, 8>(bench, "rms_norm no residual 128t mb8", args);
      rms<4096, 128, 8>(bench, "rms_norm 128t mb8", args);
      rms<4096, 256, 3>(bench, "rms_norm 256t mb3", args);
      rms<4096, 256, 4>(bench, "rms_norm 256t mb4", args);
      rms<4096, 512, 2>(bench, "rms_norm 512t mb2", args);
      ln<4096, 128, 6, false>(bench, "layer_norm 128t mb6 (library)", args);
      ln<4096, 128, 6, true>(bench, "layer_norm 128t mb6 full", args);
      ln_midway<4096, 128, 6>(bench, "layer_norm 128t mb6 vectors midway", args);
      ln_two_fma<4096, 128, 6>(bench, "layer_norm 128t mb6 two-fma output", args);
      ln_midway<4096, 128, 4>(bench, "layer_norm 128t mb4 vectors midway", args);
      ln<4096, 128, 8, true>(bench, "layer_norm 128t mb8 full", args);
      ln<4096, 128, 8, false>(bench, "layer_norm 128t mb8 (both paths)", args);
      ln<4096, 128, 7, true>(bench, "layer_norm 128t mb7 full", args);
      ln<4096, 256, 3, true>(bench, "layer_norm 256t mb3 full", args);
      ln<4096, 256, 4, true>(bench, "layer_norm 256t mb4 full", args);
      ln<4096, 512, 2, true>(bench, "layer_norm 512t mb2 full", args);
    }
  }
  return 0;
}
}  // namespace probe

int main(int argc, char** argv) { return probe::run(argc > 1 ? argv[1] : nullptr); }
