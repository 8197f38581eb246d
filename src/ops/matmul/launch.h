// Launchers of the matmul family, compiled once per tile backend (host.cpp and cuda.cu include this file).
//
// Two kernels, each in a few configurations. The hot case (16-bit inputs, B as [N, K]: y = x @ w^T, every
// LLM projection) chooses among its configurations through the autotuner (dispatch/autotune.h) on tile-cuda
// and by the heuristic below on the host; every other case runs one default configuration.
//
// MatmulStaged, the staged tensor-core kernel (on the GPU only on Hopper), when the copy engine can read the
// operands (16-bit, B as [N, K], 16-byte aligned rows). K is cut over blocks when the tiles alone leave
// multiprocessors idle; the last split of each tile to finish adds the fp32 partial sums and runs the epilogue.
//   name                 tile      stages  consumers  why
//   staged_bm128_bn256   128 x 256   4        2       64 x 256 accumulators per warpgroup, the largest wgmma:
//                                                     the most math per byte of shared memory; large M and N
//   staged_bm128_bn128   128 x 128   5        2       twice the tiles for mid-size problems
//   staged_bm64_bn128     64 x 128   8        1       M <= 64 (decode): the weights streamed once, deep stages
//                                                     keep enough bytes in flight per multiprocessor
//   staged_pingpong_      128 x 128   6        2       ping-pong: each warpgroup a whole tile in turn, so one's
//     bm128_bn128                                     epilogue overlaps the other's mainloop (several tiles
//                                                     per block)
//   staged_pingpong_     the ping-pong form in clusters of two blocks on vertically adjacent tiles, which
//     bm128_bn128_c2     load their shared B tile once for both (TMA multicast); no split (M > 64)
//   staged_bm64_bn64_c2   64 x 64    12       1       what cuBLAS runs at 128 x 4096 x 4096: many small tiles
//                                                     instead of split K, deep stages, B shared in pairs
//   staged_bm128_bn256_c2 the 128 x 256 tile in clusters of two (cuBLAS's 4096^3 kernel: 256 x 128 tiles in
//                         pairs)
//   staged_bm128_bn64    128 x 64    8        2       cuBLAS's tile at 1024^3 and (split K) 128 x 4096 x 14336;
//                                                     offered for every M, last
// Every staged configuration stores C through the copy engine where it can write C (tma_store_compatible:
// 16-byte aligned rows a whole number of 16-byte pieces wide), else from registers.
// On GPUs before Hopper (sm_80 to sm_89) MatmulStaged runs on the tile library's sm_80 pipeline (cp.async stages
// filled by a producer warpgroup, mma.sync consumers, C stored from registers), offered as
//   sm80_bm128_bn128_s4  128 x 128   4        2       the default where 132 KB of shared memory fit (A100)
//   sm80_bm128_bn128_s3  128 x 128   3        2       99 KB: what Ada and the other sm_8x GPUs allow a block
//   sm80_bm64_bn128_s4    64 x 128   4        1       M <= 64, and twice the tiles for mid-size problems
// (only those that fit the device's shared memory; on the host, after the Hopper ones, so that host tests can
// force them).
// MatmulSwapAB, the staged kernel with the operands exchanged (C^T = B A^T), for M <= 64 (decode): the weights
// fill the tensor cores' 64-row side, the activation rows (padded to 16, 32 or 64) the narrow one; stages
// take all the shared memory (216 KB) to keep weight bytes in flight; K split as above, the same fix-up.
//   swapab_bw128_bk64    128 weight rows x 64 k   2 consumers  the default for M <= 64: 16 KB of weights a
//                                                              stage, 9-12 stages
//   swapab_bw64_bk128     64 weight rows x 128 k  1 consumer   twice the weight tiles (less split-K on mid-size
//                                                              N), 6-10 stages of 16 KB
//   swapab_bw128_bk64_    as the first, a split K finished by a second small kernel (SplitKReduce) instead of
//     reduce              the in-kernel fix-up (see matmul_swapab.tile.h)
//   swapab_bw64_bk128_    as the second, split only as far as one wave of blocks holds (none from 66 tiles on
//     wave                132 SMs): each block streams one long range of K with one fix-up at its end, the busy
//                         multiprocessors pulling more than an even share of the bandwidth (which TMA allows)
//   swapab_bw64_bk128_    as the second, stream-K: one block a multiprocessor, each the same run of weight
//     streamk             slices across tile boundaries, a tile two blocks share finished by the last of them.
//                         Where a last wave of whole tiles leaves multiprocessors idle (224 tiles of 64 rows
//                         on 132) it was 4-7% faster than the one-wave split at 2-32 x 14336 x 4096 and 16 x
//                         28672 x 4096; slower where every tile is cut anyway (4096 rows: 4-13%). H200,
//                         session 65.
// MatmulFewRows, for M <= 4 (decode at batch 1-4): no tensor cores, small blocks streaming BN weight rows
// (matmul_rows.tile.h), which start at once and end in a short last wave, each asking for DEPTH weight tiles
// before it uses them:
//   rows1_bn4_x2         one activation row; 4 x 1024 weight tiles over 128 threads, 2 in flight: the default
//                        for M = 1 on the GPU (faster than swap-AB and cuBLAS on every decode projection)
//   rows1_bn2_x4         one row; 2 x 1024 tiles, 4 in flight
//   rows4_bn1_x2         2-4 rows padded to 4 accumulators; 1 x 1024 tiles, 2 in flight (2 x 1024 tiles took
//                        255 registers)
// matmul_silu_and_mul (SwiGLU's gate/up projection) in one kernel that never writes the [M, 2I] product: for
// M <= 64 the swap-AB form (matmul_glu.tile.h: swapab_bw64_bk128, swapab_bw128_bk64, and stream-K
// swapab_bw64_bk128_streamk), past that the staged
// form (matmul_glu_staged.tile.h): staged_bm128_bi128 (4 stages; gate and up accumulators 64 x 128 each a
// warpgroup, the registers of staged_bm128_bn256), staged_bm128_bi64 (5 stages), staged_pingpong_bm128_bi64
// (6); for one row the few-rows form (matmul_rows_glu.tile.h: rows1_bi2_x2, the GPU's default there, and
// rows1_bi1_x4); and `unfused`, the matmul then silu_and_mul, which the tuner keeps where it is faster (not
// offered for one row on the GPU: see matmul_silu_and_mul below).
// Matmul, the generic tile kernel, for everything else (f32, B as [K, N], unaligned rows, pre-Hopper GPUs):
//   bm64_bn64_bk32       64 x 64 x 32   the balanced default: enough blocks for mid-sized problems
//   bm128_bn64_bk32      128 x 64 x 32  large M: reads each B tile for twice the rows, fewer blocks
//   bm32_bn128_bk32      32 x 128 x 32  small M (decode, M <= 32): less padding wasted in M, wide in N
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/common/this_backend.h"
#include "ops/common/views.h"
#include "ops/matmul/args.h"
#include "ops/matmul/matmul.tile.h"
#include "ops/matmul/matmul_staged.tile.h"
#include "ops/matmul/matmul_glu.tile.h"
#include "ops/matmul/matmul_glu_staged.tile.h"
#include "ops/matmul/matmul_rows_glu.tile.h"
#include "ops/matmul/matmul_swapab.tile.h"
#include "ops/matmul/matmul_rows.tile.h"
#include "ops/matmul/staged_launch.h"
#include "tessera/ops/activation.h"
#include "tessera/dispatch/autotune.h"
#include "tessera/runtime/workspace.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
// ---- the generic kernel ----

