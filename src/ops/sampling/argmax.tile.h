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

// Long rows over several blocks (a decode step's few vocabulary rows: one block streams a 128k-entry row at a
// single multiprocessor's bandwidth). Part j of row r takes columns [j * span, (j + 1) * span) and keeps the
// first two steps of RowArgmax over them:
//
//   parts:  best[r, j], arg[r, j] = RowArgmax's (best, arg) over part j  -- arg = -1 when it held no number
//   finish: s      = where(arg[r, :] >= 0, best[r, :], NaN)
//           out[r] = min(arg[r, j] for j with s[j] == max(s))           -- 0 when no part held a number
//
// The parts are in column order, so the smallest column of the row's largest entry is the smallest arg among
// the parts that hold it: the result is RowArgmax's.
template <class T, int COLS, int THREADS>
struct RowArgmaxParts {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const T> x;
    tile::View2<float> best;    // [rows, parts]
    tile::View2<int32_t> arg;   // [rows, parts]
    int64_t parts, span;        // span: columns a part, a multiple of COLS
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r = blk.bid(0) / p.parts, j = blk.bid(0) % p.parts;
    const int64_t first = j * p.span, n = p.x.extent[1], end = first + p.span < n ? first + p.span : n;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto col = arange<1, COLS>(blk, 1);
    auto s = where(col + first < end, cast<float>(load<1, COLS>(blk, p.x, {r, first})), nan);
    auto best = row_max(s);
    auto arg = where(row_max(where(s == s, 1, 0)) > 0, row_argmax(s) + int(first), -1);
    for (int64_t c0 = first + COLS; c0 < end; c0 += COLS) {
      s = where(col + c0 < end, cast<float>(load<1, COLS>(blk, p.x, {r, c0})), nan);
      const auto m = row_max(s);
      const auto take = (m > best) | ((arg < 0) & (row_max(where(s == s, 1, 0)) > 0));
      arg = where(take, row_argmax(s) + int(c0), arg);
      best = where(take, m, best);
    }
    store(blk, p.best, {r, j}, best);
    store(blk, p.arg, {r, j}, arg);
  }
};

template <int PARTS, int THREADS>
struct RowArgmaxOfParts {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const float> best;  // [rows, parts], parts <= PARTS
    tile::View2<const int32_t> arg;
    tile::View2<int32_t> out;       // [rows, 1]
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r = blk.bid(0);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto arg = load<1, PARTS>(blk, p.arg, {r, 0}, -1);
    const auto s = where(arg >= 0, load<1, PARTS>(blk, p.best, {r, 0}), nan);
    const auto first = row_min(where(s == row_max(s), arg, std::numeric_limits<int32_t>::max()));
    store(blk, p.out, {r, 0}, where(first == std::numeric_limits<int32_t>::max(), 0, first));
  }
};

}  // namespace tessera::ops::kernels
