// LayerNorm as a tile kernel: each block normalises ROWS rows.
//
//   mean  = sum(x) / n
//   d     = x - mean                      (zero in the padding beyond n)
//   rstd  = 1 / sqrt(sum(d^2) / n + eps)  -- centred, stable for rows with a large mean
//   y     = d * rstd * weight + bias
//
// fp32 rows also correct the rounding of the fp32 mean, which can be far above the output's precision when the
// mean is large against the spread: shift = sum(d) / n, variance sum(d^2) / n - shift^2, y = (d * rstd -
// shift * rstd) * weight + bias. 16-bit rows need not: their values sit on a grid of at least 2^-11 |mean|
// (f16) around the mean, so a spread that the fp32 mean's error (~1e-6 |mean| after the tree sums) would
// disturb cannot be represented in them. Leaving the shift out saves one sum an element and one row reduction:
// 16384 x 8192 bf16 on an H200 at 87.8-88.3% of copy bandwidth against 85.0-85.5% with it, 4096 x 4096
// 91.7-93.1% against 89.0-90.3% (session 39, bench/probes/row_op_launch_shapes.cu, same runs).
//
// A row that fits in one COLS-wide tile is read once; longer rows take three passes over their tiles. Rows
// that fill the tile skip the column mask (tile::everywhere): the kernel is bound by its instructions, and the
// mask cost 3-5 of them an element. ONE_PASS: the launcher guarantees n <= COLS, so the multi-pass code is
// not compiled (its registers would lower the occupancy of the one-pass path). FULL_ROWS: the launcher
// guarantees n == COLS, so only the unmasked one-pass path is compiled: it fits 64 registers a thread without
// spilling, where both paths together spill, so a multiprocessor holds a third more rows (bf16 16384 x 8192 on
// an H200: 95-97% of copy bandwidth against 87.5% for both paths at the looser cap, session 58; at the same cap
// as both paths it was slower, session 37). X is the input's type, Y the output's and the vectors' (an fp32
// residual stream normalised into 16-bit activations).
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class X, class Y, int ROWS, int COLS, int THREADS, bool ONE_PASS = false, bool FULL_ROWS = false>
struct LayerNorm {
  static_assert(!FULL_ROWS || ONE_PASS, "full rows are one tile wide");
  static constexpr bool kCorrectMean = sizeof(X) == 4;  // see above: fp32 rows only
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const X> x;
    tile::View2<const Y> weight, bias;
    tile::View2<Y> y;
    float eps;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * ROWS;
    const int64_t n = p.x.extent[1];
    if constexpr (FULL_ROWS) {
      one_pass(blk, p, r0, n, tile::everywhere);
      return;
    }
    const auto col = arange<1, COLS>(blk, 1);
    if (ONE_PASS || n <= COLS) {
      if (n == COLS) one_pass(blk, p, r0, n, tile::everywhere);
      else one_pass(blk, p, r0, n, col < tile::columns_inside<COLS>(n, 0));
      return;
    }
    if constexpr (!ONE_PASS) three_pass(blk, p, r0, n, col);
  }

  template <class Block, class Inside>
  TILE_DEVICE void one_pass(Block& blk, const Params& p, int64_t r0, int64_t n, Inside inside) const {
    // Edge tiles out of line: x, weight and bias fill the registers (tile::ColdEdges).
    const auto x = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, 0}, 0.f, tile::cold_edges));
    const auto mean = row_sum(x) / float(n);
    const auto d = where(inside, x - mean, 0.f);
    if constexpr (kCorrectMean) {
      const auto shift = row_sum(d) / float(n);
      const auto rstd = rsqrt(maximum(row_sum(d * d) / float(n) - shift * shift, 0.f) + p.eps);
      // Two multiply-adds a column ((d - shift) rstd w + b was a subtraction, a multiply and a multiply-add:
      // 0.6-2% slower in a probe on an H200, session 38).
      const auto shifted = shift * rstd;
      store(blk, p.y, {r0, 0}, cast<Y>((d * rstd - shifted) * weight(blk, p) + bias(blk, p)), tile::cold_edges);
    } else {
      const auto rstd = rsqrt(row_sum(d * d) / float(n) + p.eps);
      store(blk, p.y, {r0, 0}, cast<Y>(d * rstd * weight(blk, p) + bias(blk, p)), tile::cold_edges);
    }
  }

  // Weight and bias only after the reductions: every row reads the same ones (L1 / L2 hits), and loaded before
  // they held registers the whole time that could be another row's loads (3 blocks a multiprocessor at 8192
  // columns instead of 2: 80% of copy bandwidth against 67%, session 25).
  template <class Block>
  TILE_DEVICE static auto weight(Block& blk, const Params& p) {
    return cast<float>(load<1, COLS>(blk, p.weight, {0, 0}, 0.f, tile::cold_edges));
  }
  template <class Block>
  TILE_DEVICE static auto bias(Block& blk, const Params& p) {
    return cast<float>(load<1, COLS>(blk, p.bias, {0, 0}, 0.f, tile::cold_edges));
  }

  template <class Block, class Col>
  TILE_DEVICE void three_pass(Block& blk, const Params& p, int64_t r0, int64_t n, const Col& col) const {
    auto sums = zeros<float, ROWS, COLS>(blk);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) sums = sums + cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0}));
    const auto mean = row_sum(sums) / float(n);
    auto squares = zeros<float, ROWS, COLS>(blk), shifts = zeros<float, ROWS, COLS>(blk);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) {
      const auto d = where(col < tile::columns_inside<COLS>(n, c0), cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0})) - mean, 0.f);
      if constexpr (kCorrectMean) shifts = shifts + d;
      squares = squares + d * d;
    }
    const auto shift = kCorrectMean ? row_sum(shifts) / float(n) : full_like(mean, 0.f);
    const auto rstd = rsqrt(maximum(row_sum(squares) / float(n) - shift * shift, 0.f) + p.eps);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) {
      const auto d = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0})) - mean - shift;
      const auto w = cast<float>(load<1, COLS>(blk, p.weight, {0, c0}));
      const auto b = cast<float>(load<1, COLS>(blk, p.bias, {0, c0}));
      store(blk, p.y, {r0, c0}, cast<Y>(d * rstd * w + b));
    }
  }
};

}  // namespace tessera::ops::kernels