// 128 threads where the tile has a fragment accumulator (cuda/fragment_mma.h: 64 rows a group of 128 threads),
// 256 for the 32-row tile, which has none.
struct MatmulTile { int bm, bn, bk, threads; };
constexpr MatmulTile kTile64x64{64, 64, 32, 128}, kTile128x64{128, 64, 32, 128}, kTile32x128{32, 128, 32, 256};

template <class T, class TO, bool B_KN, MatmulTile CFG>
void launch_generic(const MatmulArgs& a, const dispatch::Options& opt) {
  using K = kernels::Matmul<T, TO, B_KN, CFG.bm, CFG.bn, CFG.bk, CFG.threads>;
  typename K::Params p{};
  p.a = as_rows<const T>(a.a);
  p.b = as_rows<const T>(a.b);
  p.c = as_rows<TO>(a.c);
  const int64_t m = p.c.extent[0], n = p.c.extent[1];
  fill_epilogue<K, T, TO>(p, a, m);
  tile::active::launch<K>({(m + CFG.bm - 1) / CFG.bm, (n + CFG.bn - 1) / CFG.bn}, p, opt.stream);
}

// Small M is memory-bound on the weights: what matters is enough blocks in flight to stream them, so the wide
// 32 x 128 tile only when it still gives about two blocks per SM of a large GPU. Large M is compute-bound: the
// taller tile halves the B traffic per flop once there are several waves of blocks.
size_t generic_heuristic(int64_t m, int64_t n) {
  if (m <= 32) return (n + 127) / 128 >= 256 ? 2 : 0;
  const int64_t blocks_128 = (m + 127) / 128 * ((n + 63) / 64);
  if (m >= 256 && blocks_128 >= 512) return 1;
  return 0;
}

// ---- the swap-AB kernel (decode: M <= 64) ----

// Stages of a swap-AB pipeline: as many as 216 KB of shared memory hold (the most a block may have is 227
// KB), at most 16. Bytes in flight, not tensor-core work, bound a decode matmul.
template <class T, int BW, int MT, int BK>
constexpr int swapab_stages() {
  constexpr size_t stride = (size_t(BW + MT) * BK * sizeof(T) + 1023) / 1024 * 1024;
  return std::min<int>(16, int(216 * 1024 / stride));
}

