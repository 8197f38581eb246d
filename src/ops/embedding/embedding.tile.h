// Embedding lookup as two tile kernels.
//
// EmbeddingCheck: each block scans COLS ids and writes the first position among them whose id is outside
// [0, vocab) (INT_MAX when there is none) -- a row minimum over a tile of positions masked by the test.
// The launcher reads these back and launches the gather only when every id is valid, so a bad id writes
// nothing.
//
// EmbeddingGather: block (i, j) copies columns [j COLS, (j + 1) COLS) of the table rows of ids
// i ROWS ... i ROWS + ROWS - 1 into y. Each id is a scalar read, each row segment one 1 x COLS tile.
#pragma once
#include <climits>

#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class I, int COLS, int THREADS>
struct EmbeddingCheck {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const I> ids;  // [1, n]
    tile::View2<int> first;    // [1, blocks]
    int64_t vocab;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t c0 = blk.bid(0) * COLS;
    const auto pos = arange<1, COLS>(blk, 1) + int(c0);
    const auto id = load<1, COLS>(blk, p.ids, {0, c0});
    const auto bad = ((id < I(0)) | (id >= p.vocab)) & (pos < p.ids.extent[1]);
    store(blk, p.first, {0, blk.bid(0)}, row_min(where(bad, pos, INT_MAX)));
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
    bool ids_i64;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * ROWS, c0 = blk.bid(1) * COLS;
    for (int64_t r = r0; r < r0 + ROWS && r < p.y.extent[0]; ++r) {
      const int64_t id = p.ids_i64 ? p.ids64(0, r) : int64_t(p.ids32(0, r));
      store(blk, p.y, {r, c0}, load<1, COLS>(blk, p.table, {id, c0}));
    }
  }
};

}  // namespace tessera::ops::kernels
