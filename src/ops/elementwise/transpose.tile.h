// Matrix transpose as a tile kernel: each block reads one TILE x TILE tile of x at (r0, c0) and writes its
// transpose to y at (c0, r0). Values pass through fp32, which is exact for every float dtype. Edge tiles are
// padded on load and masked on store.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int TILE, int THREADS>
struct Transpose {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const T> x;
    tile::View2<T> y;
    int64_t col_blocks;  // column tiles of x
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto [r0, c0] = tile::tile_origin<TILE, TILE>(blk, p.col_blocks);
    const auto t = cast<float>(load<TILE, TILE>(blk, p.x, {r0, c0}));
    store(blk, p.y, {c0, r0}, cast<T>(transpose(t)));
  }
};

}  // namespace tessera::ops::kernels