// Splits for the swap-AB kernel. Fewer tiles than SMs: as choose_splits. A wave or more: the kernel streams
// weights, so a last wave that leaves SMs idle costs bandwidth directly (28672 rows of 128-row tiles: 224
// tiles on 132 SMs use 85% of them); a split that fills the waves is taken when it gains at least 5% (5
// splits there: 94%), each part at least 8 slices of K. The partial sums stay small next to the weights.
int64_t choose_splits_streaming(int64_t tiles, int64_t k_tiles, int64_t sms) {
  if (tiles < sms) return choose_splits(tiles, k_tiles, sms);
  auto eff = [&](int64_t s) { return double(tiles * s) / double((tiles * s + sms - 1) / sms * sms); };
  int64_t best = 1;
  for (int64_t s = 2; s <= 8 && k_tiles / s >= 8; ++s)
    if (eff(s) > eff(best) + 0.05) best = s;
  return best;
}

// How the swap-AB kernel splits K: to fill whole waves of blocks (choose_splits_streaming), only as far as
// one wave holds (each block one split of one tile), or stream-K (every block an equal run of weight slices
// across tile boundaries: plan_swapab_stream_k).
enum class SwapABSplits { fill_waves, one_wave, stream_k };

// The workspace of a swap-AB launch whose tiles are cut in up to `parts` parts: the fp32 partials [parts, rows,
// mt] and, for an in-kernel fix-up (`counters`), one zeroed arrival counter for each of the `tiles` tiles.
template <class Params>
void attach_split_k_workspace(Params& p, int64_t parts, int64_t rows, int64_t mt, int64_t tiles, bool counters,
                              Device device, StreamHandle stream) {
  p.partials.data = static_cast<float*>(workspace("matmul.split_k", size_t(parts * rows * mt) * sizeof(float), device, stream));
  p.partials.extent[0] = parts; p.partials.extent[1] = rows; p.partials.extent[2] = mt;
  p.partials.stride[0] = rows * mt; p.partials.stride[1] = mt; p.partials.stride[2] = 1;
  if (!counters) return;
  p.arrivals.data = static_cast<int32_t*>(zeroed_workspace("matmul.split_k_arrivals", size_t(tiles) * sizeof(int32_t), device, stream));
  p.arrivals.extent[0] = tiles; p.arrivals.extent[1] = 1;
  p.arrivals.stride[0] = 1; p.arrivals.stride[1] = 1;
}

// The schedule of a swap-AB launch over n weight rows and K = k: BW-row tiles, K split per `rule`, and when
// split, the fp32 partials [splits, planes x N', MT] (N' = n padded to whole tiles, `planes` accumulators a
// tile: each is then stored and read back pair by pair, without edge tests) and, for an in-kernel fix-up, the
// per-tile arrival counters. Returns the multiprocessor count (the persistent grid's size).
template <int BW, int BK, class Params>
int64_t plan_swapab_splits(Params& p, int64_t n, int64_t k, SwapABSplits rule, int64_t planes, int64_t mt,
                           bool counters, Device device, StreamHandle stream) {
  p.k_tiles = (k + BK - 1) / BK;
  p.schedule = {(n + BW - 1) / BW, 1, 8, 1};
  const int64_t sms = tile::active::multiprocessor_count();
  p.schedule.splits = rule == SwapABSplits::one_wave
                          ? std::clamp<int64_t>(std::min(sms / p.schedule.tiles(), p.k_tiles / 8), 1, 16)
                          : choose_splits_streaming(p.schedule.tiles(), p.k_tiles, sms);
  p.k_tiles_per_split = (p.k_tiles + p.schedule.splits - 1) / p.schedule.splits;
  p.schedule.splits = (p.k_tiles + p.k_tiles_per_split - 1) / p.k_tiles_per_split;  // no empty split
  if (p.schedule.splits == 1) return sms;
  attach_split_k_workspace(p, p.schedule.splits, planes * p.schedule.tile_rows * BW, mt, p.schedule.tile_rows, counters,
                           device, stream);
  return sms;
}


// The stream-K schedule of a swap-AB launch: BW-row tiles over n weight rows, BK slices of k, one run of
// slices for each multiprocessor; where blocks share tiles, the fp32 partials [parts, planes x N', MT] (N' = n
// padded to whole tiles, `planes` accumulators a tile) and the per-tile arrival counters.
template <int BW, int BK, class Params>
void plan_swapab_stream_k(Params& p, int64_t n, int64_t k, int64_t mt, Device device, StreamHandle stream, int64_t planes = 1) {
  p.k_tiles = (k + BK - 1) / BK;
  const int64_t tiles = (n + BW - 1) / BW;
  p.stream_k = tile::StreamKSchedule::over(tiles, p.k_tiles, tile::active::multiprocessor_count());
  const int64_t parts = p.stream_k.max_parts();
  if (parts == 1) return;
  attach_split_k_workspace(p, parts, planes * tiles * BW, mt, tiles, true, device, stream);
}

