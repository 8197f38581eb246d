// Elementwise addition as a tile kernel: each block adds one ROWS x COLS tile of the [rows, n] views.
//
// The grid is one-dimensional: block b covers row tile b / col_blocks and column tile b % col_blocks. Elements
// beyond the extents are padded on load and dropped on store; each thread stores exactly the elements it
// loaded, so y may be a or b.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int ROWS, int COLS, int THREADS>
struct Add {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const T> a, b;
    tile::View2<T> y;
    int64_t col_blocks;  // column tiles per row tile
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto [r0, c0] = tile::tile_origin<ROWS, COLS>(blk, p.col_blocks);
    const auto a = cast<float>(load<ROWS, COLS>(blk, p.a, {r0, c0}));
    const auto b = cast<float>(load<ROWS, COLS>(blk, p.b, {r0, c0}));
    store(blk, p.y, {r0, c0}, cast<T>(a + b));
  }
};

}  // namespace tessera::ops::kernels
