// Dtype conversion as a tile kernel: each block converts one ROWS x COLS tile of the [rows, n] views, going
// through fp32 (exact for f16 and bf16 inputs; f32 -> 16-bit rounds to nearest even).
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class From, class To, int ROWS, int COLS, int THREADS>
struct Cast {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const From> x;
    tile::View2<To> y;
    int64_t col_blocks;  // column tiles per row tile
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto [r0, c0] = tile::tile_origin<ROWS, COLS>(blk, p.col_blocks);
    store(blk, p.y, {r0, c0}, cast<To>(cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0}))));
  }
};

}  // namespace tessera::ops::kernels