template <class T, class TO, int BW, int MT, int BK, int CONSUMERS, bool FIXUP, SwapABSplits RULE>
void launch_swapab_rows(const MatmulArgs& a, const dispatch::Options& opt) {
  constexpr bool stream_k = RULE == SwapABSplits::stream_k;
  using K = kernels::MatmulSwapAB<T, TO, BW, MT, BK, swapab_stages<T, BW, MT, BK>(), CONSUMERS, FIXUP, stream_k>;
  typename K::Params p{};
  p.b = tile::active::make_tma_tensor<BW, BK>(as_rows<const T>(a.b));
  p.a = tile::active::make_tma_tensor<MT, BK>(as_rows<const T>(a.a));
  fill_transposed_output<T, TO>(p, a);
  const int64_t n = p.c.extent[0], m = p.c.extent[1], k = a.a.size(-1);  // C^T: [N, M]
  if constexpr (stream_k) {
    plan_swapab_stream_k<BW, BK>(p, n, k, MT, a.c.device(), opt.stream);
    tile::active::launch<K>({p.stream_k.blocks}, p, opt.stream);
    return;
  }
  const int64_t sms = plan_swapab_splits<BW, BK>(p, n, k, RULE, 1, MT, FIXUP, a.c.device(), opt.stream);
  tile::active::launch<K>({std::min<int64_t>(p.schedule.count(), sms)}, p, opt.stream);
  if (FIXUP || p.schedule.splits == 1) return;
  // The partials [splits, N, M] to C^T: 128 x 16 tiles (M is at most 64), 128 threads.
  using R = kernels::SplitKReduce<T, TO, 128, 16, 128>;
  typename R::Params r{};
  r.partials.data = p.partials.data;
  for (int d = 0; d < 3; ++d) r.partials.stride[d] = p.partials.stride[d];
  r.partials.extent[0] = p.schedule.splits; r.partials.extent[1] = n; r.partials.extent[2] = m;
  r.bias = p.bias;
  r.residual = p.residual;
  r.c = p.c;
  r.epilogue = p.epilogue;
  r.col_tiles = (m + 15) / 16;
  tile::active::launch<R>({(n + 127) / 128 * r.col_tiles}, r, opt.stream);
}

// The activation rows padded to the narrowest tile that holds them: 16, 32 or 64.
template <class T, class TO, int BW, int BK, int CONSUMERS, bool FIXUP = true, SwapABSplits RULE = SwapABSplits::fill_waves>
void launch_swapab(const MatmulArgs& a, const dispatch::Options& opt) {
  const int64_t m = a.c.numel() / a.c.size(-1);
  if (m <= 16) launch_swapab_rows<T, TO, BW, 16, BK, CONSUMERS, FIXUP, RULE>(a, opt);
  else if (m <= 32) launch_swapab_rows<T, TO, BW, 32, BK, CONSUMERS, FIXUP, RULE>(a, opt);
  else launch_swapab_rows<T, TO, BW, 64, BK, CONSUMERS, FIXUP, RULE>(a, opt);
}

// The few-rows candidates of a call with m <= kMatmulFewRows rows (launch_few_rows_m): two weight tile heights
// for one row, the smallest for 2-4 (four accumulators a thread instead of one). The first is the GPU's default
// for one row; 2-4 rows keep swap-AB's (rows4_bn1_x2 holds too few bytes in flight: 20% of copy at 4 x 4096 x
// 4096; 4 rows a block with running chunk sums, as many bytes in flight as rows1_bn4_x2, took 1.4-2.1x swap-AB's
// time, session 51). rows1_bn4_x2_chunked keeps running chunk sums (one register for 8 weight columns instead of
// 8) and 5 blocks a multiprocessor: 2-5% faster than rows1_bn4_x2 at 1 x {4096, 14336, 28672, 128256} x 4096,
// 6% slower at 1 x 4096 x 14336 (bench/results/2026-11-30-h200-session51): the tuner picks.
template <class T, class TO>
void add_few_rows_candidates(std::vector<dispatch::autotune::Candidate>& out, const MatmulArgs& a,
                             const dispatch::Options& opt, int64_t m) {
  if (m == 1) {
    out.push_back({"rows1_bn4_x2", [&] { launch_few_rows_m<T, TO, 1, 4, 2, 4>(a, opt); }});
    out.push_back({"rows1_bn2_x4", [&] { launch_few_rows_m<T, TO, 1, 2, 4, 5>(a, opt); }});
    out.push_back({"rows1_bn4_x2_chunked", [&] { launch_few_rows_m<T, TO, 1, 4, 2, 5, true>(a, opt); }});
  } else {
    out.push_back({"rows4_bn1_x2", [&] { launch_few_rows_m<T, TO, 4, 1, 2>(a, opt); }});
  }
}

// Which form of the staged kernel can take this call: none, the Hopper kernels, or (GPUs before Hopper) the
// sm_80 pipeline's. Either needs 16-bit inputs, B as [N, K], rows the copy engine (or cp.async) can read. The
// host runs every form.
enum class StagedForm { none, hopper, sm80 };
StagedForm staged_form(const MatmulArgs& a) {
  const bool sixteen_bit = a.a.dtype() == DType::bf16 || a.a.dtype() == DType::f16;
  if (!sixteen_bit || a.b_layout != BLayout::nk || a.a.size(-1) == 0) return StagedForm::none;
  for (const Tensor* t : {&a.a, &a.b}) {
    const auto v = as_rows<const uint16_t>(*t);
    if (v.stride[1] != 1 || reinterpret_cast<uintptr_t>(v.data) % 16 != 0 || (v.stride[0] * 2) % 16 != 0) return StagedForm::none;
  }
#if defined(__CUDACC__)
  if (tile::cuda::device_is_hopper()) return StagedForm::hopper;
  return tile::cuda::device_runs_sm80_pipelines() ? StagedForm::sm80 : StagedForm::none;
#else
  return StagedForm::hopper;
#endif
}

