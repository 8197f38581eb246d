// LayerNorm as a tile kernel: each block normalises ROWS rows.
//
//   mean = sum(x) / n
//   d    = x - mean                       (zero in the padding beyond n)
//   d    = d - sum(d) / n                 -- one correction: removes the rounding of the fp32 mean, which
//                                            for rows with a large mean is far above the output's precision
//   rstd = 1 / sqrt(sum(d^2) / n + eps)   -- the centred form, stable for rows with a large mean
//   y    = d * rstd * weight + bias
//
// A row that fits in one COLS-wide tile is read once; longer rows take three passes over their tiles.
// ONE_PASS: the launcher guarantees n <= COLS, so the multi-pass code is not compiled (its registers would
// lower the occupancy of the one-pass path). X is the input's type, Y the output's and the vectors' (an fp32
// residual stream normalised into 16-bit activations).
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class X, class Y, int ROWS, int COLS, int THREADS, bool ONE_PASS = false>
struct LayerNorm {
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
    const auto col = arange<1, COLS>(blk, 1);
    if (ONE_PASS || n <= COLS) {
      // Edge tiles out of line: x, weight and bias fill the registers (tile::ColdEdges).
      const auto x = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, 0}, 0.f, tile::cold_edges));
      const auto w = cast<float>(load<1, COLS>(blk, p.weight, {0, 0}, 0.f, tile::cold_edges));  // in flight during the reductions
      const auto b = cast<float>(load<1, COLS>(blk, p.bias, {0, 0}, 0.f, tile::cold_edges));
      const auto mean = row_sum(x) / float(n);
      const auto d0 = where(col < n, x - mean, 0.f);
      const auto d = where(col < n, d0 - row_sum(d0) / float(n), 0.f);
      const auto rstd = rsqrt(row_sum(d * d) / float(n) + p.eps);
      store(blk, p.y, {r0, 0}, cast<Y>(d * rstd * w + b), tile::cold_edges);
      return;
    }
    if constexpr (!ONE_PASS) three_pass(blk, p, r0, n, col);
  }

  template <class Block, class Col>
  TILE_DEVICE void three_pass(Block& blk, const Params& p, int64_t r0, int64_t n, const Col& col) const {
    auto sums = zeros<float, ROWS, COLS>(blk);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) sums = sums + cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0}));
    const auto mean = row_sum(sums) / float(n);
    auto squares = zeros<float, ROWS, COLS>(blk), shifts = zeros<float, ROWS, COLS>(blk);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) {
      const auto d = where(col + c0 < n, cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0})) - mean, 0.f);
      shifts = shifts + d;
      squares = squares + d * d;
    }
    // The correction of the one-tile path, folded in: var = E[d^2] - E[d]^2 with d centred on the fp32 mean.
    const auto shift = row_sum(shifts) / float(n);
    const auto rstd = rsqrt(row_sum(squares) / float(n) - shift * shift + p.eps);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) {
      const auto d = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0})) - mean - shift;
      const auto w = cast<float>(load<1, COLS>(blk, p.weight, {0, c0}));
      const auto b = cast<float>(load<1, COLS>(blk, p.bias, {0, c0}));
      store(blk, p.y, {r0, c0}, cast<Y>(d * rstd * w + b));
    }
  }
};

}  // namespace tessera::ops::kernels
