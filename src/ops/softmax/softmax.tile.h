// Softmax over the last dim as a tile kernel: each block handles ROWS rows.
//
//   s    = sign(scale) * x               (exact; -inf beyond the row's end)
//   m    = max(s)                        -- a running max over the row's column tiles (online softmax)
//   l    = sum(exp2((s - m) * k))        -- rescaled by exp2((m_old - m_new) * k) whenever m grows
//   y    = exp2((s - m) * k) / l,        k = |scale| * log2(e)
//
// The max is subtracted before the log2(e)-prescale multiplies, not after: s - m is exact for entries near
// the max, so inputs of magnitude 1e4 keep full fp32 accuracy (prescaling first rounds each entry to an
// absolute error of ~1e-3 in the exponent; s * k - m * k as one FMA would not, but the host backend does not
// fuse it, and SoftmaxLargeValues failed there in session 18). A row whose entries are all -inf has m = -inf
// and l = 0: it is
// computed against a base of 0 and written as zeros. -inf entries always get weight 0.
//
// A row that fits in one COLS-wide tile is read once and kept in registers. Longer rows take two passes: the
// online max and sum over the column tiles, then each tile is read again and normalised. Each thread stores
// exactly the elements it loaded, after reading them, so y may be x. ONE_PASS: the launcher guarantees
// n <= COLS, so the two-pass code is not compiled (its registers would lower the one-pass occupancy).
#pragma once
#include <limits>

#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int ROWS, int COLS, int THREADS, bool ONE_PASS = false>
struct Softmax {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const T> x;
    tile::View2<T> y;
    float sign;  // +1 or -1: the sign of scale
    float k;     // |scale| * log2(e)
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * ROWS;
    const int64_t n = p.x.extent[1];
    const auto col = arange<1, COLS>(blk, 1);

    if (ONE_PASS || n <= COLS) {
      if (n == COLS) one_pass(blk, p, r0, tile::everywhere);
      else one_pass(blk, p, r0, col < tile::columns_inside<COLS>(n, 0));
      return;
    }
    if constexpr (!ONE_PASS) {
      const auto s = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, 0})) * p.sign;
      two_pass(blk, p, r0, n, col, s, row_max(s));
    }
  }

  // Rows that fill the tile skip the column mask (tile::everywhere): this kernel is bound by its instructions.
  template <class Block, class Inside>
  TILE_DEVICE void one_pass(Block& blk, const Params& p, int64_t r0, Inside inside) const {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    const auto s = where(inside, cast<float>(load<ROWS, COLS>(blk, p.x, {r0, 0})) * p.sign, neg_inf);
    const auto m = row_max(s);
    const auto e = where(s > neg_inf, exp2((s - where(m == neg_inf, 0.f, m)) * p.k), 0.f);
    const auto l = row_sum(e);
    store(blk, p.y, {r0, 0}, cast<T>(e * where(l > 0.f, 1.f / l, 0.f)));
  }

  template <class Block, class Col, class S, class M>
  TILE_DEVICE void two_pass(Block& blk, const Params& p, int64_t r0, int64_t n, const Col& col, S s, M m) const {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    auto l = row_sum(where(s > neg_inf, exp2((s - where(m == neg_inf, 0.f, m)) * p.k), 0.f));
    for (int64_t c0 = COLS; c0 < n; c0 += COLS) {
      s = where(col < tile::columns_inside<COLS>(n, c0), cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0})) * p.sign, neg_inf);
      const auto m_new = maximum(m, row_max(s));
      const auto base = where(m_new == neg_inf, 0.f, m_new);
      // l is 0 while the row has seen only -inf: no rescale (which could be inf * 0) then.
      const auto alpha = where(m == neg_inf, 0.f, exp2((m - base) * p.k));
      l = l * alpha + row_sum(where(s > neg_inf, exp2((s - base) * p.k), 0.f));
      m = m_new;
    }
    const auto base = where(m == neg_inf, 0.f, m);
    const auto inv_l = where(l > 0.f, 1.f / l, 0.f);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) {
      s = where(col < tile::columns_inside<COLS>(n, c0), cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0})) * p.sign, neg_inf);
      store(blk, p.y, {r0, c0}, cast<T>(where(s > neg_inf, exp2((s - base) * p.k), 0.f) * inv_l));
    }
  }
};

}  // namespace tessera::ops::kernels