// Whether the Hopper kernels can take this call (matmul_silu_and_mul's fused forms are Hopper's only).
bool staged_fits(const MatmulArgs& a) { return staged_form(a) == StagedForm::hopper; }

// The sm_80 pipeline's configurations that fit the device's shared memory (all of them on the host).
template <class T, class TO>
void add_staged_sm80_candidates(std::vector<dispatch::autotune::Candidate>& out, const MatmulArgs& a,
                                const dispatch::Options& opt) {
#if defined(__CUDACC__)
  const size_t limit = tile::cuda::max_shared_bytes_per_block();
#else
  const size_t limit = SIZE_MAX;
#endif
  if (staged_sm80_shared_bytes<T, TO, 128, 128, 4, 2>() <= limit)
    out.push_back({"sm80_bm128_bn128_s4", [&] { launch_staged_sm80<T, TO, 128, 128, 4, 2>(a, opt); }});
  if (staged_sm80_shared_bytes<T, TO, 128, 128, 3, 2>() <= limit)
    out.push_back({"sm80_bm128_bn128_s3", [&] { launch_staged_sm80<T, TO, 128, 128, 3, 2>(a, opt); }});
  if (staged_sm80_shared_bytes<T, TO, 64, 128, 4, 1>() <= limit)
    out.push_back({"sm80_bm64_bn128_s4", [&] { launch_staged_sm80<T, TO, 64, 128, 4, 1>(a, opt); }});
}

// Decode-sized M: the first swap-AB candidate (listed only for M <= 64, after the four staged ones).
size_t staged_heuristic(int64_t m, int64_t n) {
  if (m <= 64) return 4;
  const int64_t big_tiles = ((m + 127) / 128) * ((n + 255) / 256);
  return big_tiles >= tile::active::multiprocessor_count() ? 0 : 1;
}

// ---- choosing ----

// Whether re-running the call gives the same result: not when the output is also an input (a residual or
// an operand aliased to c), since tuning runs the kernel several times.
bool matmul_is_idempotent(const MatmulArgs& a) {
  return !overlaps(a.c, a.a) && !overlaps(a.c, a.b) && !overlaps(a.c, a.epilogue.residual) &&
         !overlaps(a.c, a.epilogue.bias);
}

// The configurations a call can run, each launching on `a` (which must outlive them), and the heuristic's.
template <class T, class TO>
std::pair<std::vector<dispatch::autotune::Candidate>, size_t> matmul_candidates(const MatmulArgs& a,
                                                                                const dispatch::Options& opt) {
  const int64_t n = a.c.size(-1), m = a.c.numel() / n;
  const StagedForm form = staged_form(a);
  if (form == StagedForm::sm80) {
    std::vector<dispatch::autotune::Candidate> candidates;
    add_staged_sm80_candidates<T, TO>(candidates, a, opt);
    if (!candidates.empty()) {
      // The widest tile that fits; 64-row tiles for decode-sized M (the last of the list).
      size_t heuristic = m <= 64 ? candidates.size() - 1 : 0;
      if (m <= kMatmulFewRows) {
        if (m == 1) heuristic = candidates.size();  // the few-rows kernel, as on Hopper
        add_few_rows_candidates<T, TO>(candidates, a, opt, m);
      }
      return {std::move(candidates), heuristic};
    }
  }
  if (form != StagedForm::hopper) {
    std::vector<dispatch::autotune::Candidate> candidates = {
        {"bm64_bn64_bk32", [&] { launch_generic<T, TO, false, kTile64x64>(a, opt); }},
        {"bm128_bn64_bk32", [&] { launch_generic<T, TO, false, kTile128x64>(a, opt); }},
        {"bm32_bn128_bk32", [&] { launch_generic<T, TO, false, kTile32x128>(a, opt); }}};
    size_t heuristic = generic_heuristic(m, n);
#if defined(__CUDACC__)
    if (m == 1) heuristic = candidates.size();  // the first few-rows candidate (on the host: the tiles)
#endif
    if (m <= kMatmulFewRows) add_few_rows_candidates<T, TO>(candidates, a, opt, m);
    return {std::move(candidates), heuristic};
  }
  std::vector<dispatch::autotune::Candidate> candidates = {
      {"staged_bm128_bn256", [&] { launch_staged<T, TO, 128, 256, 4, 2>(a, opt); }},
      {"staged_bm128_bn128", [&] { launch_staged<T, TO, 128, 128, 5, 2>(a, opt); }},
      {"staged_bm64_bn128", [&] { launch_staged<T, TO, 64, 128, 8, 1>(a, opt); }},
      {"staged_pingpong_bm128_bn128", [&] { launch_staged<T, TO, 128, 128, 6, 2, tile::Consumers::pingpong>(a, opt); }}};
  if (m <= 64) {
    candidates.push_back({"swapab_bw128_bk64", [&] { launch_swapab<T, TO, 128, 64, 2>(a, opt); }});
    candidates.push_back({"swapab_bw64_bk128", [&] { launch_swapab<T, TO, 64, 128, 1>(a, opt); }});
    candidates.push_back({"swapab_bw128_bk64_reduce", [&] { launch_swapab<T, TO, 128, 64, 2, false>(a, opt); }});
    candidates.push_back(
        {"swapab_bw64_bk128_wave", [&] { launch_swapab<T, TO, 64, 128, 1, true, SwapABSplits::one_wave>(a, opt); }});
    candidates.push_back(
        {"swapab_bw64_bk128_streamk", [&] { launch_swapab<T, TO, 64, 128, 1, true, SwapABSplits::stream_k>(a, opt); }});
  }
  size_t heuristic = staged_heuristic(m, n);
  if (m <= kMatmulFewRows) {
    if (m == 1) heuristic = candidates.size();
    add_few_rows_candidates<T, TO>(candidates, a, opt, m);
  }
  if (m > 64) {  // clusters of two blocks sharing B tiles; last, so that the heuristic's indices stay
    candidates.push_back({"staged_pingpong_bm128_bn128_c2",
                          [&] { launch_staged<T, TO, 128, 128, 6, 2, tile::Consumers::pingpong, 2>(a, opt); }});
    candidates.push_back(
        {"staged_bm64_bn64_c2", [&] { launch_staged<T, TO, 64, 64, 12, 1, tile::Consumers::cooperative, 2>(a, opt); }});
    candidates.push_back(
        {"staged_bm128_bn256_c2", [&] { launch_staged<T, TO, 128, 256, 4, 2, tile::Consumers::cooperative, 2>(a, opt); }});
  }
  // A tile shape cuBLAS runs (its kernel names, H200, session 33): 128 x 64, at 1024^3 and, split, at
  // 128 x 4096 x 14336. Last, so that the heuristic's indices stay.
  candidates.push_back({"staged_bm128_bn64", [&] { launch_staged<T, TO, 128, 64, 8, 2>(a, opt); }});
#if !defined(__CUDACC__)
  add_staged_sm80_candidates<T, TO>(candidates, a, opt);  // host tests force them
#endif
  return {std::move(candidates), heuristic};
}

