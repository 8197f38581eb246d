// Embedding lookup as two tile kernels.
//
// EmbeddingCheck: one block scans every id, COLS at a time, and writes the first position whose id is outside
// [0, vocab) (INT_MAX when there is none): a running minimum over tiles of positions masked by the test, then a
// row minimum. One result, so that every gather block can read it.
//
// EmbeddingGather: block (i, j) copies columns [j COLS, (j + 1) COLS) of the table rows of ids
// i ROWS ... i ROWS + ROWS - 1 into y. Each id is a scalar read, each row segment one 1 x COLS tile. After a
// check (checked), a block writes only when the check found no bad id, so a bad id writes nothing, and the
// launcher can queue the gather behind the check and read the result back once, after both. (Session 58: that
// did not shorten a checked call, ~15-20 us longer than the gather either way; the wait at its end is the cost,
// which Options::ids_in_range removes.)
#pragma once
#include <climits>

#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class I, int COLS, int THREADS>
struct EmbeddingCheck {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const I> ids;  // [1, n]
    tile::View2<int> first;    // [1, 1]
    int64_t vocab;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t n = p.ids.extent[1];
    auto first = full<int, 1, COLS>(blk, INT_MAX);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) {
      const auto pos = arange<1, COLS>(blk, 1) + int(c0);
      const auto id = load<1, COLS>(blk, p.ids, {0, c0});
      const auto bad = ((id < I(0)) | (id >= p.vocab)) & (pos < n);
      first = minimum(first, where(bad, pos, INT_MAX));
    }
    store(blk, p.first, {0, 0}, row_min(first));
  }
};

template <class T, int ROWS, int COLS, int THREADS>
struct EmbeddingGather {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const int32_t> ids32;  // [1, n], one of the two
    tile::View2<const int64_t> ids64;
    tile::View2<const T> table;        // [vocab, dim]
    tile::View2<T> y;                  // [n, dim]
    tile::View2<const int> first_bad;  // [1, 1]: EmbeddingCheck's result, where checked
    bool ids_i64, checked;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * ROWS, c0 = blk.bid(1) * COLS;
    const bool write = !p.checked || p.first_bad(0, 0) == INT_MAX;  // asked for beside the rows, tested before the stores
    for (int64_t r = r0; r < r0 + ROWS && r < p.y.extent[0]; ++r) {
      const int64_t id = p.ids_i64 ? p.ids64(0, r) : int64_t(p.ids32(0, r));
      const auto row = load<1, COLS>(blk, p.table, {id, c0});
      if (write) store(blk, p.y, {r, c0}, row);
    }
  }
};

}  // namespace tessera::ops::kernels
