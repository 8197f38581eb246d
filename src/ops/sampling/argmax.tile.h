// Row argmax as a tile kernel: each block walks one row in COLS-wide tiles.
//
//   s          = x[r, c0 : c0 + COLS]          -- NaN past the row's end, so it never wins
//   m, i       = max(s), argmax(s)             -- the tile's largest entry and its first column
//   take       = m > best, or nothing kept yet and s holds a number (a row of -inf still has an argmax)
//   best, arg  = take ? (m, c0 + i) : (best, arg)
//
// Strictly greater keeps the earliest tile on ties, and argmax within a tile the smallest column, so the
// result is the smallest index of the row's largest entry. NaN never compares greater: it is ignored, and a
// row of nothing but NaN keeps arg = -1, written as 0.
#pragma once
#include <limits>

#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int COLS, int THREADS>
struct RowArgmax {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const T> x;
    tile::View2<int32_t> out;  // [rows, 1]
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r = blk.bid(0), n = p.x.extent[1];
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto col = arange<1, COLS>(blk, 1);
    auto s = where(col < n, cast<float>(load<1, COLS>(blk, p.x, {r, 0})), nan);
    auto best = row_max(s);
    auto arg = where(row_max(where(s == s, 1, 0)) > 0, row_argmax(s), -1);
    for (int64_t c0 = COLS; c0 < n; c0 += COLS) {
      s = where(col + c0 < n, cast<float>(load<1, COLS>(blk, p.x, {r, c0})), nan);
      const auto m = row_max(s);
      const auto take = (m > best) | ((arg < 0) & (row_max(where(s == s, 1, 0)) > 0));
      arg = where(take, row_argmax(s) + int(c0), arg);
      best = where(take, m, best);
    }
    store(blk, p.out, {r, 0}, where(arg < 0, 0, arg));
  }
};

}  // namespace tessera::ops::kernels