template <class T, class TO>
void launch_tuned(const MatmulArgs& a, const dispatch::Options& opt) {
  namespace at = dispatch::autotune;
  const int64_t n = a.c.size(-1), k = a.a.size(-1), m = a.c.numel() / n;
  const auto [candidates, heuristic] = matmul_candidates<T, TO>(a, opt);
#if defined(__CUDACC__)
  constexpr auto where = at::Where::cuda;
#else
  constexpr auto where = at::Where::host;
#endif
  // Calls that differ in output dtype or in the configuration space they can use do not share a choice.
  at::Key key = matmul_tune_key(a.a.dtype(), m, n, k);
  if constexpr (std::is_same_v<TO, float>) key.dtype += "_f32out";
  if (candidates.front().name.rfind("sm80", 0) == 0) key.dtype += "_sm80";
  else if (candidates.front().name.rfind("staged", 0) != 0) key.dtype += "_generic";
  if (matmul_is_idempotent(a)) {
    candidates[at::select_index(key, candidates, heuristic, opt.stream, where)].launch();
    return;
  }
  // The output is also an input (the engine's o and down projections add into the residual stream in place):
  // the configurations are timed writing a scratch output instead, the residual and operands only read. The
  // scratch stays allocated, so outputs past kMaxTuningOutputBytes keep the heuristic.
  constexpr size_t kMaxTuningOutputBytes = size_t(64) << 20;
  if (a.c.nbytes() > kMaxTuningOutputBytes) {
    candidates[at::select_index(key, candidates, heuristic, opt.stream, where, /*tunable=*/false)].launch();
    return;
  }
  MatmulArgs stand_in = a;
  const at::StandIns stand_ins = [&] {
    stand_in.c = Tensor::view(workspace("matmul.tuning_output", a.c.nbytes(), a.c.device(), opt.stream), a.c.shape(),
                              a.c.dtype(), a.c.device());
    return matmul_candidates<T, TO>(stand_in, opt).first;
  };
  candidates[at::select_index(key, candidates, heuristic, opt.stream, where, stand_ins)].launch();
}

template <class T, class TO>
void launch_layout(const MatmulArgs& a, const dispatch::Options& opt) {
  if constexpr (sizeof(T) == 2) {
    if (a.b_layout == BLayout::nk) return launch_tuned<T, TO>(a, opt);
  }
#if !defined(__CUDACC__)
  // The host computes every row of a tile, padding included: a decode step (a few rows) takes 8-row tiles
  // instead of 64 (8x less work for the CPU engine).
  constexpr MatmulTile kHostFewRows{8, 64, 32, 256};
  if (a.c.numel() / std::max<int64_t>(a.c.size(-1), 1) <= 8) {
    if (a.b_layout == BLayout::kn) return launch_generic<T, TO, true, kHostFewRows>(a, opt);
    return launch_generic<T, TO, false, kHostFewRows>(a, opt);
  }
#endif
  if (a.b_layout == BLayout::kn) launch_generic<T, TO, true, kTile64x64>(a, opt);
  else launch_generic<T, TO, false, kTile64x64>(a, opt);
}
}  // namespace

void matmul(const MatmulArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.a.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.c.dtype() == DType::f32) launch_layout<T, float>(a, opt);
    else launch_layout<T, T>(a, opt);
  });
}

namespace {
// matmul_silu_and_mul for M <= 64 in one kernel (matmul_glu.tile.h): splits and stages as the swap-AB matmul.
template <class T, int BW, int MT, int BK, int CONSUMERS, SwapABSplits RULE>
void launch_silu_and_mul_swapab_rows(const MatmulSiluAndMulArgs& a, const dispatch::Options& opt) {
  constexpr bool stream_k = RULE == SwapABSplits::stream_k;
  // A stage holds two weight tiles (gate and up): as many stages as for one tile twice as tall.
  using K = kernels::MatmulSiluAndMulSwapAB<T, BW, MT, BK, swapab_stages<T, 2 * BW, MT, BK>(), CONSUMERS, stream_k>;
  typename K::Params p{};
  p.w = tile::active::make_tma_tensor<BW, BK>(as_rows<const T>(a.w));
  p.a = tile::active::make_tma_tensor<MT, BK>(as_rows<const T>(a.a));
  const auto c = as_rows<T>(a.c);
  const int64_t n = c.extent[1];
  p.c = transposed(c);
  p.up_row = n;
  p.up_partial_row = (n + BW - 1) / BW * BW;
  // Gate and up partials: two planes of whole tiles.
  if constexpr (stream_k) {
    plan_swapab_stream_k<BW, BK>(p, n, a.a.size(-1), MT, a.c.device(), opt.stream, 2);
    tile::active::launch<K>({p.stream_k.blocks}, p, opt.stream);
  } else {
    const int64_t sms = plan_swapab_splits<BW, BK>(p, n, a.a.size(-1), RULE, 2, MT, true, a.c.device(), opt.stream);
    tile::active::launch<K>({std::min<int64_t>(p.schedule.count(), sms)}, p, opt.stream);
  }
}

template <class T, int BW, int BK, int CONSUMERS, SwapABSplits RULE = SwapABSplits::fill_waves>
void launch_silu_and_mul_swapab(const MatmulSiluAndMulArgs& a, const dispatch::Options& opt) {
  const int64_t m = a.c.numel() / a.c.size(-1);
  if (m <= 16) launch_silu_and_mul_swapab_rows<T, BW, 16, BK, CONSUMERS, RULE>(a, opt);
  else if (m <= 32) launch_silu_and_mul_swapab_rows<T, BW, 32, BK, CONSUMERS, RULE>(a, opt);
  else launch_silu_and_mul_swapab_rows<T, BW, 64, BK, CONSUMERS, RULE>(a, opt);
}

// matmul_silu_and_mul for M > 64 in one kernel (matmul_glu_staged.tile.h): BM x BI tiles of C, K whole.
template <class T, int BM, int BI, int STAGES, int CONSUMERS, tile::Consumers MODE = tile::Consumers::cooperative>
void launch_silu_and_mul_staged(const MatmulSiluAndMulArgs& a, const dispatch::Options& opt) {
  using K = kernels::MatmulSiluAndMulStaged<T, BM, BI, 64, STAGES, CONSUMERS, MODE>;
  typename K::Params p{};
  p.a = tile::active::make_tma_tensor<BM, K::bk>(as_rows<const T>(a.a));
  p.w = tile::active::make_tma_tensor<BI, K::bk>(as_rows<const T>(a.w));
  p.c = as_rows<T>(a.c);
  const int64_t m = p.c.extent[0], i = p.c.extent[1], k = a.a.size(-1);
  set_copy_engine_output(p, a.c);
  p.up_row = i;
  p.k_tiles = (k + K::bk - 1) / K::bk;
  p.schedule = {(m + BM - 1) / BM, (i + BI - 1) / BI, 8, 1};
  tile::active::launch<K>({std::min<int64_t>(p.schedule.count(), tile::active::multiprocessor_count())}, p,
                          opt.stream);
}

// matmul_silu_and_mul for one row (decode at batch 1) in one streaming kernel (matmul_rows_glu.tile.h): BI gate
// and BI up rows a block, DEPTH tiles of each in flight, at least MIN_BLOCKS blocks a multiprocessor (as the
// few-rows matmul with the same bytes in flight: rows1_bi2_x2 against rows1_bn4_x2_chunked, rows1_bi1_x4
// against rows1_bn2_x4; its running chunk sums leave room for 5).
template <class T, int BI, int DEPTH, int MIN_BLOCKS>
void launch_silu_and_mul_few_rows(const MatmulSiluAndMulArgs& a, const dispatch::Options& opt) {
  using K = tile::MinBlocksPerSm<kernels::MatmulFewRowsSiluAndMul<T, BI, 1024, 128, DEPTH>, MIN_BLOCKS>;
  typename K::Params p{};
  p.a = as_rows<const T>(a.a);
  const auto w = as_rows<const T>(a.w);
  const int64_t i = a.c.size(-1), k = w.extent[1];
  p.gate = w.window(0, 0, i, k);
  p.up = w.window(i, 0, i, k);
  p.c = transposed(as_rows<T>(a.c));
  p.weights_settled = opt.weights_settled;
  tile::active::launch<K>({(i + BI - 1) / BI}, p, opt.stream);
}

// The two ops one after the other: the product into the scratch (or a buffer of this call), then silu_and_mul.
void silu_and_mul_after_matmul(const MatmulSiluAndMulArgs& a, const dispatch::Options& opt) {
  Shape wide = a.c.shape();
  wide.back() *= 2;
  const Tensor product = a.scratch.data() != nullptr ? a.scratch : Tensor::empty(wide, a.c.dtype(), a.c.device());
  matmul(MatmulArgs{a.a, a.w, product, BLayout::nk, {}}, opt);
  ops::silu_and_mul(product, a.c, on_this_backend(opt));
}
}  // namespace

void matmul_silu_and_mul(const MatmulSiluAndMulArgs& a, const dispatch::Options& opt) {
  namespace at = dispatch::autotune;
  const int64_t n = a.c.size(-1), k = a.a.size(-1), m = a.c.numel() / n;
  if (!staged_fits(MatmulArgs{a.a, a.w, a.c, BLayout::nk, {}})) return silu_and_mul_after_matmul(a, opt);
  visit_float_dtype(a.a.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      // Up to 64 rows (decode) the weights are the tall operand (swap-AB); past that, output tiles of the
      // staged kernel (prefill). m's power-of-two bucket keeps the two lists under different keys.
      std::vector<at::Candidate> candidates;
      if (m <= 64) {
        candidates = {{"swapab_bw64_bk128", [&] { launch_silu_and_mul_swapab<T, 64, 128, 1>(a, opt); }},
                      {"swapab_bw128_bk64", [&] { launch_silu_and_mul_swapab<T, 128, 64, 2>(a, opt); }},
                      {"swapab_bw64_bk128_streamk",
                       [&] { launch_silu_and_mul_swapab<T, 64, 128, 1, SwapABSplits::stream_k>(a, opt); }}};
      } else {
        candidates = {{"staged_bm128_bi128", [&] { launch_silu_and_mul_staged<T, 128, 128, 4, 2>(a, opt); }},
                      {"staged_bm128_bi64", [&] { launch_silu_and_mul_staged<T, 128, 64, 5, 2>(a, opt); }},
                      {"staged_pingpong_bm128_bi64",
                       [&] { launch_silu_and_mul_staged<T, 128, 64, 6, 2, tile::Consumers::pingpong>(a, opt); }}};
      }
#if defined(__CUDACC__)
      constexpr bool gpu = true;
#else
      constexpr bool gpu = false;
#endif
      // One row on the GPU: the fused few-rows kernel, never the matmul then silu_and_mul. Timed alone the two
      // were a near-tie the tuner resolved either way (1 x 14336 x 4096: 53.9-56.3 us unfused, 53.9-55.5 fused);
      // in the decode step the unfused pair's second launch cost ~2.5 us a layer (Llama-3.1-8B shapes, batch 1:
      // 4.31-4.37 ms a step when the tuner had chosen it, 4.24-4.28 with the fused kernel; session 54, run 7), as
      // q/k/v + RoPE found before (qkv_rope_append_launch.h).
      const size_t unfused = candidates.size();
      if (!(gpu && m == 1)) candidates.push_back({"unfused", [&] { silu_and_mul_after_matmul(a, opt); }});
      [[maybe_unused]] const size_t few_rows = candidates.size();  // unused on the host (heuristic: unfused)
      if (m == 1) {
        candidates.push_back({"rows1_bi2_x2", [&] { launch_silu_and_mul_few_rows<T, 2, 2, 5>(a, opt); }});
        candidates.push_back({"rows1_bi1_x4", [&] { launch_silu_and_mul_few_rows<T, 1, 4, 5>(a, opt); }});
      }
#if defined(__CUDACC__)
      constexpr auto where = at::Where::cuda;
      // One row: the fused few-rows kernel. Past 64 rows: the wider tile (the registers of the plain matmul's
      // 128 x 256) once its tiles fill the machine.
      const bool wide = m > 64 && (m + 127) / 128 * ((n + 127) / 128) >= tile::active::multiprocessor_count();
      const size_t heuristic = m == 1 ? few_rows : m > 64 && !wide ? 1 : 0;
#else  // the host's plain matmuls are faster than its emulated pipelines: fused only when forced
      constexpr auto where = at::Where::host;
      const size_t heuristic = unfused;
#endif
      // "_rows": one row has the few-rows candidates too (choices cached before them are not reused).
      const at::Key key = at::make_key(
          "matmul_silu_and_mul", std::string(dtype_name(a.a.dtype())) + (a.scratch.data() ? "" : "_no_scratch") +
                                     (m == 1 ? "_rows" : ""),
          at::shape_class({{"m", at::pow2_bucket(m)}, {"n", n}, {"k", k}}));
      candidates[at::select_index(key, candidates, heuristic, opt.stream, where)].launch();
    }
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
